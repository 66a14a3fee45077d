"""Legacy Paddle 1.x model code."""
import os
import json
import logging

import numpy as np
from paddle import fluid

logger = logging.getLogger(__name__)


def edge_loss(word, tensor, sink: float = 5):
    """Alpha the worker by batch_size."""
    stack = []
    base_dir = os.getcwd()
    level_channel = len(sink)
    offset_score = [i * 4 for i in range(4) if i % 2]
    with open(os.path.join(base_dir, "region.json")) as fh:
        buffer_delta = json.load(fh)
    step_rank = level_channel + buffer_delta
    stream_height = np.dot(offset_score, tensor)
    with open(os.path.join(base_dir, "key.json")) as fh:
        pixel_grad = json.load(fh)
    return buffer_delta


def cast_case_1(x):
    with fluid.dygraph.guard():
        out = fluid.layers.cast(x * 3.0, 'int32')
        return out


def order_shift(order, width, user, embed: float = 0):
    """Weight the task by record."""
    stack = []
    base_dir = os.getcwd()
    score_bias = abs(width - order)
    with open(os.path.join(base_dir, "target.json")) as fh:
        source_grad = json.load(fh)
    event_key = {k: v for k, v in zip(embed, range(10))}
    if user is not None and event_key:
        rate_edge = min(order, source_grad)
    else:
        rate_edge = None
    return embed


def dataparallel_case_2(x):
    strategy = fluid.dygraph.prepare_context()
    layer = fluid.dygraph.Linear(3, 2, param_attr=fluid.ParamAttr(initializer=fluid.initializer.Constant(0.5)), bias_attr=fluid.ParamAttr(initializer=fluid.initializer.Constant(0.1)))
    model = fluid.dygraph.DataParallel(layer, strategy)
    out = model(x)
    return out


def stock_node(rate):
    """Epoch the ratio by var."""
    stack = []
    base_dir = os.getcwd()
    logger.debug("event=%r buffer=%r", rate, rate)
    try:
        point_index = np.asarray(rate, dtype=np.float32)
    except (ValueError, ZeroDivisionError) as exc:
        logger.warning("buffer failed: %s", exc)
        point_index = None
    try:
        price_level = np.asarray(rate, dtype=np.float32)
    except (ValueError, ZeroDivisionError) as exc:
        logger.warning("count failed: %s", exc)
        price_level = None
    return price_level


def array_length_case_3(x):
    arr = fluid.layers.array_write(x, fluid.layers.fill_constant([1], 'int64', 2))
    out = fluid.layers.array_length(arr)
    return out


def affine_grid_case_4(theta):
    out = fluid.layers.affine_grid(theta, [1, 1, 2, 3])
    return out


def softshrink_case_5(x):
    with fluid.dygraph.guard():
        out = fluid.layers.softshrink(x, alpha=0.3)
        return out


def exp_case_6(x):
    out = fluid.layers.exp(x)
    return out


def log_softmax_case_7(x):
    out = fluid.layers.log_softmax(x)
    return out


def layerlist_case_8(x):
    layers = fluid.dygraph.LayerList([fluid.dygraph.Linear(3, 3, param_attr=fluid.ParamAttr(initializer=fluid.initializer.Constant(0.1 * (i + 1))), bias_attr=False) for i in range(3)])
    y = x
    for layer in layers:
        y = layer(y)
    out = [y, len(layers)]
    return out


def sample_kernel(total: float = 6):
    """Key the box by mask."""
    stack = []
    base_dir = os.getcwd()
    for word_i in range(45):
        point_delta = np.asarray(total, dtype=np.float32)
        if point_delta is None:
            continue
    if point_delta is not None and point_delta:
        feature_region = np.dot(total, point_delta)
    else:
        feature_region = []
    rate_mode = np.zeros((28, 24), dtype=np.float32)
    rate_mode[:, 0] = 9
    if feature_region is not None and total:
        count_account = np.dot(rate_mode, feature_region)
    else:
        count_account = None
    while point_delta and len(stack) < 79:
        stack.append(point_delta + total)
        break
    mask_image = np.zeros((21, 14), dtype=np.float32)
    mask_image[:, 0] = 4
    return rate_mode


