"""PU101 tensor-array-to-tensor: ``fluid.layers.tensor_array_to_tensor`` becomes
``_fluid_tensor_array_to_tensor``, a function fix adds to the module that returns 1.8's
``(tensor, sizes)`` pair with public ``paddle`` ops.

What it does
    ``out, index = fluid.layers.tensor_array_to_tensor(array, axis=1)`` becomes
    ``out, index = _fluid_tensor_array_to_tensor(array, axis=1)``, the same arguments
    (1.8's signature ``(input, axis=1, name=None, use_stack=False)``), the function added
    once after the module's imports. It returns what 1.8 returned:

    - in a static (PIR) program, on the array of ``paddle.tensor.create_array`` /
      ``array_write`` (also one written in a ``paddle.static.nn.while_loop`` body): the
      tensors concatenated along ``axis`` (read one by one with ``array_read`` in a
      ``while_loop``, so they may differ in size along ``axis``, as 1.8 allowed), or
      stacked with ``use_stack=True`` (``paddle.stack`` of the array); and the int32 1-D
      sizes of the tensors along ``axis`` (0 for a stacking axis past a tensor's last
      dimension, as 1.8.5 gave);
    - in dygraph, where a tensor array is a Python list (1.8's and
      ``paddle.tensor.create_array``'s): ``paddle.concat`` / ``paddle.stack`` of the list
      and the sizes as an int64 tensor, as 1.8's dygraph branch made them.

Why is this bad?
    Paddle 3 exports no ``tensor_array_to_tensor``: ``paddle.concat`` / ``paddle.stack``
    of a tensor array give the tensor without the sizes, and in a static program they
    require tensors of one shape (1.8 concatenated tensors of different sizes along
    ``axis``). 3.3.1 keeps a ``paddle.tensor.manipulation.tensor_array_to_tensor`` that
    ``paddle.tensor`` does not export (not public), with the same one-shape limit.

Example
    ``decoded, _ = fluid.layers.tensor_array_to_tensor(ids_array, axis=1)`` →
    ``decoded, _ = _fluid_tensor_array_to_tensor(ids_array, axis=1)``.

Fix safety
    Safe: values, shapes and dtypes of both results, and the gradients of the tensors
    written into the array, agree with 1.8.5 in both modes (the rule's example; program
    static_nlp_greedy_decode for an array written in a while_loop). 1.8.5's static
    backward gave wrong gradients when two of its ops were on the path (checked); the
    function's are the exact ones, as 1.8.5's dygraph gave. Through an array written in a
    while_loop body neither computes gradients (1.8.5 raised, 3.3.1 gives zeros). With a
    negative ``axis`` 1.8.5's static op returned unset sizes (and aborted when stacking);
    the function gives the sizes along the axis counted from the end, as 1.8's dygraph
    did.
"""
from __future__ import annotations

import libcst as cst

CODE = "PU101"
STRUCTURAL = ("tensor-array-to-tensor",)
NAME = "_fluid_tensor_array_to_tensor"
WHAT = ("a function fix adds to the module: 1.8's (tensor, sizes along axis) from a tensor "
        "array, with public paddle ops")
HELPERS = {"tensor-array-to-tensor": f"{NAME} ({WHAT})"}

SOURCES = {
    NAME: '''def _fluid_tensor_array_to_tensor(input, axis=1, name=None, use_stack=False):
    """Paddle 1.8's fluid.layers.tensor_array_to_tensor: the tensors of a tensor array
    concatenated along axis (stacked with use_stack=True) and their sizes along axis.
    In a static program the sizes are int32 (0 for a stacking axis past a tensor's last
    dimension) and the tensors may differ in size along axis (they are concatenated one
    by one); in dygraph the array is a list and the sizes are int64, as in 1.8."""
    import numpy
    import paddle
    if isinstance(input, list):
        out = paddle.stack(input, axis) if use_stack else paddle.concat(input, axis)
        return out, paddle.to_tensor(numpy.array([int(t.shape[axis]) for t in input]))
    zero = paddle.zeros([1], 'int64')
    count = paddle.tensor.array_length(input)
    first = paddle.tensor.array_read(input, zero)
    rank = len(first.shape)
    dim = axis + rank if axis < 0 else axis

    def size(t):
        if not 0 <= dim < rank:
            return paddle.zeros([1], 'int32')
        return paddle.cast(paddle.shape(t)[dim:dim + 1], 'int32')

    if use_stack:  # 1.8 stacked tensors of one shape
        out = paddle.stack(input, axis + rank + 1 if axis < 0 else axis)
        return out, paddle.expand(size(first), paddle.cast(count, 'int32'))
    sizes = paddle.tensor.create_array('int32')
    paddle.tensor.array_write(size(first), zero, array=sizes)

    def more(i, out):
        return paddle.less_than(i, count)

    def step(i, out):
        t = paddle.tensor.array_read(input, i)
        paddle.tensor.array_write(size(t), i, array=sizes)
        return [i + 1, paddle.concat([out, t], axis)]

    out = paddle.static.nn.while_loop(more, step, [zero + 1, first])[1]
    return out, paddle.concat(sizes, axis=0)
''',
}


def rewrite_call(up, original: cst.Call, updated: cst.Call, entry):
    from upgrader.fixers import call_added_function
    return call_added_function(up, original, updated, entry, NAME, SOURCES[NAME], WHAT)


def finish_module(up, module: cst.Module) -> cst.Module:
    from upgrader.fixers import add_used_helpers
    return add_used_helpers(up, module, SOURCES)
