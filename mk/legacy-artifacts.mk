# Files saved by real Paddle 1.8.5 in every 1.x format (fixtures/legacy_artifacts/saved/)
# and the 1.8.5 results of the legacy loader programs (fixtures/legacy_artifacts/goldens/).
#   make legacy-artifacts          re-record them on the real engine (.venv-legacy)
#   make verify-legacy-artifacts   re-save and re-load on 1.8.5; fail unless the files are
#                                  byte-identical and the results equal the goldens
# `make goldens` / `make verify-goldens` run them too (prerequisites added below).

.PHONY: legacy-artifacts verify-legacy-artifacts

legacy-artifacts: legacy-venv
	$(LEGACY)/bin/python tools/record_legacy_artifacts.py

verify-legacy-artifacts: legacy-venv
	$(LEGACY)/bin/python tools/record_legacy_artifacts.py --verify

goldens: legacy-artifacts
verify-goldens: verify-legacy-artifacts
