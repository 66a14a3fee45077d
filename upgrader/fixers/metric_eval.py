"""PU102 metric-eval: the ``fluid.metrics`` classes (``Auc``, ``Precision``, ``Recall``,
``Accuracy``, ``ChunkEvaluator``, ``EditDistance``, ``CompositeMetric``), read with
``eval()``, become classes that keep 1.8's interface.

What it does
    ``fluid.metrics.Auc(name, curve='ROC', num_thresholds=4095)`` becomes
    ``_FluidAuc(...)``, ``Precision(name=None)`` ``_FluidPrecision(...)``, ``Recall``
    ``_FluidRecall``, ``Accuracy`` ``_FluidAccuracy``, ``ChunkEvaluator``
    ``_FluidChunkEvaluator``, ``EditDistance`` ``_FluidEditDistance`` and
    ``CompositeMetric`` ``_FluidCompositeMetric``, with the same arguments, and ``fix`` adds each class used
    once, after the module's imports: subclasses of ``paddle.metric.Auc`` / ``Precision``
    / ``Recall`` (1.8's argument order, ``eval()`` returning ``accumulate()``, and for
    Precision / Recall 1.8's rounding with ``numpy.rint``), and of ``paddle.metric.Metric``
    for those that have no counterpart (Accuracy's running weighted mean of
    ``update(value, weight)``, ChunkEvaluator's sums of ``update(num_infer_chunks,
    num_label_chunks, num_correct_chunks)`` and its ``(precision, recall, f1)``,
    EditDistance's averages, CompositeMetric's list of metrics), with
    1.8's ``reset()``: public ints to 0, floats to 0.0, numpy values to zeros of their
    shape. ``_FluidAuc.reset()`` does nothing, as 1.8.5's did (1.8's ``MetricBase.reset``
    cleared public attributes only; the bucket counts are private: checked on 1.8.5), and
    neither does ``_FluidCompositeMetric.reset()`` (its metric list is private).

Why is this bad?
    Every 1.8 use reads the result with ``m.eval()``, which today's metrics call
    ``accumulate()``, and a rewrite of the constructor alone would turn it into an
    AttributeError, because the method call is on a name the rule cannot follow.
    ``paddle.metric.Auc`` computes the same bucketed AUC but takes ``name`` last;
    ``paddle.metric.Precision`` / ``Recall`` round 0.5 up (1.8: ``np.rint``, 0.5 -> 0);
    ``paddle.metric.Accuracy`` computes the accuracy itself from predictions (another
    interface), and there is no chunk metric today.

Example
    ``auc = fluid.metrics.Auc(name="auc", num_thresholds=2 ** 12)`` →
    ``auc = _FluidAuc(name="auc", num_thresholds=2 ** 12)``; ``auc.update(p, l)`` and
    ``auc.eval()`` stay as written.

Fix safety
    Safe: each rule's example (several updates, ``reset()`` between them, probabilities
    of exactly 0.5, counts given as numpy arrays and as numbers) gives 1.8.5's values,
    shapes and dtypes in both modes. Manual when the module already uses the class's name
    for something else.
"""
from __future__ import annotations

import libcst as cst

CODE = "PU102"
STRUCTURAL = ("metric-eval",)
NAMES = {"paddle.fluid.metrics.Auc": "_FluidAuc",
         "paddle.fluid.metrics.Precision": "_FluidPrecision",
         "paddle.fluid.metrics.Recall": "_FluidRecall",
         "paddle.fluid.metrics.Accuracy": "_FluidAccuracy",
         "paddle.fluid.metrics.ChunkEvaluator": "_FluidChunkEvaluator",
         "paddle.fluid.metrics.EditDistance": "_FluidEditDistance",
         "paddle.fluid.metrics.CompositeMetric": "_FluidCompositeMetric"}
WHAT = "a paddle.metric class fix adds to the module: 1.8's constructor, update() and eval()"
HELPERS = {"metric-eval": f"_FluidAuc / _FluidPrecision / _FluidRecall / _FluidAccuracy / "
                          f"_FluidChunkEvaluator / _FluidEditDistance / _FluidCompositeMetric ({WHAT})"}
