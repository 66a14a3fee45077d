"""Worker entry point for ``paddle.distributed.launch``: install the shim, run the script.

Started by the launcher as ``python -u .../compat/launch_worker.py SCRIPT [ARGS...]``.
"""
import os
import sys

_here = os.path.dirname(os.path.abspath(__file__))
# Run as a file, this directory is sys.path[0]: drop it so compat's modules cannot
# shadow anything, and make the package itself importable.
if sys.path and os.path.abspath(sys.path[0] or os.curdir) == _here:
    sys.path.pop(0)
_root = os.path.dirname(_here)
if _root not in sys.path:
    sys.path.append(_root)

from compat._runner import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
