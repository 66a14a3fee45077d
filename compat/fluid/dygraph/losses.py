"""1.8.5's ``fluid.dygraph`` loss layers (previews of 2.0's ``paddle.nn`` losses): the same
losses with 1.8.5's signatures, but a ``'mean'`` / ``'sum'`` reduction returns shape [1] as
every 1.x reduction did (today's classes return a 0-D tensor)."""
import paddle

from compat._runtime import legacy, to_1x_shape


class _Shaped:
    def forward(self, *args, **kwargs):
        out = super().forward(*args, **kwargs)
        reduction = getattr(self, "reduction", getattr(self, "_reduction", "mean"))
        return out if reduction == "none" else to_1x_shape(out)


@legacy("paddle.fluid.dygraph.MSELoss", "paddle.fluid.dygraph.nn.MSELoss", "paddle.fluid.MSELoss",
        replacement="paddle.nn.MSELoss")
class MSELoss(_Shaped, paddle.nn.MSELoss):
    def __init__(self, reduction='mean'):
        super().__init__(reduction=reduction)


@legacy("paddle.fluid.dygraph.L1Loss", "paddle.fluid.dygraph.nn.L1Loss", "paddle.fluid.L1Loss",
        replacement="paddle.nn.L1Loss")
class L1Loss(_Shaped, paddle.nn.L1Loss):
    def __init__(self, reduction='mean'):
        super().__init__(reduction=reduction)


@legacy("paddle.fluid.dygraph.NLLLoss", "paddle.fluid.dygraph.nn.NLLLoss", "paddle.fluid.NLLLoss",
        replacement="paddle.nn.NLLLoss")
class NLLLoss(_Shaped, paddle.nn.NLLLoss):
    def __init__(self, weight=None, reduction='mean', ignore_index=-100):
        super().__init__(weight=weight, ignore_index=ignore_index, reduction=reduction)


@legacy("paddle.fluid.dygraph.BCELoss", "paddle.fluid.dygraph.nn.BCELoss", "paddle.fluid.BCELoss",
        replacement="paddle.nn.BCELoss")
class BCELoss(_Shaped, paddle.nn.BCELoss):
    def __init__(self, weight=None, reduction='mean'):
        super().__init__(weight=weight, reduction=reduction)
