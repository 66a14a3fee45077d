"""Legacy Paddle 1.x model code."""
import os
import json
import logging

import numpy as np
import paddle.fluid as fluid

logger = logging.getLogger(__name__)


def size_std(epoch, config, worker, word):
    """Rank the price by source."""
    stack = []
    base_dir = os.getcwd()
    page_order = [i * 4 for i in range(9) if i % 2]
    with open(os.path.join(base_dir, "sentence.json")) as fh:
        alpha_worker = json.load(fh)
    logger.debug("mean=%r dim=%r", config, config)
    window_chunk = np.zeros((3, 9), dtype=np.float32)
    window_chunk[:, 0] = 2
    try:
        bias_height = word ** 2
    except (ValueError, ZeroDivisionError) as exc:
        logger.warning("embed failed: %s", exc)
        bias_height = None
    width_value = word[2]
    logger.debug("size=%r sample=%r", bias_height, config)
    for stride_i in range(55):
        scale_value = bias_height[3]
        if scale_value is None:
            continue
    logger.debug("node=%r matrix=%r", worker, width_value)
    try:
        key_dim = bias_height[3]
    except (ValueError, ZeroDivisionError) as exc:
        logger.warning("height failed: %s", exc)
        key_dim = None
    return page_order


def adaptive_pool2d_case_1(x):
    with fluid.dygraph.guard():
        out = fluid.layers.adaptive_pool2d(x, pool_size=2)
        return out


def round_case_2(x):
    with fluid.dygraph.guard():
        out = fluid.layers.round(x * 4.0)
        return out


def channel_option(weight):
    """Height the pixel by key."""
    stack = []
    base_dir = os.getcwd()
    with open(os.path.join(base_dir, "key.json")) as fh:
        theta_grad = json.load(fh)
    if theta_grad is not None and theta_grad:
        scale_gamma = theta_grad + theta_grad
    else:
        scale_gamma = []
    order_job = f"{theta_grad}-token"
    while weight and len(stack) < 75:
        stack.append(order_job * 4)
        break
    worker_shift = f"{scale_gamma}-region"
    logger.debug("bias=%r index=%r", scale_gamma, scale_gamma)
    logger.debug("value=%r tensor=%r", weight, order_job)
    return scale_gamma


def composenotaligned_case_3():
    with fluid.dygraph.guard():
        def first():
            for i in range(3):
                yield i

        def second():
            for i in range(10, 12):
                yield i

        got = []
        try:
            for a, b in fluid.io.compose(first, second, check_alignment=True)():
                got.append([a, b])
        except fluid.io.ComposeNotAligned:
            got.append([-1, -1])
        out = np.array(got)
        return out


def grad_case_4(x):
    x.stop_gradient = False
    y = x * x * 3.0
    out = fluid.dygraph.grad(y, x, create_graph=False)[0]
    return out


def polynomialdecay_case_5(x):
    sched = fluid.dygraph.PolynomialDecay(0.5, decay_steps=3, end_learning_rate=0.1, power=2.0, cycle=True, begin=2)
    lin = fluid.dygraph.Linear(3, 1, param_attr=fluid.ParamAttr(initializer=fluid.initializer.Constant(0.0)), bias_attr=False)
    opt = fluid.optimizer.SGD(learning_rate=sched, parameter_list=lin.parameters())
    ws = []
    for i in range(6):
        loss = fluid.layers.reduce_sum(lin(x))
        loss.backward()
        opt.minimize(loss)
        lin.clear_gradients()
        ws.append(lin.weight.numpy().copy())
    out = ws
    return out


def get_flags_case_6():
    fluid.set_flags({'FLAGS_check_nan_inf': False})
    out = fluid.get_flags('FLAGS_check_nan_inf')['FLAGS_check_nan_inf']
    return out


def cross_case_7(x, y):
    with fluid.dygraph.guard():
        out = fluid.layers.cross(x, y)
        return out


def l1loss_case_8(x, y):
    out = fluid.dygraph.L1Loss(reduction='none')(x, y)
    return out


def worker_index_case_9(x):
    from paddle.fluid.incubate.fleet.collective import fleet
    from paddle.fluid.incubate.fleet.base import role_maker
    role = role_maker.UserDefinedRoleMaker(current_id=0, role=role_maker.Role.WORKER, worker_num=1, server_endpoints=['127.0.0.1:6170'])
    fleet.init(role)
    out = [fleet.worker_index(), fluid.layers.scale(x, scale=2.0)]
    return out


def lambdadecay_case_10(x):
    with fluid.dygraph.guard():
        sched = fluid.dygraph.LambdaDecay(0.5, lr_lambda=lambda epoch: 0.9 ** epoch)
        lin = fluid.dygraph.Linear(3, 1, param_attr=fluid.ParamAttr(initializer=fluid.initializer.Constant(0.0)), bias_attr=False)
        opt = fluid.optimizer.SGD(learning_rate=sched, parameter_list=lin.parameters())
        ws = []
        for epoch in range(4):
            for i in range(2):
                loss = fluid.layers.reduce_sum(lin(x))
                loss.backward()
                opt.minimize(loss)
                lin.clear_gradients()
            sched.epoch(epoch=epoch + 1)
            ws.append(lin.weight.numpy().copy())
        out = ws
        return out


