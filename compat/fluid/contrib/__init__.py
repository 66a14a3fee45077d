"""``paddle.fluid.contrib`` (1.8)."""
import os

from compat import _lazy
from compat._runtime import legacy
from compat.fluid.contrib import mixed_precision  # noqa: F401


@legacy("paddle.fluid.contrib.distributed_batch_reader",
        "paddle.fluid.contrib.reader.distributed_batch_reader",
        "paddle.fluid.contrib.reader.distributed_reader.distributed_batch_reader",
        replacement="paddle.io.DistributedBatchSampler, or keep every nranks-th batch")
def distributed_batch_reader(batch_reader):
    """1.8's reader decorator: with PADDLE_TRAINERS_NUM = n > 1 trainer PADDLE_TRAINER_ID = k
    gets batch k of every complete group of n batches (a last group of fewer than n
    batches is dropped); one trainer gets every batch."""
    trainers_num = int(os.environ.get("PADDLE_TRAINERS_NUM", 1))
    trainer_id = int(os.getenv("PADDLE_TRAINER_ID", 0))
    assert trainer_id < trainers_num

    def decorate_for_multi_process():
        if trainers_num > 1:
            print("start data reader (trainers_num: {}, trainer_id: {})".format(
                trainers_num, trainer_id))
        train_data, idx = None, 1
        for data in batch_reader():
            if trainers_num > 1:
                if idx == trainer_id + 1:
                    train_data = data
                if idx < trainers_num:
                    idx += 1
                else:
                    yield train_data
                    train_data, idx = None, 1
            else:
                yield data
    return decorate_for_multi_process


_lazy.attach(globals())
