"""Started Python processes of a script run by ``python -m compat`` (multiprocessing's
``spawn``/``forkserver`` children, ``subprocess`` runs of other 1.x scripts) get the shim
too: this directory is put on their ``PYTHONPATH`` with ``PADDLE_COMPAT_CHILD=1``, and the
first import of ``paddle`` (or ``paddle.fluid``) in them installs compat. Processes that
never import paddle pay nothing. Another ``sitecustomize`` further down the path still runs.
"""
import os
import sys


def _chain():
    """Run the sitecustomize this one hides (the next one on sys.path), if any."""
    here = os.path.dirname(os.path.abspath(__file__))
    import importlib.util
    for entry in sys.path:
        if not entry or os.path.abspath(entry) == here:
            continue
        path = os.path.join(entry, "sitecustomize.py")
        if os.path.isfile(path):
            spec = importlib.util.spec_from_file_location("_compat_chained_sitecustomize", path)
            try:
                spec.loader.exec_module(importlib.util.module_from_spec(spec))
            except Exception:  # pragma: no cover - someone else's hook
                pass
            return


class _InstallOnPaddle:
    """A meta-path hook: ``paddle`` is imported as usual, then compat is installed."""

    def find_spec(self, name, path=None, target=None):
        if name != "paddle":
            return None
        sys.meta_path.remove(self)  # once
        import importlib.machinery
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None or spec.loader is None:
            return spec
        real = spec.loader

        class _ThenInstall:
            def create_module(self, s):
                return real.create_module(s)

            def exec_module(self, module):
                real.exec_module(module)
                import compat
                compat.install()

        spec.loader = _ThenInstall()
        return spec


if os.environ.get("PADDLE_COMPAT_CHILD") == "1":
    sys.meta_path.insert(0, _InstallOnPaddle())
_chain()
