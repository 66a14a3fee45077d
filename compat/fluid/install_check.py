"""``paddle.fluid.install_check`` (1.8): ``run_check()``.

1.8's self-test built and ran its own programs and left the mode alone; today's
``paddle.utils.run_check()`` ends in dynamic mode whatever the mode before it, so the
static program after the check would fail: the mode is restored.
"""
from __future__ import annotations

import paddle

from compat import _lazy
from compat._runtime import legacy


@legacy("paddle.fluid.install_check.run_check", replacement="paddle.utils.run_check")
def run_check():
    static = not paddle.in_dynamic_mode()
    paddle.utils.run_check()
    if static:
        paddle.enable_static()


_lazy.attach(globals())