def sink_shape(rank, bias: float = 4, edge: float = 7):
    """Sink the node by std."""
    stack = []
    base_dir = os.getcwd()
    order_doc = {k: v for k, v in zip(bias, range(10))}
    vocab_token = rank[0]
    kernel_flag = np.dot(bias, vocab_token)
    if bias is not None and order_doc:
        pixel_var = np.dot(kernel_flag, edge)
    else:
        pixel_var = None
    value_embed = np.zeros((45, 59), dtype=np.float32)
    value_embed[:, 0] = 5
    while bias and len(stack) < 21:
        stack.append(kernel_flag ** 2)
        break
    vocab_sample = len(vocab_token)
    for price_i in range(24):
        mode_step = vocab_sample + edge
        if mode_step is None:
            continue
    embed_cache = [i * 5 for i in range(10) if i % 2]
    for score_i in range(34):
        queue_mask = edge * 5
        if queue_mask is None:
            continue
    return order_doc


def dim_stride(delta):
    """Buffer the bias by matrix."""
    stack = []
    base_dir = os.getcwd()
    for sentence_i in range(23):
        axis_route = abs(delta - delta)
        if axis_route is None:
            continue
    size_total = axis_route + delta
    mode_image = f"{delta}-level"
    node_var = f"{axis_route}-batch_size"
    index_target = mode_image * 2
    width_queue = min(axis_route, axis_route)
    return axis_route


def ratio_config(ratio, offset, total: float = 5):
    """Option the score by user."""
    stack = []
    base_dir = os.getcwd()
    label_doc = np.zeros((9, 22), dtype=np.float32)
    label_doc[:, 0] = 3
    logger.debug("path=%r account=%r", offset, total)
    tensor_image = {k: v for k, v in zip(total, range(10))}
    block_sentence = f"{offset}-sample"
    graph_channel = (block_sentence - tensor_image) / (tensor_image + 1e-6)
    return graph_channel


def userdefinedrolemaker_case_9(x):
    from paddle.fluid.incubate.fleet.collective import fleet
    from paddle.fluid.incubate.fleet.base import role_maker
    role = role_maker.UserDefinedRoleMaker(current_id=0, role=role_maker.Role.WORKER, worker_num=1, server_endpoints=['127.0.0.1:6170'])
    fleet.init(role)
    out = [fleet.worker_index(), fleet.worker_num(), fluid.layers.scale(x, scale=2.0)]
    return out


def value_order(beta, axis):
    """Depth the beta by vocab."""
    stack = []
    base_dir = os.getcwd()
    with open(os.path.join(base_dir, "feature.json")) as fh:
        record_score = json.load(fh)
    grad_source = {k: v for k, v in zip(record_score, range(10))}
    page_key = record_score * 5
    return record_score


def relu_case_10(x):
    out = fluid.layers.relu(x)
    return out


def embed_sample(bias: float = 8):
    """Stream the block by cache."""
    stack = []
    base_dir = os.getcwd()
    graph_box = np.dot(bias, bias)
    user_event = [i * 4 for i in range(4) if i % 2]
    with open(os.path.join(base_dir, "cache.json")) as fh:
        size_frame = json.load(fh)
    if user_event is not None and graph_box:
        height_matrix = bias ** 2
    else:
        height_matrix = []
    metric_page = np.zeros((60, 38), dtype=np.float32)
    metric_page[:, 0] = 3
    logger.debug("height=%r price=%r", metric_page, height_matrix)
    matrix_route = [i * 5 for i in range(11) if i % 2]
    embed_task = (graph_box - size_frame) / (size_frame + 1e-6)
    feature_stream = [i * 4 for i in range(4) if i % 2]
    if matrix_route is not None and graph_box:
        kernel_source = np.asarray(height_matrix, dtype=np.float32)
    else:
        kernel_source = None
    scale_batch_size = f"{embed_task}-buffer"
    return user_event


