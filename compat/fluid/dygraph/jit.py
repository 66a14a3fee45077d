"""``paddle.fluid.dygraph.jit`` (1.8): ``declarative`` -> ``paddle.jit.to_static``."""
from __future__ import annotations

import paddle

from compat import _lazy
from compat._runtime import legacy, manual_error


@legacy("paddle.fluid.dygraph.declarative", "paddle.fluid.dygraph.jit.declarative",
        replacement="paddle.jit.to_static")
def declarative(func):
    return paddle.jit.to_static(func, full_graph=True)


@legacy("paddle.fluid.dygraph.dygraph_to_static_func", "paddle.fluid.dygraph.jit.dygraph_to_static_func",
        replacement="paddle.jit.to_static")
def dygraph_to_static_func(func):
    return paddle.jit.to_static(func, full_graph=True)


_lazy.attach(globals())


@legacy("paddle.fluid.dygraph.ProgramTranslator", "paddle.fluid.dygraph.jit.ProgramTranslator",
        "paddle.fluid.dygraph.dygraph_to_static.ProgramTranslator",
        replacement="paddle.jit.enable_to_static")
class ProgramTranslator(object):
    """1.x singleton switch for ``@declarative``: ``enable(False)`` runs the decorated
    functions eagerly (``paddle.jit.enable_to_static``)."""

    _instance = None

    def __new__(cls, *args, **kwargs):
        if cls._instance is None:
            cls._instance = object.__new__(cls)
            cls._instance.enable_to_static = True
        return cls._instance

    def __init__(self):
        pass

    @classmethod
    def get_instance(cls):
        return cls()

    def enable(self, enable_to_static):
        self.enable_to_static = bool(enable_to_static)
        paddle.jit.enable_to_static(self.enable_to_static)

    def _static(self, dygraph_func):
        cache = self.__dict__.setdefault("_translated", {})
        key = getattr(dygraph_func, "__func__", dygraph_func), getattr(dygraph_func, "__self__", None)
        static = cache.get(key)
        if static is None:
            static = cache[key] = paddle.jit.to_static(dygraph_func, full_graph=True)
        return static

    def get_output(self, dygraph_func, *args, **kwargs):
        """1.x: run ``dygraph_func`` translated to a static program (translated once per
        function, like 1.x's program cache); eagerly when translation is disabled."""
        assert callable(dygraph_func), \
            "Input dygraph_func is not a callable in ProgramTranslator.get_output"
        if not self.enable_to_static:
            return dygraph_func(*args, **kwargs)
        return self._static(dygraph_func)(*args, **kwargs)

    def get_func(self, dygraph_func):
        """1.x: the function's source converted to static-graph-building code (called under a
        ``program_guard`` it adds cond / while ops to the program; called in dygraph mode its
        converted control flow runs eagerly), as ``convert_to_static`` does today."""
        assert callable(dygraph_func), \
            "Input dygraph_func is not a callable in ProgramTranslator.get_func"
        if not self.enable_to_static:
            return dygraph_func
        from paddle.jit.dy2static.program_translator import convert_to_static
        return convert_to_static(dygraph_func)

    def get_code(self, dygraph_func):
        """Source of the translated function (today's translator's code, not 1.x's)."""
        assert callable(dygraph_func), \
            "Input dygraph_func is not a callable in ProgramTranslator.get_code"
        return paddle.jit.to_static(dygraph_func, full_graph=True).code

    def get_program(self, dygraph_func, *args, **kwargs):
        raise manual_error("paddle.fluid.dygraph.ProgramTranslator",
                           "get_program(func, *args) returned 1.x (main_program, "
                           "startup_program, inputs, outputs); today's translated program is "
                           "a PIR program reached through "
                           "paddle.jit.to_static(func).get_concrete_program(*args)")

    def save_inference_model(self, dirname, feed=None, fetch=None):
        raise manual_error("paddle.fluid.dygraph.ProgramTranslator",
                           "save_inference_model(dirname, feed, fetch) saved the last "
                           "translated program; use paddle.jit.save(layer, path_prefix, "
                           "input_spec=[...])")

    def get_program_cache(self):
        raise manual_error("paddle.fluid.dygraph.ProgramTranslator",
                           "get_program_cache() exposed 1.x's translator internals")