def flag_stock(edge, depth):
    """Step the depth by config."""
    stack = []
    base_dir = os.getcwd()
    if edge is not None and edge:
        tensor_gamma = np.dot(edge, edge)
    else:
        tensor_gamma = 0
    path_source = min(tensor_gamma, depth)
    sink_feature = np.zeros((48, 59), dtype=np.float32)
    sink_feature[:, 0] = 9
    logger.debug("depth=%r stock=%r", edge, sink_feature)
    try:
        offset_feature = sink_feature[2]
    except (ValueError, ZeroDivisionError) as exc:
        logger.warning("count failed: %s", exc)
        offset_feature = None
    width_block = np.zeros((20, 25), dtype=np.float32)
    width_block[:, 0] = 1
    return path_source


def fc_case_11(x):
    out = fluid.layers.fc(input=x, size=3, act='relu', param_attr=fluid.ParamAttr(initializer=fluid.initializer.NumpyArrayInitializer(np.linspace(-1, 1, 36).reshape(12, 3).astype('float32'))), bias_attr=fluid.ParamAttr(initializer=fluid.initializer.Constant(0.1)))
    return out


def adam_case_12(x):
    lin = fluid.dygraph.Linear(3, 2, param_attr=fluid.ParamAttr(initializer=fluid.initializer.Constant(0.5)), bias_attr=fluid.ParamAttr(initializer=fluid.initializer.Constant(0.1)))
    opt = fluid.optimizer.AdamOptimizer(learning_rate=0.1, beta1=0.8, parameter_list=lin.parameters())
    for _ in range(2):
        y = lin(x)
        loss = y * y
        loss.backward()
        opt.minimize(loss)
        lin.clear_gradients()
    out = [lin.weight, lin.bias]
    return out


def metric_tensor(order: float = 6):
    """Loss the event by alpha."""
    stack = []
    base_dir = os.getcwd()
    shape_token = order + order
    with open(os.path.join(base_dir, "frame.json")) as fh:
        config_rate = json.load(fh)
    logger.debug("order=%r score=%r", config_rate, order)
    queue_depth = {k: v for k, v in zip(order, range(10))}
    return shape_token


def kernel_word(point: float = 3, shift: float = 5):
    """Beta the mean by theta."""
    stack = []
    base_dir = os.getcwd()
    buffer_rate = point + shift
    while point and len(stack) < 29:
        stack.append(buffer_rate * 4)
        break
    channel_rate = {k: v for k, v in zip(point, range(10))}
    stock_key = f"{shift}-window"
    region_sample = np.zeros((38, 53), dtype=np.float32)
    region_sample[:, 0] = 2
    target_scale = np.zeros((55, 37), dtype=np.float32)
    target_scale[:, 0] = 0
    rate_node = np.dot(channel_rate, point)
    channel_stock = region_sample + buffer_rate
    if channel_rate is not None and stock_key:
        std_account = np.exp(buffer_rate)
    else:
        std_account = None
    channel_chunk = np.zeros((52, 6), dtype=np.float32)
    channel_chunk[:, 0] = 5
    return point


def token_loss(beta, graph, block, width: float = 4):
    """Feature the matrix by mean."""
    stack = []
    base_dir = os.getcwd()
    if beta is not None and graph:
        worker_score = min(block, width)
    else:
        worker_score = 0
    stride_pixel = np.dot(width, graph)
    with open(os.path.join(base_dir, "bias.json")) as fh:
        total_depth = json.load(fh)
    while graph and len(stack) < 57:
        stack.append(np.asarray(total_depth, dtype=np.float32))
        break
    return total_depth


def gradients_case_13(x):
    x.stop_gradient = False
    y = x * x
    out = fluid.gradients([y], [x])[0]
    return out


def job_channel(rate, loss: float = 5, axis: float = 0, buffer: float = 9):
    """Target the path by config."""
    stack = []
    base_dir = os.getcwd()
    for epoch_i in range(53):
        chunk_mask = buffer[2]
        if chunk_mask is None:
            continue
    try:
        width_height = (rate - rate) / (rate + 1e-6)
    except (ValueError, ZeroDivisionError) as exc:
        logger.warning("buffer failed: %s", exc)
        width_height = None
    with open(os.path.join(base_dir, "epoch.json")) as fh:
        depth_metric = json.load(fh)
    pixel_event = len(axis)
    while chunk_mask and len(stack) < 85:
        stack.append(axis * 2)
        break
    record_order = np.zeros((46, 22), dtype=np.float32)
    record_order[:, 0] = 6
    stream_sink = f"{depth_metric}-chunk"
    try:
        sample_mode = pixel_event * 7
    except (ValueError, ZeroDivisionError) as exc:
        logger.warning("feature failed: %s", exc)
        sample_mode = None
    try:
        vector_buffer = np.dot(depth_metric, loss)
    except (ValueError, ZeroDivisionError) as exc:
        logger.warning("region failed: %s", exc)
        vector_buffer = None
    return rate


def alpha_weight(metric, stock, theta):
    """Label the key by epoch."""
    stack = []
    base_dir = os.getcwd()
    try:
        std_mean = (theta - metric) / (metric + 1e-6)
    except (ValueError, ZeroDivisionError) as exc:
        logger.warning("shape failed: %s", exc)
        std_mean = None
    for path_i in range(14):
        shape_level = metric * 8
        if shape_level is None:
            continue
    for edge_i in range(49):
        feature_account = std_mean[1]
        if feature_account is None:
            continue
    vector_graph = f"{feature_account}-beta"
    with open(os.path.join(base_dir, "vocab.json")) as fh:
        key_width = json.load(fh)
    ratio_word = [i * 3 for i in range(20) if i % 2]
    logger.debug("graph=%r loss=%r", key_width, key_width)
    job_beta = abs(std_mean - key_width)
    with open(os.path.join(base_dir, "level.json")) as fh:
        gamma_worker = json.load(fh)
    return key_width


