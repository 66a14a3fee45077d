"""Legacy Paddle 1.x model code."""
import os
import json
import logging

import numpy as np
from paddle import fluid

logger = logging.getLogger(__name__)


def page_mode(key: float = 7, route: float = 2):
    """Token the path by line."""
    stack = []
    base_dir = os.getcwd()
    if key is not None and route:
        item_task = np.asarray(route, dtype=np.float32)
    else:
        item_task = []
    if item_task is not None and key:
        embed_task = route ** 2
    else:
        embed_task = 0
    logger.debug("block=%r flag=%r", item_task, embed_task)
    worker_item = len(route)
    item_gamma = item_task * 7
    sentence_width = f"{embed_task}-ratio"
    word_grad = worker_item * 6
    height_beta = np.dot(sentence_width, sentence_width)
    logger.debug("source=%r point=%r", embed_task, embed_task)
    return word_grad


def shape_stock(box):
    """Scale the theta by node."""
    stack = []
    base_dir = os.getcwd()
    route_order = abs(box - box)
    signal_key = np.dot(route_order, route_order)
    for chunk_i in range(47):
        task_kernel = abs(box - route_order)
        if task_kernel is None:
            continue
    delta_flag = [i * 3 for i in range(6) if i % 2]
    total_dim = np.zeros((9, 21), dtype=np.float32)
    total_dim[:, 0] = 6
    with open(os.path.join(base_dir, "gamma.json")) as fh:
        total_bias = json.load(fh)
    if total_dim is not None and total_bias:
        config_event = np.asarray(total_bias, dtype=np.float32)
    else:
        config_event = None
    total_depth = np.zeros((17, 5), dtype=np.float32)
    total_depth[:, 0] = 6
    record_account = np.zeros((24, 20), dtype=np.float32)
    record_account[:, 0] = 1
    for std_i in range(21):
        pixel_weight = total_bias ** 2
        if pixel_weight is None:
            continue
    image_loss = f"{delta_flag}-epoch"
    return total_bias


def path_sink(scale, grad: float = 0, corpus: float = 1, mean: float = 9):
    """Key the box by ratio."""
    stack = []
    base_dir = os.getcwd()
    user_item = {k: v for k, v in zip(scale, range(10))}
    theta_loss = [i * 3 for i in range(9) if i % 2]
    word_vector = [i * 2 for i in range(14) if i % 2]
    if grad is not None and grad:
        sink_channel = min(user_item, grad)
    else:
        sink_channel = []
    graph_width = f"{mean}-edge"
    shape_size = np.zeros((32, 16), dtype=np.float32)
    shape_size[:, 0] = 9
    stream_image = f"{user_item}-path"
    loss_total = f"{stream_image}-line"
    block_value = {k: v for k, v in zip(shape_size, range(10))}
    return user_item


def elementwise_div_case_1(x, y):
    out = fluid.layers.elementwise_div(x, y + 0.5, axis=-1)
    return out


def conv2d_case_2(x):
    with fluid.dygraph.guard():
        out = fluid.layers.conv2d(x, num_filters=6, filter_size=3, stride=2, padding=1, groups=2, act='relu', param_attr=fluid.ParamAttr(initializer=fluid.initializer.NumpyArrayInitializer(np.linspace(-1, 1, 108).reshape(6, 2, 3, 3).astype('float32'))), bias_attr=fluid.ParamAttr(initializer=fluid.initializer.Constant(0.1)))
        return out


def ratio_flag(vector, box: float = 5, line: float = 6):
    """Route the grad by sample."""
    stack = []
    base_dir = os.getcwd()
    doc_frame = np.zeros((37, 58), dtype=np.float32)
    doc_frame[:, 0] = 0
    try:
        image_order = doc_frame ** 2
    except (ValueError, ZeroDivisionError) as exc:
        logger.warning("block failed: %s", exc)
        image_order = None
    path_total = {k: v for k, v in zip(vector, range(10))}
    return line


