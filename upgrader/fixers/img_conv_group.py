"""PU101 img-conv-group: ``fluid.nets.img_conv_group`` becomes ``_fluid_img_conv_group``, a
function fix adds to the module that builds 1.8.5's VGG block with today's layers.

What it does
    ``fluid.nets.img_conv_group(input, conv_num_filter, pool_size, ...)`` becomes
    ``_fluid_img_conv_group(...)`` with the same arguments (1.8.5's signature), and ``fix``
    adds the function once, after the module's imports. Like 1.8.5's
    ``paddle/fluid/nets.py`` it broadcasts the per-layer arguments (padding, filter size,
    param_attr, batch norm flag, drop rate) that are not sequences, then for each entry
    of ``conv_num_filter`` builds a ``paddle.nn.Conv2D`` (stride 1, its activation only
    without batch norm), with batch norm a ``paddle.nn.BatchNorm(act=conv_act)`` and, for a
    drop rate above 1e-5, ``paddle.nn.functional.dropout(mode='downscale_in_infer')``, and
    ends with one max or avg pool (``pool_stride``, no padding).

Why is this bad?
    ``fluid.nets`` is gone in 3.x and no function builds the block. Each piece is what
    the proven rewrite of its 1.8 layer gives (conv2d, batch_norm, static dropout,
    pool2d), so the block creates the same parameters (per layer a conv weight and bias, a
    batch norm scale, offset and statistics) and computes what 1.8.5 did.

Example
    ``fluid.nets.img_conv_group(input=ipt, pool_size=2, pool_stride=2,
    conv_num_filter=[64, 64], conv_act='relu', conv_with_batchnorm=True,
    conv_batchnorm_drop_rate=[0.3, 0])`` → ``_fluid_img_conv_group(input=ipt, ...)``.

Fix safety
    Safe in a module that builds static graphs only (the dropout's condition, see the
    static-dropout fixer), with ``conv_act`` None or a literal 'relu', 'sigmoid' or
    'tanh' and ``pool_type`` a literal 'max' or 'avg' (the rule's example, three blocks
    with and without batch norm and a dropout, agrees with 1.8.5). Manual otherwise:
    other activations (1.8 applied any activation op by name; leaky_relu's default slope,
    for one, changed), a pool type known only at run time, and dynamic-mode modules,
    where 1.8's dropout followed the tracer's mode; also when the module already uses the
    function's name.
"""
from __future__ import annotations

import libcst as cst

from upgrader.args import code_of, literal

CODE = "PU101"
STRUCTURAL = ("img-conv-group",)
NAME = "_fluid_img_conv_group"
#: what docs/rules.md and explain show instead of the entry's target
HELPERS = {"img-conv-group": f"{NAME} (a function fix adds to the module: 1.8.5's VGG block)"}
ACTS = (None, "relu", "sigmoid", "tanh")  # conv_act values the function applies as 1.8 did

SOURCE = f'''def {NAME}(input, conv_num_filter, pool_size, conv_padding=1, conv_filter_size=3,
                          conv_act=None, param_attr=None, conv_with_batchnorm=False,
                          conv_batchnorm_drop_rate=0.0, pool_stride=1, pool_type='max',
                          use_cudnn=True):
    """Paddle 1.8's fluid.nets.img_conv_group: per entry of conv_num_filter a conv2d (its
    act only without batch norm), with batch norm a batch_norm(act=conv_act) and a dropout
    above rate 1e-5, then one pool2d (pool_stride, no padding)."""
    import paddle
    acts = {{None: lambda v: v, 'relu': paddle.nn.functional.relu,
            'sigmoid': paddle.nn.functional.sigmoid, 'tanh': paddle.tanh}}
    assert isinstance(conv_num_filter, (list, tuple))

    def extend(obj):
        if not hasattr(obj, '__len__'):
            return [obj] * len(conv_num_filter)
        assert len(obj) == len(conv_num_filter)
        return obj

    conv_padding, conv_filter_size = extend(conv_padding), extend(conv_filter_size)
    param_attr, conv_with_batchnorm = extend(param_attr), extend(conv_with_batchnorm)
    conv_batchnorm_drop_rate = extend(conv_batchnorm_drop_rate)
    tmp = input
    for i in range(len(conv_num_filter)):
        tmp = paddle.nn.Conv2D(in_channels=tmp.shape[1], out_channels=conv_num_filter[i],
                               kernel_size=conv_filter_size[i], padding=conv_padding[i],
                               weight_attr=param_attr[i])(tmp)
        if not conv_with_batchnorm[i]:
            tmp = acts[conv_act](tmp)
            continue
        tmp = paddle.nn.BatchNorm(num_channels=tmp.shape[1], act=conv_act)(tmp)
        if abs(conv_batchnorm_drop_rate[i]) > 1e-5:
            tmp = paddle.nn.functional.dropout(tmp, p=conv_batchnorm_drop_rate[i],
                                               mode='downscale_in_infer')
    pool = paddle.nn.functional.max_pool2d if pool_type == 'max' else paddle.nn.functional.avg_pool2d
    return pool(tmp, kernel_size=pool_size, stride=pool_stride, padding=0)
'''


def _why_manual(up, bound) -> str:
    from upgrader.fixers.static_dropout import static_only
    act = bound.values.get("conv_act")
    if act is not None:
        kind, value = literal(code_of(act.value))
        if kind != "ok" or value not in ACTS:
            return (f"conv_act={code_of(act.value)} is not None, 'relu', 'sigmoid' or 'tanh' "
                    "(1.8 applied any activation op by name)")
    pool = bound.values.get("pool_type")
    if pool is not None:
        kind, value = literal(code_of(pool.value))
        if kind != "ok" or value not in ("max", "avg"):
            return f"pool_type={code_of(pool.value)} is not a literal 'max' or 'avg'"
    if not static_only(up):
        return ("the module has dynamic-mode code, where 1.8's dropout followed the tracer's "
                "train/eval mode")
    from upgrader.fixers import helper_state
    if helper_state(up, NAME, SOURCE) == "conflict":
        return f"the module already uses the name {NAME} for something else"
    return ""


def rewrite_call(up, original: cst.Call, updated: cst.Call, entry):
    from upgrader.fixers import bound_or_report, static_mode, use_helper
    bound = bound_or_report(up, original, updated, entry)
    if bound is None:
        return updated
    why = _why_manual(up, bound)
    if why:
        up.report_entry(original, entry, False, manual=f"{why}; {entry.note}")
        return updated
    static_mode.note_applied(up, entry)
    use_helper(up, original, entry, NAME, "a function fix adds to the module: 1.8.5's VGG block")
    return updated.with_changes(func=cst.Name(NAME))


def finish_module(up, module: cst.Module) -> cst.Module:
    """Add the function the rewrites call after the module's docstring and imports."""
    from upgrader.fixers import add_used_helpers
    return add_used_helpers(up, module, {NAME: SOURCE})
