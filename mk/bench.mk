# Speed at scale against the anchors (not part of `make test`), see benchmarks/README.md.
#   make bench                   corpus (100k + 1M lines), anchors venv, benchmarks/run.py
#   make bench BENCH_ARGS=--quick   one repeat, 100k lines everywhere
#   make bench-anchors           only the anchors venv (paddle_upgrade_tool, ruff, py-spy)
# The anchor (paddle_upgrade_tool, bowler/fissix) needs Python <= 3.9: taken from pyenv.

BENCH_ANCHORS := benchmarks/.venv-anchors
BENCH_PYENV := $(shell pyenv root 2>/dev/null)
BENCH_ANCHORS_PY ?= $(firstword $(wildcard $(BENCH_PYENV)/versions/3.9.*/bin/python) \
                                $(wildcard $(BENCH_PYENV)/versions/3.8.*/bin/python))
BENCH_ARGS ?=

.PHONY: bench-anchors bench-corpus

bench-anchors: $(BENCH_ANCHORS)/.stamp

$(BENCH_ANCHORS)/.stamp: mk/bench.mk
	@test -n "$(BENCH_ANCHORS_PY)" || { echo "Python 3.9/3.8 not found under pyenv: the anchor tool (bowler) needs it"; exit 1; }
	test -x $(BENCH_ANCHORS)/bin/python || $(BENCH_ANCHORS_PY) -m venv $(BENCH_ANCHORS)
	$(BENCH_ANCHORS)/bin/python -m pip install -q paddle-upgrade-tool==0.0.27 ruff==0.17.6 py-spy==0.4.3
	touch $@

bench-corpus: venv
	$(BIN)/python benchmarks/make_corpus.py

bench: venv bench-anchors bench-corpus
	$(BIN)/python benchmarks/run.py $(BENCH_ARGS)
