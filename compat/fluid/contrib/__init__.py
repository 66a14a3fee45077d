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


@legacy("paddle.fluid.contrib.ctr_metric_bundle", "paddle.fluid.contrib.layers.ctr_metric_bundle",
        "paddle.fluid.contrib.layers.metric_op.ctr_metric_bundle",
        replacement="sums kept in persistable variables")
def ctr_metric_bundle(input, label):
    """1.8's six running sums (sqrerr, abserr, prob, q, pos_num, ins_num), persistable in
    a static program: the function ``fix`` adds for this call."""
    from compat.fluid.layers.metric_op import added_function
    return added_function("_fluid_ctr_metric_bundle")(input, label)


_DTYPE_SIZE = {"float16": 2, "bfloat16": 2, "float32": 4, "float64": 8, "int16": 2, "int32": 4,
               "int64": 8, "bool": 1, "uint8": 1, "int8": 1}
# values 1.8's ProgramDesc did not hold as operator outputs: parameters and data come from
# the startup program / the feed, integer-array attributes are operands only today
_NOT_OUTPUTS = ("builtin.parameter", "pd_op.data", "pd_op.full_int_array", "builtin.combine",
                "builtin.split", "builtin.slice")


@legacy("paddle.fluid.contrib.memory_usage", "paddle.fluid.contrib.memory_usage_calc.memory_usage",
        replacement="paddle.device.cuda.max_memory_allocated() after a step")
def memory_usage(program, batch_size):
    """1.8's estimate: the bytes of every tensor an operator of the global block outputs,
    a negative dimension counted as ``batch_size``, in B / KB / MB, returned as
    ``(total * 1.05, total * 1.1, unit)``. Summed over today's (PIR) program, whose
    operators are not 1.8's: an estimate of the same kind, not 1.8's number."""
    import paddle
    if batch_size <= 0:
        raise ValueError("The batch size need to be positive.")
    total = 0.0
    seen = set()
    for op in program.global_block().ops:
        if op.name() in _NOT_OUTPUTS:
            continue
        for value in op.results():
            if value.id in seen or not value.is_dense_tensor_type():
                continue
            seen.add(value.id)
            count, negative = 1, 0
            for d in value.shape:
                if d < 0:
                    negative += 1
                    if negative > 1:
                        raise ValueError("Var %s has more than one negative dim." % value)
                    count *= batch_size * (-d)
                else:
                    count *= d
            total += count * _DTYPE_SIZE.get(str(value.dtype).replace("paddle.", ""), 4)
    unit = "B"
    if total > 1024:
        total, unit = total / 1024, "KB"
        if total > 1024:
            total, unit = total / 1024, "MB"
    del paddle
    return total * 1.05, total * 1.1, unit


_lazy.attach(globals())
