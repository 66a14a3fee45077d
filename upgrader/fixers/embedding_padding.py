"""PU101 embedding-padding: ``fluid.dygraph.Embedding(padding_idx=i)`` keeps row ``i`` of its
weight as the initializer drew it, as in 1.8.

What it does
    After the rewrite of ``fluid.dygraph.Embedding`` (``size=[V, D]`` split into
    ``num_embeddings`` / ``embedding_dim``, ``is_sparse`` → ``sparse``, ``param_attr`` →
    ``weight_attr``), a call that passes a ``padding_idx`` (anything but the literal
    ``None``) builds ``_FluidEmbedding``, a Layer class fix adds to the module, instead of
    ``paddle.nn.Embedding``, with the same keywords. Its ``weight`` is the ``[V, D]`` table
    ``paddle.nn.Embedding`` would create (the same ``create_parameter`` call: the same
    initializer draw, dtype, ``state_dict`` key ``weight`` and parameter name
    ``embedding_N.w_0``) and ``forward`` is today's lookup with that ``padding_idx``
    (``paddle.nn.functional.embedding``: ids equal to it give zeros and send no gradient
    to the row; ``i < 0`` means ``V + i``). A ``padding_idx`` outside ``[-V, V)``, which
    1.8.5 accepted and no id could match, gives a lookup without padding. With
    ``is_sparse=True`` in a static program, where today's table gets a dense gradient,
    the lookup subtracts the padding positions' values with their gradient detached:
    zeros forward and, as 1.8.5's sparse gradient, the output gradient to row ``i``.

    In a static program, ``is_sparse`` (other than a literal ``False``) makes the call
    unsafe unless every optimizer the module builds is SGD or Adagrad, with or without a
    padding index.

Why is this bad?
    ``paddle.nn.Embedding(padding_idx=i)`` sets ``weight[i] = 0`` when it is built in
    dynamic mode; 1.8's ``fluid.dygraph.Embedding`` kept the initialised row in the weight
    (only lookups of ``i`` gave zeros; checked on 1.8.5 with positive and negative
    ``padding_idx``). Lookups agree, but the weight does not: ``state_dict`` / checkpoints,
    a weight tied to an output layer, and any use of ``emb.weight`` see zeros where 1.8
    had the drawn values, and since the row gets no gradient it stays different through
    training. Static programs are not affected (``paddle.nn.Embedding`` zeroes the row
    only in dynamic mode, so the ``fluid.embedding`` / ``fluid.layers.embedding``
    rewrites keep it there, as 1.8's startup program did).

Example
    ``self.emb = fluid.dygraph.Embedding(size=[V, 32], padding_idx=0)`` →
    ``self.emb = _FluidEmbedding(num_embeddings=V, embedding_dim=32, padding_idx=0)``.

Fix safety
    Safe: the rule's example (deterministic tables with positive, negative and
    out-of-range padding ids: lookups, the weights as built and after SGD and Adam steps,
    dense and sparse in dygraph, dense in a static program; the parameter name and
    ``state_dict`` keys) agrees with 1.8.5, and tests/test_default_init.py compares a
    default-initialised table whose padding row is half of it with 1.8.5's distribution.
    Manual when the module already uses the name ``_FluidEmbedding`` for something else.
    ``is_sparse`` in a static program is unsafe unless the module trains only with SGD /
    Adagrad: 1.8.5's sparse Momentum / Adam / RMSProp kernels updated the looked-up rows
    differently from the dense update today's static programs run (Adam one
    bias-correction step ahead; checked on 1.8.5); in dynamic mode today's sparse kernels
    give 1.8.5's rows (checked with SGD and Adam).
"""
from __future__ import annotations

import libcst as cst

CODE = "PU101"
NAME = "_FluidEmbedding"
LEGACY = "paddle.fluid.dygraph.Embedding"
AFTER_APPLY_WHEN = (LEGACY,)
MANUAL_WHEN = (LEGACY,)
UNSAFE_WHEN = (LEGACY,)

