"""PU106 distributed-batch-reader: ``fluid.contrib.reader.distributed_batch_reader`` becomes
a small function fix adds to the module, 1.8.5's reader decorator as it was.

What it does
    ``fluid.contrib.reader.distributed_batch_reader(batch_reader)`` (also
    ``fluid.contrib.distributed_batch_reader``) becomes
    ``_fluid_distributed_batch_reader(batch_reader)``, and ``fix`` adds the function once,
    after the module's imports. Like 1.8.5's, it reads ``PADDLE_TRAINERS_NUM`` and
    ``PADDLE_TRAINER_ID`` when it is called and returns a batch reader giving trainer
    ``PADDLE_TRAINER_ID`` one batch of every ``PADDLE_TRAINERS_NUM`` (at its offset),
    dropping a last group of fewer batches; a single trainer gets every batch.

Why is this bad?
    ``paddle.fluid`` is gone and Paddle 3 has no reader decorator that splits batches
    between trainers: its counterpart is ``paddle.io.DistributedBatchSampler`` on a
    ``paddle.io.Dataset``, a different data pipeline. The models/dygraph training scripts
    wrap their ``paddle.batch`` reader with it when data parallel, and fail on import
    otherwise.

Example
    ``train_reader = fluid.contrib.reader.distributed_batch_reader(train_reader)`` →
    ``train_reader = _fluid_distributed_batch_reader(train_reader)``.

Fix safety
    Safe: 1.8.5's code, plain Python over the batch reader (the rule's example checks one
    and two trainers against 1.8.5). Manual when the module already uses the function's
    name for something else.
"""
from __future__ import annotations

import libcst as cst

CODE = "PU106"
STRUCTURAL = ("distributed-batch-reader",)
NAME = "_fluid_distributed_batch_reader"
#: what docs/rules.md and explain show instead of the entry's target
HELPERS = {"distributed-batch-reader": f"{NAME} (a function fix adds to the module)"}

SOURCE = f'''def {NAME}(batch_reader):
    """Paddle 1.8's fluid.contrib.reader.distributed_batch_reader: trainer PADDLE_TRAINER_ID
    of PADDLE_TRAINERS_NUM gets one batch of every PADDLE_TRAINERS_NUM (a last group of
    fewer batches is dropped); a single trainer gets every batch."""
    import os
    trainers_num = int(os.environ.get('PADDLE_TRAINERS_NUM', 1))
    trainer_id = int(os.getenv('PADDLE_TRAINER_ID', 0))
    assert trainer_id < trainers_num

    def decorate_for_multi_process():
        if trainers_num > 1:
            print('start data reader (trainers_num: {{}}, trainer_id: {{}})'.format(
                trainers_num, trainer_id))
        train_data, idx = None, 1
        for batch_id, data in enumerate(batch_reader()):
            if trainers_num > 1:
                if idx < trainers_num:
                    if idx == trainer_id + 1:
                        train_data = data
                    idx += 1
                else:
                    if idx == trainer_id + 1:
                        train_data = data
                    assert train_data is not None, 'train data should not be None.'
                    yield train_data
                    train_data, idx = None, 1
            else:
                yield data

    return decorate_for_multi_process
'''


def rewrite_call(up, original: cst.Call, updated: cst.Call, entry):
    from upgrader.fixers import bound_or_report, helper_conflict, use_helper
    if helper_conflict(up, original, entry, NAME, SOURCE) \
            or bound_or_report(up, original, updated, entry) is None:
        return updated
    use_helper(up, original, entry, NAME, "a function fix adds to the module: 1.8.5's reader "
               "decorator")
    return updated.with_changes(func=cst.Name(NAME))


def finish_module(up, module: cst.Module) -> cst.Module:
    """Add the function the rewrites call after the module's docstring and imports."""
    from upgrader.fixers import add_used_helpers
    return add_used_helpers(up, module, {NAME: SOURCE})
