"""``paddle.fluid.dygraph.container`` (1.8): ``Sequential``, ``LayerList``, ``ParameterList``."""
from __future__ import annotations

import paddle

from compat import _lazy
from compat._runtime import legacy
from compat.fluid.dygraph.layers import LegacyLayerMethods


@legacy("paddle.fluid.dygraph.Sequential", "paddle.fluid.dygraph.container.Sequential",
        replacement="paddle.nn.Sequential")
class Sequential(LegacyLayerMethods, paddle.nn.Sequential):
    def __init__(self, *layers):
        super().__init__(*layers)


@legacy("paddle.fluid.dygraph.LayerList", "paddle.fluid.dygraph.container.LayerList",
        replacement="paddle.nn.LayerList")
class LayerList(LegacyLayerMethods, paddle.nn.LayerList):
    def __init__(self, sublayers=None):
        super().__init__(sublayers)


@legacy("paddle.fluid.dygraph.ParameterList", "paddle.fluid.dygraph.container.ParameterList",
        replacement="paddle.nn.ParameterList")
class ParameterList(paddle.nn.ParameterList):
    def __init__(self, parameters=None):
        super().__init__(parameters)


_lazy.attach(globals())