SOURCES = {NAME: '''class _FluidEmbedding(paddle.nn.Layer):
    """Paddle 1.8's fluid.dygraph.Embedding with a padding_idx: the [num_embeddings,
    embedding_dim] weight keeps the values its initializer drew in every row
    (paddle.nn.Embedding(padding_idx=i) sets row i to 0 when built in dynamic mode);
    lookups of padding_idx give zeros and no gradient to its row, as in 1.8."""

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, sparse=False,
                 dtype=None, weight_attr=None):
        super().__init__(name_scope='embedding')
        if padding_idx is not None and not -num_embeddings <= padding_idx < num_embeddings:
            padding_idx = None  # 1.8 accepted it; no id can match it
        elif padding_idx is not None and padding_idx < 0:
            padding_idx += num_embeddings
        self._padding_idx = padding_idx
        self._sparse = sparse
        self.weight = self.create_parameter(
            attr=weight_attr, shape=[num_embeddings, embedding_dim],
            dtype=paddle.get_default_dtype() if dtype is None else dtype, is_bias=False)

    def forward(self, x):
        if self._sparse and self._padding_idx is not None and not paddle.in_dynamic_mode():
            # 1.8's sparse gradient reached the padding row too (as today's does in
            # dynamic mode); a static (PIR) program takes a dense gradient, which skips
            # it: zeros forward, the full gradient backward
            out = paddle.nn.functional.embedding(x, self.weight, sparse=True)
            pad = paddle.unsqueeze(paddle.cast(x == self._padding_idx, out.dtype), -1)
            return out - (out * pad).detach()
        return paddle.nn.functional.embedding(x, self.weight, padding_idx=self._padding_idx,
                                              sparse=self._sparse)
'''}

WHAT = "a Layer class fix adds to the module: the weight keeps the padding row as 1.8's did"
#: what explain and docs/rules.md show
HELPER_OF = {LEGACY: f"paddle.nn.Embedding; with a padding_idx, {NAME} ({WHAT})"}


def _padded(original: cst.Call, entry) -> bool:
    """Whether the legacy call passes a padding_idx other than the literal None."""
    from upgrader.args import Manual, bind, code_of, literal
    bound = bind(entry, original)
    if isinstance(bound, Manual):
        return False
    pad = bound.values.get("padding_idx")
    return pad is not None and literal(code_of(pad.value)) != ("ok", None)


def unsafe_reason(up, call: cst.Call, entry):
    """is_sparse in a static program that trains with other optimizers than SGD/Adagrad."""
    from upgrader.args import Manual, bind, code_of, literal
    from upgrader.fixers.sparse_embedding import DENSE_ALIKE, _optimizers
    bound = bind(entry, call)
    # a module that builds static graphs outside dygraph guards (static_mode's survey)
    if isinstance(bound, Manual) or not up.facts.static_outside_guard:
        return None
    sparse = bound.values.get("is_sparse")
    if sparse is None or literal(code_of(sparse.value)) == ("ok", False):
        return None
    used = _optimizers(up)
    if used and used <= DENSE_ALIKE:
        return None
    return ("is_sparse in a static program: 1.8.5 trained the table with sparse-gradient "
            "kernels, today's static (PIR) programs give it a dense gradient, and 1.8.5's "
            "sparse Momentum / Adam / RMSProp updated the looked-up rows differently from "
            "the dense ones (Adam one bias-correction step ahead; checked on 1.8.5). With "
            "SGD or Adagrad only (in this module) the training agrees, and in dynamic mode "
            "today's sparse kernels are 1.8.5's")


def manual_reason(up, call: cst.Call, entry):
    """A padding_idx call in a module that uses the class's name for something else."""
    from upgrader.fixers import helper_state
    if _padded(call, entry) and helper_state(up, NAME, SOURCES[NAME]) == "conflict":
        return (f"the module already uses the name {NAME} for something else, and "
                "paddle.nn.Embedding(padding_idx=...) zeroes that row of the weight when it "
                f"is built (1.8 kept it): {entry.note}")
    return None


def after_apply(up, original: cst.Call, node, entry):
    """The rewritten ``paddle.nn.Embedding(...)`` call builds ``_FluidEmbedding`` when the
    legacy call passes a padding_idx."""
    from upgrader.fixers import need_helper
    if not _padded(original, entry):
        return node
    found = []

    class Swap(cst.CSTTransformer):
        def leave_Call(self, orig, upd):
            if cst.Module([]).code_for_node(upd.func) == entry.target:
                found.append(True)
                return upd.with_changes(func=cst.Name(NAME))
            return upd

    out = node.visit(Swap())
    if found:
        need_helper(up, NAME)
        up.needed_imports.add("paddle")
        _shown(up, original, entry)
    return out


def _shown(up, original: cst.Call, entry) -> None:
    """The call's finding names the class it builds, not the entry's target."""
    import dataclasses
    line, col = up.pos(original)[:2]
    for i in range(len(up.findings) - 1, -1, -1):
        f = up.findings[i]
        if f.legacy == entry.name and (f.line, f.column) == (line, col):
            up.findings[i] = dataclasses.replace(f, message=f.message.replace(
                f"→ `{entry.target}`", f"→ `{NAME}` ({WHAT})", 1))
            return


def finish_module(up, module: cst.Module) -> cst.Module:
    """Add the class the rewrites build after the module's docstring and imports."""
    from upgrader.fixers import add_used_helpers
    return add_used_helpers(up, module, SOURCES)
