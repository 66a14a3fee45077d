"""paddle-upgrade: bring PaddlePaddle 1.x (paddle.fluid) code to the modern Paddle API."""

__version__ = "0.1.0"

from upgrader.engine import Finding, Result, upgrade_source  # noqa: E402

__all__ = ["Finding", "Result", "upgrade_source", "__version__"]
