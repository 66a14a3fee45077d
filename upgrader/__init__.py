"""paddle-upgrade: bring PaddlePaddle 1.x (paddle.fluid) code to the modern Paddle API."""

__version__ = "0.1.0"

__all__ = ["Finding", "Result", "upgrade_source", "__version__"]


def __getattr__(name: str):
    """``from upgrader import upgrade_source`` imports the engine (and libcst) on first
    use, not on every ``import upgrader``: a warm ``check`` never needs them."""
    if name in ("Finding", "Result", "upgrade_source"):
        from upgrader import engine
        return getattr(engine, name)
    raise AttributeError(f"module 'upgrader' has no attribute {name!r}")