def _specs(inputs):
    from paddle.static import InputSpec
    return [InputSpec(shape=list(x.shape), dtype=x.dtype) for x in inputs]


_MAX_FED = 16


class _FedInputs(paddle.nn.Layer):
    """The traced layer with only the inputs at positions ``feed`` as parameters of its
    forward (in that order); the other inputs are the traced values, held as buffers
    that are not saved: paddle.jit.save prunes what the kept outputs do not read, as
    1.8's save_inference_model(dirname, feed=[...]) did. Explicit parameters with
    defaults: a forward(*xs) cannot be converted with an input_spec (3.3.1)."""

    def __init__(self, layer, feed, inputs):
        super(_FedInputs, self).__init__()
        if len(feed) > _MAX_FED:
            raise manual_error("paddle.fluid.dygraph.TracedLayer",
                               "save_inference_model feeds at most %d inputs" % _MAX_FED)
        self._inner = layer
        self._feed = [int(i) for i in feed]
        self._n_inputs = len(inputs)
        for i, x in enumerate(inputs):
            self.register_buffer("_traced_input_%d" % i, x, persistable=False)

    def forward(self, x0=None, x1=None, x2=None, x3=None, x4=None, x5=None, x6=None, x7=None,
                x8=None, x9=None, x10=None, x11=None, x12=None, x13=None, x14=None, x15=None):
        fed = [x0, x1, x2, x3, x4, x5, x6, x7, x8, x9, x10, x11, x12, x13, x14, x15]
        args = [getattr(self, "_traced_input_%d" % i) for i in range(self._n_inputs)]
        for k, i in enumerate(self._feed):
            args[i] = fed[k]
        return self._inner(*args)


@legacy("paddle.fluid.dygraph.TracedLayer", "paddle.fluid.dygraph.jit.TracedLayer",
        replacement="paddle.jit.to_static + paddle.jit.save")
class TracedLayer(object):
    """1.x ``TracedLayer.trace(layer, inputs)`` -> ``(outputs, traced)``; ``traced(inputs)``
    returns numpy arrays; ``traced.save_inference_model(dirname, feed, fetch)`` writes a
    directory ``fluid.io.load_inference_model`` reads. Built on ``paddle.jit.to_static``."""

    def __init__(self, program, parameters, feed_names, fetch_names):
        self._layer = program
        self._static = parameters
        self._specs = feed_names
        self._n_out = fetch_names

    @staticmethod
    def trace(layer, inputs):
        if not isinstance(inputs, (list, tuple)):
            inputs = [inputs]
        outputs = layer(*inputs)
        specs = _specs(inputs)
        static = paddle.jit.to_static(layer.forward, input_spec=specs, full_graph=True)
        n_out = len(outputs) if isinstance(outputs, (list, tuple)) else 1
        traced = TracedLayer(layer, static, specs, n_out)
        traced._inputs = [x.detach() for x in inputs]
        return outputs, traced

    def set_strategy(self, build_strategy=None, exec_strategy=None):
        pass

    def __call__(self, inputs):
        if not isinstance(inputs, (list, tuple)):
            inputs = [inputs]
        out = self._static(*inputs)
        outs = list(out) if isinstance(out, (list, tuple)) else [out]
        return [o.numpy() for o in outs]

    def save_inference_model(self, dirname, feed=None, fetch=None):
        import os
        os.makedirs(dirname, exist_ok=True)
        specs = self._specs if feed is None else [self._specs[i] for i in feed]
        layer = self._layer
        if feed is not None and list(feed) != list(range(len(self._specs))):
            # 1.8 pruned the program to the fed inputs (forward(x, label) saved with
            # feed=[0], fetch=[0]); paddle.jit.save needs every parameter of forward
            layer = _FedInputs(layer, feed, self._inputs)
        configs = {}
        if fetch is not None and list(fetch) != list(range(self._n_out)):
            # the outputs to keep, by position (a wrapper layer with forward(*xs) cannot be
            # converted with an input_spec: 3.3.1 counts no positional parameter)
            configs["output_spec"] = [int(i) for i in fetch]
        paddle.jit.save(layer, os.path.join(dirname, "__model__"), input_spec=specs, **configs)
