# paddle-upgrade — two commands do all the set-up:
#   make demo   sets up .venv and runs the main job on a bundled legacy sample
#   make test   sets up .venv with test extras and runs the whole suite
# Other targets: goldens (re-record 1.8.5 results on the real engine), proof, bench, fuzz.

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
PY37 := $(firstword $(wildcard $(shell pyenv root 2>/dev/null)/versions/3.7.*/bin/python))
LEGACY := .venv-legacy
LEGACY20 := .venv-legacy20
export PIP_DISABLE_PIP_VERSION_CHECK := 1

.PHONY: demo test test-fast goldens verify-goldens proof bench fuzz clean venv legacy-venv legacy20-venv docs

venv: $(VENV)/.stamp

$(VENV)/.stamp: pyproject.toml setup.py
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[runtime,test]'
	touch $@

# The real legacy engine (Paddle 1.8.5 on Python 3.7 from pyenv), when 3.7 exists.
legacy-venv: $(LEGACY)/.stamp

$(LEGACY)/.stamp:
	@test -n "$(PY37)" || { echo "Python 3.7 not found under pyenv: cannot create $(LEGACY)"; exit 1; }
	test -x $(LEGACY)/bin/python || $(PY37) -m venv $(LEGACY)
	$(LEGACY)/bin/python -m pip install -q paddlepaddle==1.8.5 'numpy<1.20' 'protobuf<3.21'
	touch $@

# Paddle 2.0.2 on Python 3.7, for the rule examples whose names first appeared in 2.0's
# paddle.fluid (example engine = "2.0"). PyPI keeps no CPU wheel of 2.0.x, so this is the
# CUDA wheel, which runs on CPU without a GPU (CUDA is loaded lazily); on glibc >= 2.34 it
# needs the _dl_sym shim (proof/dl_sym_shim.c), loaded by a .pth file of this venv only.
legacy20-venv: $(LEGACY20)/.stamp

$(LEGACY20)/.stamp: proof/dl_sym_shim.c
	@test -n "$(PY37)" || { echo "Python 3.7 not found under pyenv: cannot create $(LEGACY20)"; exit 1; }
	test -x $(LEGACY20)/bin/python || $(PY37) -m venv $(LEGACY20)
	$(LEGACY20)/bin/python -m pip install -q paddlepaddle-gpu==2.0.2 'numpy<1.20' 'protobuf<3.21' 'gast==0.3.3'
	cc -shared -fPIC -O2 -o $(LEGACY20)/lib/dl_sym_shim.so proof/dl_sym_shim.c -ldl
	echo "import ctypes, os, sys; ctypes.CDLL(os.path.join(sys.prefix, 'lib', 'dl_sym_shim.so'), ctypes.RTLD_GLOBAL)" \
		> $$(echo $(LEGACY20)/lib/python3.7/site-packages)/dl_sym_shim.pth
	$(LEGACY20)/bin/python -W ignore -c "import paddle, paddle.fluid; assert paddle.__version__.startswith('2.0.'), paddle.__version__"
	touch $@

demo: venv
	$(BIN)/python tools/demo.py

# With Python 3.7 present, the suite also re-verifies the committed goldens on real 1.8.5
# (and those of the 2.0 names on Paddle 2.0.2).
test: venv
ifneq ($(PY37),)
	$(MAKE) legacy-venv legacy20-venv
	PADDLE_UPGRADE_REQUIRE_LEGACY=1 $(BIN)/python -m pytest -q -n 2 --dist loadfile
else
	$(BIN)/python -m pytest -q -n 2 --dist loadfile
endif

test-fast: venv
	$(BIN)/python -m pytest -q -n 2 --dist loadfile -m "not slow"

goldens: legacy-venv legacy20-venv goldens-programs goldens-rules goldens-init

verify-goldens: legacy-venv legacy20-venv verify-goldens-programs verify-goldens-rules verify-goldens-init

docs: venv
	$(BIN)/python tools/gen_rules_doc.py

clean:
	rm -rf build dist *.egg-info .pytest_cache .paddle_upgrade_cache demo-out

-include mk/*.mk
