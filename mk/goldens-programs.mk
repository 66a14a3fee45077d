# Legacy sample programs (fixtures/programs/*.py) and their goldens from real Paddle 1.8.5.
#   make goldens-programs          create .venv-legacy if missing, re-record every program golden
#                                  (goldens of deleted programs are removed)
#   make verify-goldens-programs   re-run every program on 1.8.5; fail if any result differs
#                                  from its golden beyond rtol 1e-5 / atol 1e-6
#   GOLDENS_PROGRAMS="a b"         restrict either target to some programs (names without .py)

GP_LEGACY_DIR := .venv-legacy
GP_LEGACY_PY := $(GP_LEGACY_DIR)/bin/python
GOLDENS_PROGRAMS ?=

.PHONY: goldens-programs verify-goldens-programs goldens-programs-legacy-python

goldens-programs-legacy-python:
	@test -x $(GP_LEGACY_PY) || { \
	  py37=$$(ls -d $$(pyenv root 2>/dev/null)/versions/3.7.*/bin/python 2>/dev/null | tail -n 1); \
	  test -n "$$py37" || { echo "Python 3.7 not found under pyenv: cannot create $(GP_LEGACY_DIR)"; exit 1; }; \
	  echo "$$py37 -m venv $(GP_LEGACY_DIR)"; $$py37 -m venv $(GP_LEGACY_DIR); }
	@$(GP_LEGACY_PY) -c "import paddle, sys; sys.exit(paddle.__version__ != '1.8.5')" 2>/dev/null || \
	  $(GP_LEGACY_PY) -m pip install paddlepaddle==1.8.5 'numpy<1.20' 'protobuf<3.21'

goldens-programs: goldens-programs-legacy-python
	$(GP_LEGACY_PY) tools/record_program_goldens.py $(GOLDENS_PROGRAMS)

verify-goldens-programs: goldens-programs-legacy-python
	$(GP_LEGACY_PY) tools/record_program_goldens.py --verify $(GOLDENS_PROGRAMS)