HELPER_OF = {name: f"{cls} ({WHAT})" for name, cls in NAMES.items()}

# The parts the classes share are written once: 1.8's MetricBase kept the name (name()),
# read results with eval() and reset public state by type. Each class's source is composed
# from them, so that the module gets self-contained classes.
_NAME_INIT = """        super().__init__()
        self._name = str(name) if name is not None else '{kind}'
"""
#: 1.8's MetricBase: str(m) is the name; get_config() the name and the public state
_CONFIG = """
    def __str__(self):
        return self._name

    def get_config(self):
        import copy
        states = {k: v for k, v in self.__dict__.items() if not k.startswith('_')}
        return {'name': self._name, 'states': copy.deepcopy(states)}
"""
_EVAL = """
    def eval(self):
        return self.accumulate()
""" + _CONFIG
_NAMED = _EVAL + """
    def name(self):
        return self._name
"""
_RESET = '''
    def reset(self):
        """1.8's MetricBase.reset: public ints to 0, floats to 0.0, numpy values to zeros
        of their shape (sums given as arrays stay arrays), anything else to None."""
        import numpy
        for attr, value in list(self.__dict__.items()):
            if attr.startswith('_'):
                continue
            if isinstance(value, int):
                setattr(self, attr, 0)
            elif isinstance(value, float):
                setattr(self, attr, 0.0)
            elif isinstance(value, (numpy.ndarray, numpy.generic)):
                setattr(self, attr, numpy.zeros_like(value))
            else:
                setattr(self, attr, None)
'''


def _class(kind: str, head: str, state: str, body: str, tail: str = _NAMED) -> str:
    """A class of ``head`` (class line, docstring and ``def __init__`` line), whose
    ``__init__`` sets the name (by default 1.8's class name ``kind``) and the public
    ``state`` lines; ``body`` its methods."""
    return head + _NAME_INIT.replace("{kind}", kind) + state + body + tail


def _rounded(kind: str, counted: str, missed: str) -> str:
    """Precision or Recall: ``paddle.metric``'s class with 1.8's np.rint rounding; a
    sample counts when ``counted`` (preds or labels) is 1, as ``tp`` or as ``missed``."""
    return f'''class _Fluid{kind}(paddle.metric.{kind}):
    """Paddle 1.8's fluid.metrics.{kind}: numpy probabilities rounded with numpy.rint
    (0.5 counts as 0; paddle.metric.{kind} rounds it up), eval() = accumulate()."""

    def __init__(self, name=None):
        super().__init__(name=str(name) if name is not None else '{kind}')

    def update(self, preds, labels):
        import numpy
        preds = numpy.rint(preds).astype('int32')
        for i in range(labels.shape[0]):
            if {counted}[i] == 1:
                if preds[i] == labels[i]:
                    self.tp += 1
                else:
                    self.{missed} += 1
''' + _EVAL