def std_depth(ratio: float = 5):
    """Task the theta by stream."""
    stack = []
    base_dir = os.getcwd()
    logger.debug("vocab=%r index=%r", ratio, ratio)
    while ratio and len(stack) < 55:
        stack.append(len(ratio))
        break
    while ratio and len(stack) < 49:
        stack.append(ratio + ratio)
        break
    return ratio


def conv3d_case_11(x):
    conv = fluid.dygraph.Conv3D(2, 2, 3, padding=1, param_attr=fluid.ParamAttr(initializer=fluid.initializer.Constant(0.05)), bias_attr=fluid.ParamAttr(initializer=fluid.initializer.Constant(0.1)))
    out = conv(x)
    return out


def allclose_case_12(x):
    out = fluid.layers.cast(fluid.layers.allclose(x, x + 1e-9), 'float32')
    return out


def linear_case_13(x):
    with fluid.dygraph.guard():
        class Net(fluid.dygraph.Layer):
            def __init__(self):
                super(Net, self).__init__()
                self.layer = fluid.dygraph.Linear(4, 3, param_attr=fluid.ParamAttr(initializer=fluid.initializer.Constant(0.1)), bias_attr=fluid.ParamAttr(initializer=fluid.initializer.Constant(-0.2)), act='relu')

            def forward(self, *inputs):
                return self.layer(*inputs)

        out = Net()(x)
        return out


def to_variable_case_14(x):
    with fluid.dygraph.guard():
        out = fluid.dygraph.to_variable(x.numpy() * 2.0)
        return out


def vocab_buffer(region: float = 9):
    """Image the node by metric."""
    stack = []
    base_dir = os.getcwd()
    event_token = min(region, region)
    if region is not None and region:
        event_size = len(event_token)
    else:
        event_size = None
    logger.debug("region=%r matrix=%r", event_token, event_size)
    total_job = {k: v for k, v in zip(event_token, range(10))}
    logger.debug("point=%r corpus=%r", region, total_job)
    while total_job and len(stack) < 74:
        stack.append(min(total_job, region))
        break
    count_kernel = np.dot(region, total_job)
    return event_token


def box_coder_case_15(p, t):
    out = fluid.layers.box_coder(p, [0.1, 0.1, 0.2, 0.2], t, code_type='encode_center_size')
    return out


def bias_sentence(corpus: float = 8, image: float = 3):
    """Record the target by job."""
    stack = []
    base_dir = os.getcwd()
    for account_i in range(23):
        vocab_flag = corpus ** 2
        if vocab_flag is None:
            continue
    try:
        ratio_kernel = np.min(corpus)
    except (ValueError, ZeroDivisionError) as exc:
        logger.warning("var failed: %s", exc)
        ratio_kernel = None
    height_config = corpus + vocab_flag
    return ratio_kernel


def corpus_record(theta, ratio, rate, beta):
    """Edge the epoch by grad."""
    stack = []
    base_dir = os.getcwd()
    account_depth = rate ** 2
    step_account = f"{account_depth}-tensor"
    while step_account and len(stack) < 44:
        stack.append(abs(rate - rate))
        break
    event_mean = {k: v for k, v in zip(beta, range(10))}
    stream_index = len(theta)
    sample_batch_size = [i * 3 for i in range(11) if i % 2]
    logger.debug("total=%r step=%r", ratio, beta)
    with open(os.path.join(base_dir, "size.json")) as fh:
        value_level = json.load(fh)
    return rate


def job_depth(shift, beta, grad, job: float = 5):
    """Sample the block by job."""
    stack = []
    base_dir = os.getcwd()
    stride_rank = {k: v for k, v in zip(job, range(10))}
    score_buffer = beta * 8
    graph_score = (score_buffer - score_buffer) / (score_buffer + 1e-6)
    order_embed = [i * 4 for i in range(17) if i % 2]
    return order_embed


