# paddle-upgrade — two commands do all the set-up:
#   make demo   sets up .venv and runs the main job on a bundled legacy sample
#   make test   sets up .venv with test extras and runs the whole suite
# Other targets: goldens (re-record 1.8.5 results on the real engine), proof, bench, fuzz.

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
PY37 := $(firstword $(wildcard $(shell pyenv root 2>/dev/null)/versions/3.7.*/bin/python))
LEGACY := .venv-legacy
export PIP_DISABLE_PIP_VERSION_CHECK := 1

.PHONY: demo test test-fast goldens verify-goldens proof bench fuzz clean venv legacy-venv docs

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

demo: venv
	$(BIN)/python tools/demo.py

# With Python 3.7 present, the suite also re-verifies the committed goldens on real 1.8.5.
test: venv
ifneq ($(PY37),)
	$(MAKE) legacy-venv
	PADDLE_UPGRADE_REQUIRE_LEGACY=1 $(BIN)/python -m pytest -q -n 2 --dist loadfile
else
	$(BIN)/python -m pytest -q -n 2 --dist loadfile
endif

test-fast: venv
	$(BIN)/python -m pytest -q -n 2 --dist loadfile -m "not slow"

goldens: legacy-venv goldens-programs goldens-rules

verify-goldens: legacy-venv verify-goldens-programs verify-goldens-rules

docs: venv
	$(BIN)/python tools/gen_rules_doc.py

clean:
	rm -rf build dist *.egg-info .pytest_cache .paddle_upgrade_cache demo-out

-include mk/*.mk
