"""PU101 formula-helpers: 1.8 ops that 3.x dropped but that are a short formula of today's
ops (``rank_loss``, ``soft_relu``, ``fsp_matrix``, ``bpr_loss``), or whose today's
counterpart computes something else (``cos_sim``), become small functions fix adds to the
module.

What it does
    ``fluid.layers.rank_loss(label, left, right)`` becomes
    ``_fluid_rank_loss(label, left, right)``, and likewise ``soft_relu`` →
    ``_fluid_soft_relu``, ``fsp_matrix`` → ``_fluid_fsp_matrix``, ``bpr_loss`` →
    ``_fluid_bpr_loss``: the same arguments (1.8's signatures), the function added once
    after the module's imports. Each computes 1.8's formula with ``paddle`` ops, so it runs
    in dynamic mode and in static (PIR) programs, and autograd gives 1.8's gradients:

    - ``rank_loss``: ``log(1 + exp(left - right)) - label * (left - right)``;
    - ``soft_relu``: ``log(1 + exp(clip(x, -threshold, threshold)))``, with 1.8's
      gradient ``1 - exp(-out)`` where ``out < threshold``, else 0 (not ``clip``'s, which
      is 0 below ``-threshold`` as well): the value is ``out`` and the gradient flows
      through ``x * g - (x * g).detach()``, which is 0;
    - ``fsp_matrix``: ``x`` [N, C1, H, W] and ``y`` [N, C2, H, W] flattened to
      [N, C, H*W], ``x @ y^T / (H * W)``, shape [N, C1, C2];
    - ``bpr_loss``: per row (of the last axis: 1.8 flattened the leading ones), ``-sum
      over j != label of log(sigmoid(input[label] - input[j])) / (C - 1)``, shape [..., 1];
      a term whose ``exp`` overflows counts as ``log(1e20)``, as 1.8's kernel capped an
      infinite ``exp`` at 1e20 (the gradient is the uncapped one, as 1.8's);
    - ``mul``: ``x`` flattened to 2-D at ``x_num_col_dims``, ``y`` at ``y_num_col_dims``,
      multiplied, shaped ``x.shape[:x_num_col_dims] + y.shape[y_num_col_dims:]``
      (``paddle.matmul`` treats a ``y`` of rank > 2 as a batch of matrices);
    - ``cos_sim``: inputs flattened to [N, -1] (a one-row Y compared with every row of X),
      ``sum(x * y) / (|x| * |y|)`` with squared norms floored at 1e-8, shape [N, 1]
      (``paddle.nn.functional.cosine_similarity`` works along one axis and guards with
      ``eps`` differently).

Why is this bad?
    The four ops are gone from Paddle 3 (no ``paddle`` API computes them), so the call
    fails with AttributeError once ``fluid`` is gone.

Example
    ``loss = fluid.layers.rank_loss(label, left, right)`` →
    ``loss = _fluid_rank_loss(label, left, right)``.

Fix safety
    Safe: values, shapes, dtypes and the gradients of every input agree with 1.8.5 in both
    modes (the rules' examples; ``soft_relu`` with inputs beyond both thresholds). Manual
    when the module already uses the function's name for something else.
"""
from __future__ import annotations

import libcst as cst

CODE = "PU101"
STRUCTURAL = ("formula-helpers",)
NAMES = {"paddle.fluid.layers.rank_loss": "_fluid_rank_loss",
         "paddle.fluid.layers.soft_relu": "_fluid_soft_relu",
         "paddle.fluid.layers.fsp_matrix": "_fluid_fsp_matrix",
         "paddle.fluid.layers.bpr_loss": "_fluid_bpr_loss",
         "paddle.fluid.layers.cos_sim": "_fluid_cos_sim",
         "paddle.fluid.layers.mul": "_fluid_mul"}
#: what docs/rules.md and explain show instead of the entry's target
HELPERS = {"formula-helpers": "_fluid_rank_loss / _fluid_soft_relu / _fluid_fsp_matrix / "
                              "_fluid_bpr_loss / _fluid_cos_sim / _fluid_mul (functions fix adds to the "
                              "module: 1.8's formula with paddle ops)"}

#: what explain and docs/rules.md show for each entry
HELPER_OF = {name: f"{fn} (a function fix adds to the module: 1.8's formula with paddle ops)"
             for name, fn in NAMES.items()}

