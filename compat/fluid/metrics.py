"""``paddle.fluid.metrics`` (1.8): the numpy metric accumulators, kept as 1.x had them
(Python-side; today's ``paddle.metric`` classes have another interface).

These are 1.8's class tree, not the classes ``fix`` adds (upgrader/fixers/metric_eval.py):
legacy programs subclass ``MetricBase``, ``CompositeMetric.add_metric`` accepts only its
instances, ``get_config()`` and 1.8's input checks are part of the interface, while the
added classes derive from ``paddle.metric`` so that upgraded code joins today's API. The
same rule examples prove both against the 1.8.5 goldens."""
from __future__ import annotations

import copy

import numpy as np

from compat import SubclassMustDefine, _lazy
from compat._runtime import legacy

__all__ = ["MetricBase", "CompositeMetric", "Precision", "Recall", "Accuracy", "ChunkEvaluator",
           "EditDistance", "Auc"]


def _is_numpy_(var):
    return isinstance(var, (np.ndarray, np.generic))


def _is_number_(var):
    return isinstance(var, int) or isinstance(var, np.int64) or isinstance(var, float) or (
        isinstance(var, np.ndarray) and var.shape == (1,))


def _is_number_or_matrix_(var):
    return _is_number_(var) or isinstance(var, np.ndarray)


def _m(name, replacement="paddle.metric"):
    return legacy("paddle.fluid.metrics." + name, replacement=replacement)


@_m("MetricBase", "paddle.metric.Metric")
class MetricBase(object):
    def __init__(self, name):
        self._name = str(name) if name is not None else self.__class__.__name__

    def __str__(self):
        return self._name

    def reset(self):
        for attr, value in list(self.__dict__.items()):
            if attr.startswith("_"):
                continue
            if isinstance(value, int):
                setattr(self, attr, 0)
            elif isinstance(value, float):
                setattr(self, attr, .0)
            elif isinstance(value, (np.ndarray, np.generic)):
                setattr(self, attr, np.zeros_like(value))
            else:
                setattr(self, attr, None)

    def get_config(self):
        states = {a: v for a, v in self.__dict__.items() if not a.startswith("_")}
        return {"name": self._name, "states": copy.deepcopy(states)}

    # defined by subclasses (1.8.5's own message)
    def update(self, preds, labels):
        raise SubclassMustDefine("Should not use it directly, please extend it.")

    def eval(self):
        raise SubclassMustDefine("Should not use it directly, please extend it.")


@_m("CompositeMetric")
class CompositeMetric(MetricBase):
    def __init__(self, name=None):
        super().__init__(name)
        self._metrics = []

    def add_metric(self, metric):
        if not isinstance(metric, MetricBase):
            raise ValueError("SubMetric should be inherit from MetricBase.")
        self._metrics.append(metric)

    def update(self, preds, labels):
        for m in self._metrics:
            m.update(preds, labels)

    def eval(self):
        return [m.eval() for m in self._metrics]


@_m("Precision", "paddle.metric.Precision")
class Precision(MetricBase):
    def __init__(self, name=None):
        super().__init__(name)
        self.tp = 0
        self.fp = 0

    def update(self, preds, labels):
        if not _is_numpy_(preds):
            raise ValueError("The 'preds' must be a numpy ndarray.")
        if not _is_numpy_(labels):
            raise ValueError("The 'labels' must be a numpy ndarray.")
        preds = np.rint(preds).astype("int32")
        for i in range(labels.shape[0]):
            if preds[i] == 1:
                if preds[i] == labels[i]:
                    self.tp += 1
                else:
                    self.fp += 1

    def eval(self):
        ap = self.tp + self.fp
        return float(self.tp) / ap if ap != 0 else .0


@_m("Recall", "paddle.metric.Recall")
class Recall(MetricBase):
    def __init__(self, name=None):
        super().__init__(name)
        self.tp = 0
        self.fn = 0

    def update(self, preds, labels):
        if not _is_numpy_(preds):
            raise ValueError("The 'preds' must be a numpy ndarray.")
        if not _is_numpy_(labels):
            raise ValueError("The 'labels' must be a numpy ndarray.")
        preds = np.rint(preds).astype("int32")
        for i in range(labels.shape[0]):
            if labels[i] == 1:
                if preds[i] == labels[i]:
                    self.tp += 1
                else:
                    self.fn += 1

    def eval(self):
        recall = self.tp + self.fn
        return float(self.tp) / recall if recall != 0 else .0