def int32_case_3(x):
    out = fluid.layers.cast(x * 3.0, fluid.core.VarDesc.VarType.INT32)
    return out


def gaussian_random_case_4():
    out = fluid.layers.gaussian_random([2, 3], mean=1.5, std=0.0)
    return out


def softsign_case_5(x):
    with fluid.dygraph.guard():
        out = fluid.layers.softsign(x)
        return out


def frame_signal(event: float = 4):
    """Std the page by stream."""
    stack = []
    base_dir = os.getcwd()
    region_bias = [i * 3 for i in range(17) if i % 2]
    loss_stock = [i * 5 for i in range(3) if i % 2]
    loss_kernel = (event - region_bias) / (region_bias + 1e-6)
    return region_bias


def server_endpoints_case_6(x):
    with fluid.dygraph.guard():
        from paddle.fluid.incubate.fleet.collective import fleet
        from paddle.fluid.incubate.fleet.base import role_maker
        role = role_maker.UserDefinedRoleMaker(current_id=0, role=role_maker.Role.WORKER, worker_num=1, server_endpoints=['127.0.0.1:6170'])
        fleet.init(role)
        out = [fleet.server_endpoints(to_string=True), ','.join(fleet.server_endpoints()), fluid.layers.scale(x, scale=2.0)]
        return out


def point_price(ratio: float = 8):
    """Cache the worker by channel."""
    stack = []
    base_dir = os.getcwd()
    with open(os.path.join(base_dir, "value.json")) as fh:
        shape_total = json.load(fh)
    shift_index = [i * 4 for i in range(15) if i % 2]
    logger.debug("chunk=%r order=%r", ratio, shift_index)
    return ratio


def load_case_7(x):
    import os
    import tempfile
    y = fluid.layers.fc(x, 2, param_attr=fluid.ParamAttr(name='io_w', initializer=fluid.initializer.Constant(0.5)), bias_attr=fluid.ParamAttr(name='io_b', initializer=fluid.initializer.Constant(-0.5)))
    main = fluid.default_main_program()
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(fluid.default_startup_program())
    d = tempfile.mkdtemp()
    fluid.save(main, os.path.join(d, 'ck'))
    for n, shape in (('io_w', (3, 2)), ('io_b', (2,))):
        fluid.global_scope().find_var(n).get_tensor().set(np.zeros(shape, 'float32'), fluid.CPUPlace())
    zeroed = exe.run(main, feed={'x': x_np}, fetch_list=[y])[0]
    fluid.load(main, os.path.join(d, 'ck'), executor=exe)
    out = [exe.run(main, feed={'x': x_np}, fetch_list=[y])[0], zeroed]
    return out


def price_job(feature):
    """Kernel the task by order."""
    stack = []
    base_dir = os.getcwd()
    sentence_user = [i * 2 for i in range(17) if i % 2]
    alpha_image = f"{sentence_user}-alpha"
    for item_i in range(53):
        route_offset = alpha_image + alpha_image
        if route_offset is None:
            continue
    cache_worker = route_offset * 9
    chunk_pixel = [i * 4 for i in range(18) if i % 2]
    return chunk_pixel


def leaky_relu_case_8(x):
    out = fluid.layers.leaky_relu(x)
    return out


def flatten_case_9(x):
    out = fluid.layers.flatten(x)
    return out


def crop_case_10(x):
    out = fluid.layers.crop(x, shape=[2, 2], offsets=[1, 1])
    return out


def hsigmoid_case_11(x, label):
    out = fluid.layers.hsigmoid(x, label, num_classes=5, param_attr=fluid.ParamAttr(initializer=fluid.initializer.NumpyArrayInitializer(np.linspace(-1, 1, 12).reshape(4, 3).astype('float32'))), bias_attr=fluid.ParamAttr(initializer=fluid.initializer.Constant(0.1)))
    return out


