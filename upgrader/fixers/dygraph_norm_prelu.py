"""PU101 dygraph-prelu-instance-norm: ``fluid.dygraph.PRelu`` and
``fluid.dygraph.InstanceNorm`` become ``_FluidPRelu`` / ``_FluidInstanceNorm``, Layer
classes fix adds to the module that keep 1.8's parameters and compute 1.8's ops with
paddle ops.

What it does
    ``fluid.dygraph.PRelu(mode, channel, input_shape, param_attr, dtype)`` becomes
    ``_FluidPRelu(...)`` and ``fluid.dygraph.InstanceNorm(num_channels, epsilon,
    param_attr, bias_attr, dtype)`` becomes ``_FluidInstanceNorm(...)``, the same
    arguments; fix adds the classes once, after the module's imports.

    - ``_FluidPRelu`` owns ``weight`` of 1.8's shape (``[1]`` for ``'all'``,
      ``[1, C, 1, 1]`` for ``'channel'``, ``[1] + input_shape[1:]`` for ``'element'``),
      initialised to **1.0** by default as 1.8.5's dygraph layer did (the static
      ``layers.prelu`` used 0.25), and computes ``where(x > 0, x, weight * x)`` (the
      channel weight laid along axis 1 of an input of any rank).
    - ``_FluidInstanceNorm`` owns ``scale`` (ones) and ``bias`` (zeros) of shape ``[C]``
      and normalises each sample and channel over the remaining axes of an input of any
      rank >= 3 with today's instance_norm kernel; where that kernel's gradients are not
      1.8's (one of scale and bias frozen) or it fails (a static program whose input
      takes no gradient) with paddle ops: ``(x - mean) / sqrt(var + epsilon) * scale +
      bias``, var biased.

Why is this bad?
    ``paddle.nn.PReLU`` starts at 0.25 (1.8.5's dygraph PRelu started at 1.0, the
    identity), keeps a ``[C]`` weight under another name, has no ``'element'`` mode, and
    its backward crashes the process on 3.3.1 when its input needs no gradient.
    ``paddle.nn.InstanceNorm1D/2D/3D`` check the rank that 1.8's layer did not, and
    3.3.1's instance_norm backward computes neither the scale's nor the bias's gradient
    when one of them is frozen (1.8.5 trained the other) and fails in a static program
    whose input needs no gradient.

Example
    ``self.norm = fluid.dygraph.InstanceNorm(64)`` →
    ``self.norm = _FluidInstanceNorm(64)``.

Fix safety
    Safe: the rules' examples (default and given initialisers, every PRelu mode,
    rank-3/4/5 inputs, a frozen bias, gradients of the input and of the parameters, in
    dygraph and static mode) agree with 1.8.5. ``state_dict`` keys (``weight``;
    ``scale``, ``bias``) and parameter shapes are 1.8's, so 1.8 checkpoints load. Manual
    when the module already uses the class's name for something else.
"""
from __future__ import annotations

import libcst as cst

CODE = "PU101"
STRUCTURAL = ("dygraph-prelu-instance-norm",)
NAMES = {"paddle.fluid.dygraph.PRelu": "_FluidPRelu",
         "paddle.fluid.dygraph.InstanceNorm": "_FluidInstanceNorm"}
#: what docs/rules.md and explain show instead of the entry's target
HELPERS = {"dygraph-prelu-instance-norm": "_FluidPRelu / _FluidInstanceNorm (Layer classes "
                                          "fix adds to the module: 1.8's parameters and op)"}
HELPER_OF = {"paddle.fluid.dygraph.PRelu": "_FluidPRelu (a Layer class fix adds to the module: "
                                           "1.8's weight shape, initial 1.0, prelu op)",
             "paddle.fluid.dygraph.InstanceNorm": "_FluidInstanceNorm (a Layer class fix adds "
                                                  "to the module: 1.8's instance_norm, any rank)"}