@_m("Accuracy", "paddle.metric.Accuracy")
class Accuracy(MetricBase):
    def __init__(self, name=None):
        super().__init__(name)
        self.value = .0
        self.weight = .0

    def update(self, value, weight):
        if not _is_number_or_matrix_(value):
            raise ValueError("The 'value' must be a number(int, float) or a numpy ndarray.")
        if not _is_number_(weight):
            raise ValueError("The 'weight' must be a number(int, float).")
        if weight < 0:
            raise ValueError("The 'weight' can not be negative")
        self.value += value * weight
        self.weight += weight

    def eval(self):
        if self.weight == 0:
            raise ValueError("There is no data in Accuracy Metrics. Please check "
                             "layers.accuracy output has added to Accuracy.")
        return self.value / self.weight


@_m("ChunkEvaluator", "your own counts (precision = correct / infer, recall = correct / label)")
class ChunkEvaluator(MetricBase):
    def __init__(self, name=None):
        super().__init__(name)
        self.num_infer_chunks = 0
        self.num_label_chunks = 0
        self.num_correct_chunks = 0

    def update(self, num_infer_chunks, num_label_chunks, num_correct_chunks):
        for arg, what in ((num_infer_chunks, "num_infer_chunks"),
                          (num_label_chunks, "num_label_chunks"),
                          (num_correct_chunks, "num_correct_chunks")):
            if not _is_number_or_matrix_(arg):
                raise ValueError("The '%s' must be a number(int, float) or a numpy ndarray." % what)
        self.num_infer_chunks += num_infer_chunks
        self.num_label_chunks += num_label_chunks
        self.num_correct_chunks += num_correct_chunks

    def eval(self):
        precision = float(self.num_correct_chunks) / self.num_infer_chunks \
            if self.num_infer_chunks else 0
        recall = float(self.num_correct_chunks) / self.num_label_chunks \
            if self.num_label_chunks else 0
        f1_score = float(2 * precision * recall) / (precision + recall) \
            if self.num_correct_chunks else 0
        return precision, recall, f1_score


@_m("EditDistance", "averages of Levenshtein distances computed in Python")
class EditDistance(MetricBase):
    def __init__(self, name):
        super().__init__(name)
        self.total_distance = .0
        self.seq_num = 0
        self.instance_error = 0

    def update(self, distances, seq_num):
        if not _is_numpy_(distances):
            raise ValueError("The 'distances' must be a numpy ndarray.")
        if not _is_number_(seq_num):
            raise ValueError("The 'seq_num' must be a number(int, float).")
        self.seq_num += seq_num
        self.instance_error += seq_num - np.sum(distances == 0)
        self.total_distance += np.float64(np.sum(distances))  # numpy 1.x promoted float32

    def eval(self):
        if self.seq_num == 0:
            raise ValueError("There is no data in EditDistance Metric. Please check "
                             "layers.edit_distance output has been added to EditDistance.")
        return self.total_distance / self.seq_num, self.instance_error / float(self.seq_num)


@_m("Auc", "paddle.metric.Auc")
class Auc(MetricBase):
    def __init__(self, name, curve="ROC", num_thresholds=4095):
        super().__init__(name=name)
        self._curve = curve
        self._num_thresholds = num_thresholds
        self._stat_pos = [0] * (num_thresholds + 1)
        self._stat_neg = [0] * (num_thresholds + 1)

    def update(self, preds, labels):
        if not _is_numpy_(labels):
            raise ValueError("The 'labels' must be a numpy ndarray.")
        if not _is_numpy_(preds):
            raise ValueError("The 'predictions' must be a numpy ndarray.")
        for i, lbl in enumerate(labels):
            value = preds[i, 1]
            bin_idx = int(value * self._num_thresholds)
            assert bin_idx <= self._num_thresholds
            if lbl:
                self._stat_pos[bin_idx] += 1.0
            else:
                self._stat_neg[bin_idx] += 1.0

    @staticmethod
    def trapezoid_area(x1, x2, y1, y2):
        return abs(x1 - x2) * (y1 + y2) / 2.0

    def eval(self):
        tot_pos = tot_neg = auc = 0.0
        idx = self._num_thresholds
        while idx >= 0:
            pos_prev, neg_prev = tot_pos, tot_neg
            tot_pos += self._stat_pos[idx]
            tot_neg += self._stat_neg[idx]
            auc += self.trapezoid_area(tot_neg, neg_prev, tot_pos, pos_prev)
            idx -= 1
        return auc / tot_pos / tot_neg if tot_pos > 0.0 and tot_neg > 0.0 else 0.0


_lazy.attach(globals())