SOURCES = {
    "_fluid_mul": '''def _fluid_mul(x, y, x_num_col_dims=1, y_num_col_dims=1, name=None):
    """Paddle 1.8's fluid.layers.mul: x flattened to 2-D at x_num_col_dims, y at
    y_num_col_dims, multiplied; the result has the shape x.shape[:x_num_col_dims] +
    y.shape[y_num_col_dims:]."""
    import paddle
    y_shape = list(y.shape)
    rows = cols = 1
    for d in y_shape[:y_num_col_dims]:
        rows *= d
    for d in y_shape[y_num_col_dims:]:
        cols *= d
    y2 = y if len(y_shape) == 2 and y_num_col_dims == 1 else paddle.reshape(y, [rows, cols])
    rank = len(x.shape)
    if rank > x_num_col_dims + 1:
        x = paddle.flatten(x, start_axis=x_num_col_dims)
    elif rank < x_num_col_dims + 1:
        x = paddle.unsqueeze(x, list(range(rank, x_num_col_dims + 1)))
    out = paddle.matmul(x, y2)
    tail = y_shape[y_num_col_dims:]
    if len(tail) != 1:
        out = paddle.reshape(out, [0] * x_num_col_dims + tail)
    return out
''',
    "_fluid_cos_sim": '''def _fluid_cos_sim(X, Y):
    """Paddle 1.8's fluid.layers.cos_sim: X and Y flattened to [N, -1] (Y may have one row,
    compared with every row of X), sum(x * y) / (|x| * |y|) per row, shape [N, 1]; squared
    norms below 1e-8 count as 1e-8, as 1.8's kernel did (a zero vector gives 0)."""
    import paddle
    if len(X.shape) != len(Y.shape):
        raise ValueError('cos_sim: ranks of X (%d) and Y (%d) must be equal'
                         % (len(X.shape), len(Y.shape)))
    x = paddle.reshape(X, [0, -1]) if len(X.shape) != 2 else X
    y = paddle.reshape(Y, [0, -1]) if len(Y.shape) != 2 else Y
    dot = paddle.sum(x * y, axis=1, keepdim=True)
    x_norm = paddle.sqrt(paddle.clip(paddle.sum(x * x, axis=1, keepdim=True), min=1e-8))
    y_norm = paddle.sqrt(paddle.clip(paddle.sum(y * y, axis=1, keepdim=True), min=1e-8))
    return dot / (x_norm * y_norm)
''',
    "_fluid_rank_loss": '''def _fluid_rank_loss(label, left, right, name=None):
    """Paddle 1.8's fluid.layers.rank_loss: log(1 + exp(left - right)) - label * (left -
    right), elementwise (RankNet's loss; gone from Paddle 3)."""
    import paddle
    diff = left - right
    return paddle.log(1 + paddle.exp(diff)) - label * diff
''',
    "_fluid_soft_relu": '''def _fluid_soft_relu(x, threshold=40.0, name=None):
    """Paddle 1.8's fluid.layers.soft_relu: log(1 + exp(clip(x, -threshold, threshold)))
    with 1.8's gradient, 1 - exp(-out) where out < threshold and 0 elsewhere (clip's
    would be 0 below -threshold too; gone from Paddle 3)."""
    import paddle
    out = paddle.log(1 + paddle.exp(paddle.clip(x, -threshold, threshold)))
    grad = ((1 - paddle.exp(-out)) * paddle.cast(out < threshold, x.dtype)).detach()
    # the value of x * grad - (x * grad).detach() is 0; its gradient to x is grad
    return out.detach() + (x * grad - (x * grad).detach())
''',
    "_fluid_fsp_matrix": '''def _fluid_fsp_matrix(x, y):
    """Paddle 1.8's fluid.layers.fsp_matrix: the flow-of-solution-procedure matrix of the
    feature maps x [N, C1, H, W] and y [N, C2, H, W], x @ y^T / (H * W) over the flattened
    maps, shape [N, C1, C2] (gone from Paddle 3)."""
    import paddle
    a = paddle.reshape(x, [0, x.shape[1], -1])
    b = paddle.reshape(y, [0, y.shape[1], -1])
    area = paddle.cast(paddle.shape(a)[2], x.dtype)
    return paddle.bmm(a, paddle.transpose(b, [0, 2, 1])) / area
''',
    "_fluid_bpr_loss": '''def _fluid_bpr_loss(input, label, name=None):
    """Paddle 1.8's fluid.layers.bpr_loss: per row of input [..., C] (label [..., 1]),
    -sum over j != label of log(sigmoid(input[label] - input[j])) / (C - 1), shape
    [..., 1] (gone from Paddle 3). As 1.8's kernel, a term whose exp overflows (input[j] -
    input[label] above log of the dtype's largest value) counts as log(1e20)."""
    import numpy
    import paddle
    classes = input.shape[-1]
    positive = paddle.take_along_axis(input, label, axis=-1)
    others = 1 - paddle.nn.functional.one_hot(paddle.squeeze(label, -1), classes)
    terms = paddle.nn.functional.log_sigmoid(positive - input)
    limit = float(numpy.log(numpy.finfo('float32' if input.dtype == paddle.float32 else 'float64').max))
    capped = paddle.where(input - positive > limit, paddle.full_like(terms, -numpy.log(1e20)), terms)
    terms = terms + (capped - terms).detach()  # 1.8's gradient ignores the cap
    terms = terms * paddle.cast(others, input.dtype)
    return -paddle.sum(terms, axis=-1, keepdim=True) / (classes - 1)
''',
}


def rewrite_call(up, original: cst.Call, updated: cst.Call, entry):
    from upgrader.fixers import call_added_function
    name = NAMES[entry.name]
    return call_added_function(up, original, updated, entry, name, SOURCES[name],
                               "a function fix adds to the module: 1.8's formula with paddle "
                               "ops")


def finish_module(up, module: cst.Module) -> cst.Module:
    """Add the functions the rewrites call after the module's docstring and imports."""
    from upgrader.fixers import add_used_helpers
    return add_used_helpers(up, module, SOURCES)
