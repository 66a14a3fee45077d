"""``paddle.fluid.unique_name`` (1.8) -> ``paddle.utils.unique_name``."""
from __future__ import annotations

from paddle.utils import unique_name as _un

from compat import _lazy
from compat._runtime import legacy

__all__ = ["generate", "switch", "guard"]


@legacy("paddle.fluid.unique_name.generate", replacement="paddle.utils.unique_name.generate")
def generate(key):
    return _un.generate(key)


@legacy("paddle.fluid.unique_name.switch", replacement="paddle.utils.unique_name.switch")
def switch(new_generator=None, new_para_name_checker=None):
    return _un.switch(new_generator)


@legacy("paddle.fluid.unique_name.guard", replacement="paddle.utils.unique_name.guard")
def guard(new_generator=None):
    return _un.guard(new_generator)


_lazy.attach(globals())
