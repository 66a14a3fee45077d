# Proof by execution: every automatic rule's example run on real Paddle 1.8.5 (goldens),
# rewritten by the engine on today's Paddle, and unmodified through compat.
#   make goldens-rules         record missing/stale rule goldens on .venv-legacy
#                              (.venv-legacy20, Paddle 2.0.2, for examples with
#                              engine = "2.0"; PROOF_ARGS=--all re-records all, or name entries)
#   make verify-goldens-rules  re-run every example on 1.8.5 (2.0.2); fail on any difference
#   make proof                 per rules file: automatic rules proven / not (why) and %;
#                              also written to proof/report.json

PROOF_PY ?= $(BIN)/python
PROOF_ARGS ?=

.PHONY: goldens-rules verify-goldens-rules proof

goldens-rules: venv legacy-venv legacy20-venv
	$(PROOF_PY) -m proof.record $(PROOF_ARGS)

verify-goldens-rules: venv legacy-venv legacy20-venv legacy20-venv
	$(PROOF_PY) -m proof.record --verify $(PROOF_ARGS)

proof: venv
	$(PROOF_PY) -m proof.report $(PROOF_ARGS)
