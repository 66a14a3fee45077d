"""PU101 mean-iou: ``fluid.layers.mean_iou`` becomes ``_fluid_mean_iou``, a function fix
adds to the module that counts 1.8's per-class hits and misses from a confusion matrix
(``paddle.bincount``), so that it runs in dynamic mode and inside static (PIR) programs.

What it does
    ``miou, wrong, correct = fluid.layers.mean_iou(pred, label, num_classes)`` becomes
    ``miou, wrong, correct = _fluid_mean_iou(pred, label, num_classes)``: the same
    arguments (1.8's signature), the function added once after the module's imports.
    Both tensors are flattened (any shape: [N, 1], [N, H, W], [N, H, W, 1]; as 1.8's
    kernel, the first ``input.numel()`` labels are used when ``label`` has more elements)
    and the confusion matrix ``paddle.bincount(label * (C + 1) + pred)`` counted with one
    spare class ``C`` that takes the ids outside ``[0, num_classes)``. For each class
    ``c < num_classes``: ``correct[c]`` is the diagonal (``pred == label == c``),
    ``wrong[c]`` the row sum plus the column sum minus twice the diagonal (a miss counts
    for the true and for the predicted class); the mean IoU is
    ``sum(correct / (correct + wrong)) / (number of classes with correct + wrong > 0)``
    (a class that occurs in neither tensor is left out; none at all gives nan, as 1.8).
    Returns ``(mean_iou float32 [1], out_wrong int32 [num_classes], out_correct int32
    [num_classes])``, as 1.8's ``mean_iou`` op did, for int32 or int64 inputs.

Why is this bad?
    The ``mean_iou`` op is gone from Paddle 3 (``paddle.metric.mean_iou`` never shipped),
    so the call fails with AttributeError once ``fluid`` is gone.

Example
    ``miou, wrong, correct = fluid.layers.mean_iou(pred, label, 21)`` →
    ``miou, wrong, correct = _fluid_mean_iou(pred, label, 21)``.

Fix safety
    Safe: values, shapes and dtypes agree with 1.8.5 in both modes (the rule's example:
    int32 and int64 inputs, [N, 1], [N, H, W] and [N, H, W, 1] shapes, classes absent
    from both tensors, ids at or above ``num_classes`` such as segmentation's ignore label
    255). 1.8.5's kernel did not check the ids: one outside ``[0, num_classes)`` was counted
    into memory beyond its counters (undefined behaviour; the counters of the valid classes
    came out as if the pixel's out-of-range side were not there, observed for ids
    ``num_classes``..255 and -1); the function counts it nowhere, which gives those
    counters. Input and label of different integer dtypes (1.8.5 raised at run time) or a
    non-integer dtype raise TypeError. Manual when the module already uses the name.
"""
from __future__ import annotations

import libcst as cst

CODE = "PU101"
STRUCTURAL = ("mean-iou",)
NAMES = {"paddle.fluid.layers.mean_iou": "_fluid_mean_iou"}
WHAT = "a function fix adds to the module: 1.8's per-class counts from a confusion matrix"
#: what docs/rules.md and explain show instead of the entry's target
HELPERS = {"mean-iou": f"_fluid_mean_iou ({WHAT})"}
HELPER_OF = {name: f"{fn} ({WHAT})" for name, fn in NAMES.items()}

SOURCES = {
    "_fluid_mean_iou": '''def _fluid_mean_iou(input, label, num_classes):
    """Paddle 1.8's fluid.layers.mean_iou: from the confusion matrix of the flattened
    input (predicted class ids) and label (int32 or int64, the same dtype), per class c <
    num_classes correct[c] = #(input == label == c) and wrong[c] = #(label == c, input !=
    c) + #(input == c, label != c); mean IoU = sum(correct / (correct + wrong)) over the
    classes with correct + wrong > 0, divided by their number. Ids outside [0,
    num_classes) count for no class. Returns (mean_iou float32 [1], out_wrong int32
    [num_classes], out_correct int32 [num_classes])."""
    import paddle
    if input.dtype not in (paddle.int32, paddle.int64) or label.dtype != input.dtype:
        raise TypeError('mean_iou: input and label must both be int32 or both int64, got '
                        '%s and %s' % (input.dtype, label.dtype))
    classes = int(num_classes)
    pred = paddle.reshape(input, [-1]).astype('int64')
    lab = paddle.reshape(label, [-1]).astype('int64')
    if pred.shape[0] != lab.shape[0] or pred.shape[0] < 0:
        # 1.8's kernel read the first input.numel() labels
        if paddle.in_dynamic_mode():
            lab = lab[:pred.shape[0]]
        else:
            lab = paddle.slice(lab, [0], [0], paddle.shape(pred))
    spare = paddle.full_like(pred, classes)
    pred = paddle.where((pred >= 0) & (pred < classes), pred, spare)
    lab = paddle.where((lab >= 0) & (lab < classes), lab, spare)
    matrix = paddle.reshape(paddle.bincount(lab * (classes + 1) + pred,
                                            minlength=(classes + 1) * (classes + 1)),
                            [classes + 1, classes + 1])
    correct = paddle.diagonal(matrix)[:classes]
    total = (paddle.sum(matrix, axis=1) + paddle.sum(matrix, axis=0))[:classes] - correct
    iou = correct.astype('float32') / paddle.clip(total.astype('float32'), min=1.0)
    present = paddle.sum((total > 0).astype('float32'))
    miou = paddle.reshape(paddle.sum(iou) / present, [1])
    return miou, (total - correct).astype('int32'), correct.astype('int32')
''',
}


def rewrite_call(up, original: cst.Call, updated: cst.Call, entry):
    from upgrader.fixers import call_added_function
    name = NAMES[entry.name]
    return call_added_function(up, original, updated, entry, name, SOURCES[name], WHAT)


def finish_module(up, module: cst.Module) -> cst.Module:
    """Add the function the rewrites call after the module's docstring and imports."""
    from upgrader.fixers import add_used_helpers
    return add_used_helpers(up, module, SOURCES)
