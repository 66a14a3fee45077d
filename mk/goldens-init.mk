# Default parameter initialisation (fixtures/init_defaults/legacy_init.py) on real 1.8.5.
#   make goldens-init          re-record fixtures/goldens/init_defaults.json
#   make verify-goldens-init   re-run on 1.8.5; fail if a distribution differs from the golden

.PHONY: goldens-init verify-goldens-init

goldens-init: legacy-venv
	env -u PYTHONPATH $(GP_LEGACY_PY) tools/record_init_goldens.py

verify-goldens-init: legacy-venv
	env -u PYTHONPATH $(GP_LEGACY_PY) tools/record_init_goldens.py --verify