SOURCES = {
    "_FluidAuc": '''class _FluidAuc(paddle.metric.Auc):
    """Paddle 1.8's fluid.metrics.Auc: paddle.metric.Auc's bucketed AUC (update(preds,
    labels) with numpy preds of shape [N, 2]) with 1.8's argument order (name first) and
    eval(), 1.8's name for accumulate()."""

    def __init__(self, name, curve='ROC', num_thresholds=4095):
        super().__init__(curve=curve, num_thresholds=num_thresholds,
                         name=str(name) if name is not None else 'Auc')

    def reset(self):
        """As in 1.8.5, a no-op: its MetricBase.reset cleared only public attributes, and
        the bucket counts are private, so the AUC kept accumulating."""
''' + _EVAL,
    "_FluidPrecision": _rounded("Precision", "preds", "fp"),
    "_FluidRecall": _rounded("Recall", "labels", "fn"),
    "_FluidAccuracy": _class("Accuracy", '''class _FluidAccuracy(paddle.metric.Metric):
    """Paddle 1.8's fluid.metrics.Accuracy: the weighted mean of the batch accuracies
    given to update(value, weight) (paddle.metric.Accuracy counts correct predictions
    itself)."""

    def __init__(self, name=None):
''', """        self.value = 0.0
        self.weight = 0.0
""", _RESET + """
    def update(self, value, weight):
        if weight < 0:
            raise ValueError("The 'weight' can not be negative")
        self.value += value * weight
        self.weight += weight

    def accumulate(self):
        if self.weight == 0:
            raise ValueError("There is no data in Accuracy Metrics.")
        return self.value / self.weight
"""),
    "_FluidChunkEvaluator": _class("ChunkEvaluator", '''class _FluidChunkEvaluator(paddle.metric.Metric):
    """Paddle 1.8's fluid.metrics.ChunkEvaluator: sums the chunk counts given to update()
    (numbers or numpy arrays, as chunk_eval returned them); eval() returns (precision,
    recall, f1) from the sums. Paddle 3 has no chunk metric."""

    def __init__(self, name=None):
''', """        self.num_infer_chunks = 0
        self.num_label_chunks = 0
        self.num_correct_chunks = 0
""", _RESET + """
    def update(self, num_infer_chunks, num_label_chunks, num_correct_chunks):
        self.num_infer_chunks += num_infer_chunks
        self.num_label_chunks += num_label_chunks
        self.num_correct_chunks += num_correct_chunks

    def accumulate(self):
        precision = float(self.num_correct_chunks) / self.num_infer_chunks \\
            if self.num_infer_chunks else 0
        recall = float(self.num_correct_chunks) / self.num_label_chunks \\
            if self.num_label_chunks else 0
        f1 = float(2 * precision * recall) / (precision + recall) \\
            if self.num_correct_chunks else 0
        return precision, recall, f1
"""),
    "_FluidEditDistance": _class("EditDistance", '''class _FluidEditDistance(paddle.metric.Metric):
    """Paddle 1.8's fluid.metrics.EditDistance: update(distances, seq_num) with the numpy
    distances of a batch (layers.edit_distance's output); eval() returns (average
    distance, share of sequences with a nonzero distance). Paddle 3 has no such metric."""

    def __init__(self, name):
''', """        self.total_distance = 0.0
        self.seq_num = 0
        self.instance_error = 0
""", _RESET + """
    def update(self, distances, seq_num):
        import numpy
        self.seq_num += seq_num
        self.instance_error += seq_num - numpy.sum(distances == 0)
        self.total_distance += numpy.float64(numpy.sum(distances))  # numpy 1.x promoted

    def accumulate(self):
        if self.seq_num == 0:
            raise ValueError("There is no data in EditDistance Metric.")
        return self.total_distance / self.seq_num, self.instance_error / float(self.seq_num)
"""),
    "_FluidCompositeMetric": _class("CompositeMetric", '''class _FluidCompositeMetric(paddle.metric.Metric):
    """Paddle 1.8's fluid.metrics.CompositeMetric: add_metric(m) collects metrics,
    update(preds, labels) updates each, eval() returns their eval() results in order.
    As in 1.8.5, reset() does nothing (the metric list is private; the metrics keep
    their state)."""

    def __init__(self, name=None):
''', """        self._metrics = []
""", """
    def add_metric(self, metric):
        self._metrics.append(metric)

    def update(self, preds, labels):
        for m in self._metrics:
            m.update(preds, labels)

    def reset(self):
        pass

    def accumulate(self):
        return [m.eval() for m in self._metrics]
"""),
}


def rewrite_call(up, original: cst.Call, updated: cst.Call, entry):
    """The call with the class as its callee (1.8's signature, so the arguments stay)."""
    from upgrader.fixers import call_added_function
    name = NAMES[entry.name]
    return call_added_function(up, original, updated, entry, name, SOURCES[name], WHAT)


def finish_module(up, module: cst.Module) -> cst.Module:
    """Add the class the rewrites call after the module's docstring and imports."""
    from upgrader.fixers import add_used_helpers
    return add_used_helpers(up, module, SOURCES)
