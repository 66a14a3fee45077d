"""Multi-process runs: ``paddle-upgrade run --nproc_per_node N SCRIPT [ARGS...]``.

Paddle's launcher (``python -m paddle.distributed.launch``) starts each worker as
``python -u <training_script> <args>`` and only accepts a ``.py`` file as the training
script (no ``-m module``). So the training script we hand it is
``compat/launch_worker.py``, a tiny file that installs the shim in the worker and then
runs the user's script as ``__main__`` (see :func:`compat.run_script`). Per-rank logs
land where the launcher puts them (``log/workerlog.R``); the exit code is the
launcher's.
"""
from __future__ import annotations

import os
import subprocess
import sys
from typing import List, Sequence

WORKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "launch_worker.py")


def command(script: str, argv: Sequence[str], nproc_per_node: int,
            launch_args: Sequence[str] = ()) -> List[str]:
    return ([sys.executable, "-m", "paddle.distributed.launch",
             "--nproc_per_node", str(int(nproc_per_node))] + list(launch_args)
            + [WORKER, os.path.abspath(script)] + list(argv))


def environment() -> dict:
    """The workers' environment: compat importable even from a source checkout."""
    env = dict(os.environ)
    root = os.path.dirname(os.path.dirname(WORKER))
    parts = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    if root not in parts:
        parts.append(root)
    env["PYTHONPATH"] = os.pathsep.join(parts)
    return env


def launch(script: str, argv: Sequence[str], nproc_per_node: int,
           launch_args: Sequence[str] = ()) -> int:
    return subprocess.call(command(script, argv, nproc_per_node, launch_args), env=environment())
