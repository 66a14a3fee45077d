"""PU101 sparse-embedding: ``embedding(..., is_sparse=True)`` rewritten safely where the
sparse gradient changed nothing.

What it does
    ``fluid.embedding`` / ``fluid.layers.embedding`` given ``is_sparse=True`` (or a
    non-literal value) are rewritten like any other call of theirs (``sparse=...`` on
    ``paddle.nn.Embedding``) without the ``--unsafe-fixes`` their rule asks for elsewhere,
    when the module trains only with SGD and/or Adagrad and the call has no
    ``padding_idx``.

Why is this bad?
    1.8.5 trained a sparse table with sparse-gradient kernels that today's static (PIR)
    programs do not use (the table gets a dense gradient). That changed the training in
    two ways only: 1.8.5's sparse gradient copied the output gradient of ``padding_idx``
    ids into ``weight[padding_idx]``, and its sparse Momentum / Adam / RMSProp kernels
    updated the looked-up rows differently from the dense ones. With SGD or Adagrad and
    no padding index, the sparse and the dense update are the same (checked on 1.8.5:
    the table after four steps, sparse against dense, differs by float rounding only;
    Momentum 2e-2, Adam 5e-2, RMSProp 0.4), so the rule's general unsafety does not apply.

Example
    ``emb = fluid.embedding(words, size=[V, 32], is_sparse=True,
    param_attr='shared_w')`` with ``fluid.optimizer.SGD(0.001).minimize(loss)`` in the
    module → ``emb = paddle.nn.Embedding(num_embeddings=V, embedding_dim=32, sparse=True,
    weight_attr='shared_w')(words)`` by a plain ``fix``.

Fix safety
    Safe when every optimizer the module constructs (``fluid.optimizer.*``) is SGD or
    Adagrad (at least one; an optimizer built in another module is not seen, so a module
    constructing none keeps the rule unsafe) and ``padding_idx`` is absent or None.
    Anything else stays unsafe with the rule's note.
"""
from __future__ import annotations

import libcst as cst

from upgrader.args import bind, code_of, literal, Manual
from upgrader.names import FastVisitor, dotted_of

CODE = "PU101"
SAFE_ARGS_WHEN = ("paddle.fluid.embedding", "paddle.fluid.layers.embedding")
#: optimizers whose sparse and dense updates of an embedding table agree (1.8.5)
DENSE_ALIKE = frozenset({"SGD", "SGDOptimizer", "Adagrad", "AdagradOptimizer"})


def _optimizers(up):
    """Class names of the ``fluid.optimizer`` optimizers the module constructs."""
    cached = up.__dict__.get("_constructed_optimizers")
    if cached is not None:
        return cached
    found = set()
    up._constructed_optimizers = found

    class Calls(FastVisitor):
        def visit_Call(self, node: cst.Call):
            d = dotted_of(node.func)
            if d is None:
                return
            head, _, rest = d.partition(".")
            base = up.imports.resolve_name(head)
            if base is None:
                return
            full = f"{base}.{rest}" if rest else base
            entry = up.entry_for(full)
            name = entry.name if entry is not None else full
            if name.startswith("paddle.fluid.optimizer."):
                found.add(name.rsplit(".", 1)[1])

    up.module.visit(Calls())
    return found


def safe_arg(up, call: cst.Call, entry, name: str) -> bool:
    """Whether argument ``name`` (which makes the rule unsafe in general) changes nothing
    in this call of this module."""
    if name != "is_sparse":
        return False
    bound = bind(entry, call)
    if isinstance(bound, Manual):
        return False
    pad = bound.values.get("padding_idx")
    if pad is not None and literal(code_of(pad.value)) != ("ok", None):
        return False
    used = _optimizers(up)
    return bool(used) and used <= DENSE_ALIKE
