"""``python -m compat SCRIPT [ARGS...]`` runs a Paddle 1.x script unmodified."""
import sys

from compat._runner import main

if __name__ == "__main__":
    sys.exit(main())
