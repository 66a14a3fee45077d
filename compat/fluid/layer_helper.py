"""``paddle.fluid.layer_helper`` (1.8): ``LayerHelper``, the helper 1.x custom layers were
written with (models/PaddleCV gan's instance norm: ``helper.input_dtype()`` and
``helper.create_parameter(attr=..., shape=..., dtype=...)`` around plain layers ops).

The parameter side works as in 1.8 (names ``<layer>_<n>.w_<m>`` / ``.b_<m>`` unless the
attribute names them, Xavier / zero default initializers, the layer's ``act`` and bias);
building operators by hand (``create_variable_for_type_inference`` + ``append_op``) has
no counterpart on today's PIR programs and raises a migration error."""
from __future__ import annotations

import paddle

from compat import _lazy
from compat._runtime import legacy, manual_error

__all__ = ["LayerHelper"]

_NAME = "paddle.fluid.layer_helper.LayerHelper"
_OPS = ("a layer built from its own operators (append_op on an output made by "
        "create_variable_for_type_inference) has no counterpart on Paddle 3's PIR "
        "programs: compute the output with paddle ops (or the custom-op API for a new op)")


@legacy(_NAME, replacement="paddle.create_parameter + paddle ops")
class LayerHelper(object):
    def __init__(self, layer_type, **kwargs):
        from compat.fluid.layers._helper import layer_name
        self.kwargs = kwargs
        self.layer_type = layer_type
        name = kwargs.get("name")
        self.name = layer_name(layer_type, name)

    # programs -------------------------------------------------------------------------
    @property
    def main_program(self):
        return paddle.static.default_main_program()

    @property
    def startup_program(self):
        return paddle.static.default_startup_program()

    # inputs and attributes --------------------------------------------------------------
    def multiple_input(self, input_param_name="input"):
        inputs = self.kwargs.get(input_param_name, [])
        return list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]

    def input(self, input_param_name="input"):
        inputs = self.multiple_input(input_param_name)
        if len(inputs) != 1:
            raise ValueError("%s layer only takes one input" % self.layer_type)
        return inputs[0]

    def input_dtype(self, input_param_name="input"):
        dtype = None
        for each in self.multiple_input(input_param_name):
            if dtype is None:
                dtype = each.dtype
            elif dtype != each.dtype:
                raise ValueError("Data Type mismatch: %s to %s" % (dtype, each.dtype))
        return dtype

    @property
    def param_attr(self):
        return paddle.ParamAttr._to_attr(self.kwargs.get("param_attr", None))

    @property
    def bias_attr(self):
        return paddle.ParamAttr._to_attr(self.kwargs.get("bias_attr", None))

    # parameters ---------------------------------------------------------------------------
    def create_parameter(self, attr, shape, dtype=None, is_bias=False, default_initializer=None,
                         stop_gradient=False, type=None):
        """1.8: a copy of ``attr`` (False: no parameter), named ``<layer name>.w_<n>`` /
        ``.b_<n>`` when unnamed, Xavier (weights) or zero (biases) when it has no
        initializer and none is given."""
        from compat.fluid.layers._helper import create_parameter
        if dtype is None:
            dtype = "float32"
        p = create_parameter(self.name, "b" if is_bias else "w", list(shape), dtype, attr,
                             is_bias=is_bias, default_initializer=default_initializer)
        if p is not None and stop_gradient:
            p.stop_gradient = True
        return p

    def get_parameter(self, name):
        for p in self.main_program.global_block().all_parameters():
            if p.name == name:
                return p
        raise ValueError("no Parameter name %s found" % name)

    def append_bias_op(self, input_var, dim_start=1, dim_end=None):
        """1.8: a bias of shape input.shape[dim_start:dim_end] from the layer's
        ``bias_attr`` added along those dimensions (none when bias_attr is False)."""
        size = list(input_var.shape[dim_start:dim_end])
        bias_attr = self.bias_attr
        if not bias_attr:
            return input_var
        b = self.create_parameter(attr=bias_attr, shape=size, dtype=input_var.dtype, is_bias=True)
        rank = len(input_var.shape)
        tail = rank - dim_start - len(size)
        return input_var + paddle.reshape(b, [1] * dim_start + size + [1] * tail)

    def append_activation(self, input_var):
        from compat._wrap import apply_act
        act = self.kwargs.get("act", None)
        if act is None:
            return input_var
        if isinstance(act, dict):
            act = act.get("type")
        return apply_act(input_var, act)

    # operators built by hand ---------------------------------------------------------------
    def create_variable_for_type_inference(self, dtype, stop_gradient=False):
        raise manual_error(_NAME, _OPS)

    create_variable = create_variable_for_type_inference

    def append_op(self, *args, **kwargs):
        raise manual_error(_NAME, _OPS)


_lazy.attach(globals())
