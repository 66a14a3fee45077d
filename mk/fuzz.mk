# Long fuzzing run of the engine: tests/test_fuzz.py with many random legacy programs per
# property, shrinking on (the smoke pass in `make test` uses 150 with a fixed seed).
#   make fuzz                      5000 examples per property
#   make fuzz FUZZ_EXAMPLES=20000

FUZZ_EXAMPLES ?= 5000

fuzz: venv
	PADDLE_UPGRADE_FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) $(BIN)/python -m pytest -q tests/test_fuzz.py \
	  --hypothesis-show-statistics