SOURCES = {
    "_FluidPRelu": '''class _FluidPRelu(paddle.nn.Layer):
    """Paddle 1.8's fluid.dygraph.PRelu: weight of shape [1] ('all'), [1, C, 1, 1]
    ('channel') or [1] + input_shape[1:] ('element'), 1.0 unless param_attr says
    otherwise; forward where(x > 0, x, weight * x)."""

    def __init__(self, mode, channel=None, input_shape=None, param_attr=None,
                 dtype='float32'):
        super().__init__(name_scope='prelu')
        self._mode = mode
        if mode == 'all':
            shape = [1]
        elif mode == 'channel':
            assert isinstance(channel, int), \\
                "channel argument is required when mode is 'channel'."
            shape = [1, channel, 1, 1]
        elif mode == 'element':
            assert isinstance(input_shape, (list, tuple)), \\
                "input_shape argument is required when mode is 'element'."
            shape = [1] + list(input_shape)[1:]
        else:
            raise ValueError('mode should be one of all, channel, element.')
        self.weight = self.create_parameter(
            attr=param_attr, shape=shape, dtype='float32', is_bias=False,
            default_initializer=paddle.nn.initializer.Constant(1.0))

    def forward(self, input):
        alpha = self.weight
        if self._mode == 'channel' and len(input.shape) != 4:
            alpha = paddle.reshape(alpha, [1, -1] + [1] * (len(input.shape) - 2))
        return paddle.where(input > 0, input, alpha * input)
''',
    "_FluidInstanceNorm": '''class _FluidInstanceNorm(paddle.nn.Layer):
    """Paddle 1.8's fluid.dygraph.InstanceNorm: scale (ones) and bias (zeros) of shape
    [C]; each sample's channel normalised over the other axes (biased variance), any
    rank >= 3."""

    def __init__(self, num_channels, epsilon=1e-05, param_attr=None, bias_attr=None,
                 dtype='float32'):
        super().__init__(name_scope='instance_norm')
        assert bias_attr is not False, "bias_attr should not be False in InstanceNorm."
        self._epsilon = epsilon
        self.scale = self.create_parameter(
            attr=param_attr, shape=[num_channels], dtype=dtype, is_bias=False,
            default_initializer=paddle.nn.initializer.Constant(1.0))
        self.bias = self.create_parameter(
            attr=bias_attr, shape=[num_channels], dtype=dtype, is_bias=True,
            default_initializer=paddle.nn.initializer.Constant(0.0))

    def forward(self, input):
        scale, bias = self.scale, self.bias
        if scale is not None and bias is not None and scale.stop_gradient == bias.stop_gradient \
                and (paddle.in_dynamic_mode() or not input.stop_gradient):
            # today's kernel, as 1.8's (its gradients are 1.8's when neither or both of
            # scale and bias are frozen and, in a static program, the input takes one)
            return paddle.nn.functional.instance_norm(input, weight=scale, bias=bias,
                                                      eps=self._epsilon)
        axes = list(range(2, len(input.shape)))
        mean = paddle.mean(input, axis=axes, keepdim=True)
        centered = input - mean
        var = paddle.mean(centered * centered, axis=axes, keepdim=True)
        out = centered / paddle.sqrt(var + self._epsilon)
        lay = [1, -1] + [1] * len(axes)
        if self.scale is not None:
            out = out * paddle.reshape(self.scale, lay)
        if self.bias is not None:
            out = out + paddle.reshape(self.bias, lay)
        return out
''',
}


def rewrite_call(up, original: cst.Call, updated: cst.Call, entry):
    from upgrader.fixers import bound_or_report, helper_conflict, use_helper
    name = NAMES[entry.name]
    if helper_conflict(up, original, entry, name, SOURCES[name]) \
            or bound_or_report(up, original, updated, entry) is None:
        return updated
    up.needed_imports.add("paddle")  # the class is a paddle.nn.Layer
    use_helper(up, original, entry, name, HELPER_OF[entry.name].split(" (", 1)[1][:-1])
    return updated.with_changes(func=cst.Name(name))


def finish_module(up, module: cst.Module) -> cst.Module:
    """Add the classes the rewrites call after the module's docstring and imports."""
    from upgrader.fixers import add_used_helpers
    return add_used_helpers(up, module, SOURCES)
