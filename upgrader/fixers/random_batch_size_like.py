"""PU101 random-batch-size-like: ``fluid.layers.uniform_random_batch_size_like`` /
``gaussian_random_batch_size_like`` become functions fix adds to the module.

What it does
    ``fluid.layers.uniform_random_batch_size_like(input, shape, ...)`` becomes
    ``_fluid_uniform_random_batch_size_like(...)`` and
    ``gaussian_random_batch_size_like`` ``_fluid_gaussian_random_batch_size_like``, with
    the same arguments (1.8.5's signatures). Like 1.8's ops they take ``shape`` with
    ``shape[output_dim_idx]`` replaced by ``input``'s dimension ``input_dim_idx``, read
    when the program runs (``paddle.shape``), then draw ``paddle.uniform(shape, dtype, min,
    max, seed)`` / ``paddle.normal(mean, std, shape)`` (cast to ``dtype``).

Why is this bad?
    Paddle 3 has no batch-size-like random ops: the call fails once ``fluid`` is gone.

Example
    ``mask = fluid.layers.uniform_random_batch_size_like(x, [-1, 1, 1, 1], min=0.0,
    max=1.0)`` → ``mask = _fluid_uniform_random_batch_size_like(x, [-1, 1, 1, 1],
    min=0.0, max=1.0)``.

Fix safety
    Safe: shapes, dtypes and ranges agree with 1.8.5 in both modes (the rules' examples
    floor draws from a narrow range, so the values are deterministic); the random values
    themselves differ, as for every random op (other generators). A nonzero ``seed`` of
    the gaussian op is not used (``paddle.normal`` has none: seed with ``paddle.seed``).
"""
from __future__ import annotations

import libcst as cst

CODE = "PU101"
STRUCTURAL = ("random-batch-size-like",)
NAMES = {"paddle.fluid.layers.uniform_random_batch_size_like": "_fluid_uniform_random_batch_size_like",
         "paddle.fluid.layers.gaussian_random_batch_size_like": "_fluid_gaussian_random_batch_size_like"}
WHAT = "a function fix adds to the module: 1.8's batch size from the input, then today's draw"
HELPER_OF = {name: f"{fn} ({WHAT})" for name, fn in NAMES.items()}
_SHAPE = '''    import paddle
    shape = list(shape)
    shape[output_dim_idx] = paddle.shape(input)[input_dim_idx]
'''
SOURCES = {
    "_fluid_uniform_random_batch_size_like": '''def _fluid_uniform_random_batch_size_like(input, shape, dtype='float32', input_dim_idx=0,
                                          output_dim_idx=0, min=-1.0, max=1.0, seed=0):
    """Paddle 1.8's fluid.layers.uniform_random_batch_size_like: uniform values in [min, max)
    of shape with shape[output_dim_idx] = input's dimension input_dim_idx."""
''' + _SHAPE + '''    return paddle.uniform(shape, dtype=dtype, min=min, max=max, seed=seed)
''',
    "_fluid_gaussian_random_batch_size_like": '''def _fluid_gaussian_random_batch_size_like(input, shape, input_dim_idx=0, output_dim_idx=0,
                                           mean=0.0, std=1.0, seed=0, dtype='float32'):
    """Paddle 1.8's fluid.layers.gaussian_random_batch_size_like: normal values (mean, std)
    of shape with shape[output_dim_idx] = input's dimension input_dim_idx (seed unused:
    paddle.seed seeds today's generator)."""
''' + _SHAPE + '''    return paddle.cast(paddle.normal(mean, std, shape), dtype)
''',
}


def rewrite_call(up, original: cst.Call, updated: cst.Call, entry):
    from upgrader.fixers import call_added_function
    name = NAMES[entry.name]
    return call_added_function(up, original, updated, entry, name, SOURCES[name], WHAT)


def finish_module(up, module: cst.Module) -> cst.Module:
    from upgrader.fixers import add_used_helpers
    return add_used_helpers(up, module, SOURCES)
