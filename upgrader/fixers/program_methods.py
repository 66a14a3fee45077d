"""PU216 program-methods: methods of a 1.x ``Program`` that a PIR program does not have.

What it does
    On a program the file builds with the legacy API (``fluid.Program()``,
    ``fluid.default_main_program()``, ``fluid.default_startup_program()``, or a name
    assigned from one of them), ``prog.all_parameters()`` becomes
    ``prog.global_block().all_parameters()[::-1]`` (so does
    ``prog.global_block().all_parameters()``, also through a name assigned the block:
    ``blk = prog.global_block()``) and ``prog.block(0)`` becomes
    ``prog.global_block()``; ``current_block()``, ``to_string(...)`` and
    ``global_block().var(name)`` (``blk.var(name)``) and ``global_block().vars`` are
    reported for a manual rewrite, except ``<program>.global_block().var(name)`` of a
    name the module gives a parameter (the same expression as a ``ParamAttr(name=...)``,
    ``param_attr=``/``bias_attr=`` string or ``create_parameter(name=...)``: BERT's
    masked-LM output tied to ``var(self._word_emb_name)``), which becomes
    ``<program>.get_parameter_value_by_name(name)``, and ``<block>.var(name)`` of a name
    the module gives a data variable (a literal ``name=`` of ``fluid.data`` /
    ``layers.data``), written as a string, a name bound once to one, or the variable of a
    comprehension over a literal list of them (the book's ``[main_program.global_block()
    .var(n) for n in feed_order]``), which becomes ``_fluid_block_var(<block>, name)``, a
    function fix adds to the module that finds the data op of that name (or the
    parameter); ``prog.list_vars()``
    becomes ``(v for v in prog.list_vars() if v.has_name)`` (unsafe).
    ``op.input_arg_names`` / ``op.output_arg_names`` of an operator (``for op in
    block.ops``: PaddleHub's search for pretrained parameters) are reported for a manual
    rewrite on any receiver (only 1.x's ``Operator`` has them).

Why is this bad?
    Paddle 3 builds PIR programs by default. A PIR ``Program`` has ``global_block()``,
    ``list_vars()``, ``num_blocks`` and ``random_seed``, but no ``all_parameters``,
    ``block``, ``current_block`` or ``to_string``, and its blocks have no ``var(name)``
    (checked on 3.3.1): the upgraded program fails with AttributeError although every name
    it imports was rewritten. A PIR block keeps each parameter op at its top, so
    ``all_parameters()`` lists them in reverse creation order (1.8: creation order; checked
    on 3.3.1), and a parameter that several layers create under one name (weight tying by
    ``ParamAttr`` name, the book's word2vec ``shared_w``) once per use where 1.8 listed it
    once: in a module that does so, the rewrite keeps each name once, at its first use
    (``list({p.name: p for p in <block>.all_parameters()[::-1]}.values())``; 1.8.5 and
    3.3.1 then give the same list). ``list_vars()`` yields every value of the program, and
    ``.name`` raises ValueError on all but data, parameters and persistable variables.

Example
    ``params = fluid.default_main_program().all_parameters()`` →
    ``params = paddle.static.default_main_program().global_block().all_parameters()[::-1]``.

Fix safety
    Safe for ``all_parameters()`` in a file that does not call ``create_global_var``
    (whose 3.x replacement, ``create_parameter(trainable=False)``, is a parameter too and
    would be listed: unsafe there), and for ``block`` with the literal index 0. Other
    block indices, ``current_block()`` (sub-blocks of control flow are PIR regions) and
    ``to_string`` (3.x prints PIR text) are manual, and so is ``block.var(name)`` (a
    parameter is ``program.get_parameter_value_by_name(name)``; other values have no name)
    unless the name is one the module gives a parameter (then the rewrite is that call;
    checked on 1.8.5 and 3.3.1 with BERT's tied masked-LM head) or a data variable (then
    ``_fluid_block_var``, which returns the data op's value; program static_feed_block_var,
    the book's feed lists, checked against 1.8.5).
    The ``list_vars()`` filter is unsafe: 1.8 also listed the intermediate variables.
"""
from __future__ import annotations

import libcst as cst

from upgrader.args import code_of, literal
from upgrader.fixers import add_used_helpers, helper_state, need_helper

CODE = "PU216"
PROGRAM_MAKERS = ("paddle.fluid.Program", "paddle.fluid.framework.Program",
                  "paddle.fluid.default_main_program", "paddle.fluid.default_startup_program",
                  "paddle.fluid.framework.default_main_program",
                  "paddle.fluid.framework.default_startup_program",
                  # the same programs once upgraded: `check` of an upgraded file still
                  # reports what is left (its TODO brings the file to the engine)
                  "paddle.static.Program", "paddle.static.default_main_program",
                  "paddle.static.default_startup_program")
MANUAL = {
    "current_block": "a PIR program has no current_block(): outside control flow use "
                     "program.global_block(); inside a cond/while_loop body the ops go to its "
                     "region",
    "to_string": "a PIR program has no to_string(): str(program) prints the PIR text (not "
                 "1.x's ProgramDesc text)",
}


def _is_program(up, node: cst.BaseExpression, legacy_only: bool = False) -> bool:
    """A program the file builds; with *legacy_only* only one made by the legacy API (a
    rewrite whose output still calls the method it rewrites must not run again on it)."""
    makers = [m for m in PROGRAM_MAKERS if not legacy_only or m.startswith("paddle.fluid.")]
    if isinstance(node, cst.Call):
        return up.resolve_dotted(node.func) in makers
    if isinstance(node, cst.Name):
        from upgrader.fixers.save_load_dygraph import _assignments
        return _assignments(up).get(node.value) in makers
    return False


def _is_block(up, node: cst.BaseExpression, legacy_only: bool = False) -> bool:
    """The global block of a program the file builds: ``<program>.global_block()``,
    ``<program>.block(0)``, or a name assigned from one of them (``blk =
    main.global_block()``)."""
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
        return node.func.attr.value in ("global_block", "block") \
            and _is_program(up, node.func.value, legacy_only)
    if isinstance(node, cst.Name):
        from upgrader.fixers.save_load_dygraph import _assignments
        origin = _assignments(up).get(node.value) or ""
        if not origin.startswith("block:"):
            return False
        program = origin[len("block:"):]
        if program.endswith("()"):
            makers = [m for m in PROGRAM_MAKERS if not legacy_only or m.startswith("paddle.fluid.")]
            return program[:-2] in makers
        return _is_program(up, cst.Name(program), legacy_only)
    return False


def _untraced_block(up, node: cst.BaseExpression) -> bool:
    """``<name>.global_block()`` (or ``block(0)``) of a name the module does not trace to a
    program maker, or a name assigned from one (``blk = prog.global_block()``): in a
    module that imports fluid, a program's global block all the same."""
    from upgrader.fixers.save_load_dygraph import _assignments, _is_block_call
    if isinstance(node, cst.Call):
        return _is_block_call(node) and isinstance(node.func.value, cst.Name)  # type: ignore[union-attr]
    if isinstance(node, cst.Name):
        return (_assignments(up).get(node.value) or "").startswith("block:")
    return False


def _evaluation_block(up, original: cst.Call, f: cst.Attribute) -> bool:
    """``<param>.global_block()`` in a function that the program-clone rewrite hands the
    evaluation program through ``param`` (the book's ``train_test(program, reader)`` and its
    feed list ``[program.global_block().var(n) for n in feed_order]``)."""
    if not (isinstance(f.value, cst.Call) and isinstance(f.value.func, cst.Attribute)
            and f.value.func.attr.value == "global_block" and isinstance(f.value.func.value, cst.Name)):
        return False
    from upgrader.fixers.program_clone import _plan
    lookups = _plan(up).block_lookups
    return bool(lookups) and up.pos(original)[0] in lookups


def _global_var_used(up) -> bool:
    cached = getattr(up, "_creates_global_var", None)
    if cached is None:
        cached = up._creates_global_var = "create_global_var" in up.source
    return cached


VAR = ("a PIR block has no var(name): a parameter is "
       "program.get_parameter_value_by_name(name) (a null value, not ValueError, when the "
       "program has no such parameter); data and intermediate variables: keep the Python "
       "variable the program was built with (intermediate values have no name in PIR)")


VARS = ("a PIR block has no vars (1.8: a dict name -> variable of the block): parameters "
        "are program.global_block().all_parameters() (named), data and intermediate "
        "variables are the Python variables the program was built with")


OP_ARGS = ("a PIR operation has no {attr}: its {what} are values, op.{call}, and only data, "
           "parameters and persistable variables have a .name (v.has_name; 1.8 listed the "
           "variable names the operator {verb}); the operator type is op.name() "
           "('pd_op.matmul', 1.8: 'mul' / 'matmul'), and a parameter is a value whose "
           "defining op is builtin.parameter")


#: attributes whose reading check_attribute reports (engine.visit_Attribute)
ATTRIBUTES = frozenset({"vars", "input_arg_names", "output_arg_names"})


def check_attribute(up, node: cst.Attribute) -> None:
    """``<block>.vars`` (not called): gone on PIR blocks (AttributeError on 3.3.1);
    ``<op>.input_arg_names`` / ``output_arg_names`` of an operator from ``block.ops``
    (PaddleHub's pretrained-parameter search): gone on PIR operations. Those two names
    belong to 1.x's Operator only, so any receiver is reported."""
    attr = node.attr.value
    if attr not in ATTRIBUTES or not up.opts.enabled(CODE):
        return
    if attr == "vars" and not _is_block(up, node.value):
        return
    if up.suppressed_node(node, CODE):
        return
    if attr == "vars":
        up.report(node, CODE, VARS, "paddle.fluid.framework.Block.vars", "", "manual")
        return
    inputs = attr == "input_arg_names"
    up.report(node, CODE, OP_ARGS.format(attr=attr, verb="reads" if inputs else "writes",
                                         what="inputs" if inputs else "outputs",
                                         call="operand_source(i) for i in range(op.num_operands())" if inputs
                                         else "results()"),
              f"paddle.fluid.framework.Operator.{attr}", "", "manual")


def _block_var(up, original: cst.Call, updated: cst.Call, f: cst.Attribute):
    """``<program>.global_block().var(name)`` / ``<program>.block(0).var(name)`` (or
    ``blk.var(name)`` with ``blk = <program>.global_block()``). A name the module gives a
    parameter (``ParamAttr(name=...)``, ``param_attr=``/``bias_attr=`` a string,
    ``create_parameter(name=...)``, spelled by the same expression: BERT's
    ``global_block().var(self._word_emb_name)``, the tied masked-LM output weight) becomes
    ``<program>.get_parameter_value_by_name(name)``."""
    if not _is_block(up, f.value) and not _evaluation_block(up, original, f):
        if _untraced_block(up, f.value) and not up.suppressed_node(original, CODE):
            # a block of a program the module gets from elsewhere (a builder's tuple
            # `prog, startup, out = build(False)`): still a PIR block with no var(name)
            up.report(original, CODE, VAR, "paddle.fluid.framework.Block.var", "", "manual")
        return updated
    if up.suppressed_node(original, CODE):
        return updated
    block = updated.func.value  # type: ignore[union-attr]
    if isinstance(f.value, cst.Call) and len(original.args) == 1 and original.args[0].keyword is None \
            and not original.args[0].star and _names_parameter(up, original.args[0].value):
        up.report(original, CODE, "`program.global_block().var(name)` → "
                  "`program.get_parameter_value_by_name(name)`: a PIR block has no var(name); "
                  "the module names a parameter so", "paddle.fluid.framework.Block.var",
                  "paddle.static.Program.get_parameter_value_by_name", "safe", applied=True)
        return cst.Call(func=cst.Attribute(value=block.func.value,
                                           attr=cst.Name("get_parameter_value_by_name")),
                        args=[updated.args[0].with_changes(comma=cst.MaybeSentinel.DEFAULT)])
    if len(original.args) == 1 and original.args[0].keyword is None \
            and not original.args[0].star and _names_data(up, original) \
            and helper_state(up, BLOCK_VAR, BLOCK_VAR_SOURCE) != "conflict":
        need_helper(up, BLOCK_VAR)
        up.report(original, CODE, f"`block.var(name)` → `{BLOCK_VAR}(block, name)`: a PIR "
                  "block has no var(name); the name is one the module gives a data variable, "
                  f"which {BLOCK_VAR} (a function fix adds to the module) finds by its data "
                  "op", "paddle.fluid.framework.Block.var", "", "safe", applied=True)
        return cst.Call(func=cst.Name(BLOCK_VAR), args=[
            cst.Arg(value=block, comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))),
            updated.args[0].with_changes(comma=cst.MaybeSentinel.DEFAULT)])
    up.report(original, CODE, VAR, "paddle.fluid.framework.Block.var", "", "manual")
    return updated


BLOCK_VAR = "_fluid_block_var"
BLOCK_VAR_SOURCE = f'''def {BLOCK_VAR}(block, name):
    """Paddle 1.8's Block.var(name) on a PIR block for a data variable or a parameter (the
    values a PIR program names); ValueError, as in 1.8, when the block has none of that
    name."""
    for op in block.ops:
        if op.name() == 'pd_op.data' and op.attrs().get('name') == name:
            return op.result(0)
    for param in block.all_parameters():
        if param.name == name:
            return param
    raise ValueError('var %s not in this block' % name)
'''
#: the legacy functions that declare a data variable (its name: ``name=`` or the first argument)
_DATA_MAKERS = ("paddle.fluid.data", "paddle.fluid.layers.data", "paddle.static.data")


def _data_names(up) -> set:
    """The literal names the module gives data variables (``fluid.data(name='x', ...)``,
    ``fluid.layers.data('x', ...)``, through any alias of those modules; cached per run)."""
    got = getattr(up, "_data_var_names", None)
    if got is not None:
        return got
    import ast
    from upgrader import untouched
    got = up._data_var_names = set()
    try:
        tree = untouched.parse(up.source)
    except SyntaxError:
        return got
    for n in untouched.walk(tree):
        if not isinstance(n, ast.Call):
            continue
        parts, f = [], n.func
        while isinstance(f, ast.Attribute):
            parts.append(f.attr)
            f = f.value
        if not isinstance(f, ast.Name) or not parts or parts[0] != "data":
            continue
        base = up.imports.resolve_name(f.id)
        if base is None:
            continue
        full = ".".join([base] + parts[::-1])
        entry = up.entry_for(full)
        if (entry.name if entry is not None else full) not in _DATA_MAKERS:
            continue
        given = [k.value for k in n.keywords if k.arg == "name"] or n.args[:1]
        if given and isinstance(given[0], ast.Constant) and isinstance(given[0].value, str):
            got.add(given[0].value)
    return got


def _names_data(up, call: cst.Call) -> bool:
    """The one argument of ``block.var(...)`` is certainly the name of a data variable the
    module declares: a string literal, a name bound once to one (bound_names), or the
    variable of the comprehension around the call (``[blk.var(n) for n in feed_order]``)
    over a literal list of them or a name bound once to such a list."""
    import ast
    from upgrader import bound_names, untouched
    names = _data_names(up)
    if not names:
        return False
    line = up.pos(call)[0]
    arg = call.args[0].value

    def all_data(src) -> bool:
        kind, value = literal(src) if src is not None else ("", None)
        if kind != "ok":
            return False
        values = value if isinstance(value, (list, tuple)) else [value]
        return bool(values) and all(isinstance(v, str) and v in names for v in values)

    if isinstance(arg, cst.SimpleString):
        return all_data(code_of(arg))
    if not isinstance(arg, cst.Name):
        return False
    known = bound_names.literal_at(up, line, arg.value)
    if known is not None:
        return all_data(known) and not known.lstrip().startswith(("[", "("))
    try:
        tree = untouched.parse(up.source)
    except SyntaxError:
        return False
    best = None
    for n in untouched.walk(tree):
        if isinstance(n, (ast.ListComp, ast.GeneratorExp, ast.SetComp, ast.DictComp)) \
                and n.lineno <= line <= (n.end_lineno or n.lineno) and len(n.generators) == 1:
            gen = n.generators[0]
            if isinstance(gen.target, ast.Name) and gen.target.id == arg.value and not gen.ifs \
                    and (best is None or n.lineno >= best[0].lineno):
                best = (n, gen)
    if best is None:
        return False
    it = best[1].iter
    if isinstance(it, (ast.List, ast.Tuple)):
        return all_data(ast.get_source_segment(up.source, it))
    if isinstance(it, ast.Name):
        return all_data(bound_names.literal_at(up, line, it.id))
    return False


def finish_module(up, module: cst.Module) -> cst.Module:
    """Add ``_fluid_block_var`` after the module's docstring and imports, once."""
    return add_used_helpers(up, module, {BLOCK_VAR: BLOCK_VAR_SOURCE})


def _names_parameter(up, arg: cst.BaseExpression) -> bool:
    """``arg`` spells (as its source, normalized) a parameter name the module gives."""
    import ast
    try:
        key = ast.dump(ast.parse(code_of(arg).strip(), mode="eval").body)
    except SyntaxError:
        return False
    names = getattr(up, "_parameter_name_exprs", None)
    if names is None:
        names = up._parameter_name_exprs = set()
        from upgrader import untouched
        try:
            tree = untouched.parse(up.source)
        except SyntaxError:
            return False
        for n in untouched.walk(tree):
            if not isinstance(n, ast.Call):
                continue
            fname = n.func.attr if isinstance(n.func, ast.Attribute) else getattr(n.func, "id", "")
            given = []
            if fname in ("ParamAttr", "create_parameter"):
                given += [k.value for k in n.keywords if k.arg == "name"]
                if fname == "ParamAttr":
                    given += n.args[:1]
            given += [k.value for k in n.keywords if k.arg in ("param_attr", "bias_attr")
                      and not isinstance(k.value, (ast.Call, ast.List, ast.Tuple))
                      and not (isinstance(k.value, ast.Constant) and not isinstance(k.value.value, str))]
            names.update(ast.dump(v) for v in given)
    return key in names


def _list_vars(up, original: cst.Call, updated: cst.Call):
    """``<program>.list_vars()``: PIR lists every value, and most have no name."""
    message = ("`program.list_vars()` → `(v for v in program.list_vars() if v.has_name)`: a "
               "PIR program lists every value and reading .name of an unnamed one (all but "
               "data, parameters and persistable variables) raises ValueError; unsafe: 1.8 also "
               "listed the intermediate variables (named fc_0.tmp_0, ...)")
    legacy, modern = "paddle.fluid.Program.list_vars", "paddle.static.Program.list_vars"
    if not up.opts.unsafe_fixes:
        up.report(original, CODE, message, legacy, modern, "unsafe")
        return updated
    up.report(original, CODE, message, legacy, modern, "unsafe", applied=True)
    return cst.parse_expression("(v for v in X if v.has_name)").visit(_Put(updated))


class _Put(cst.CSTTransformer):
    def __init__(self, node):
        self.node = node

    def leave_Name(self, original, updated):
        return self.node if updated.value == "X" else updated


def check_call(up, original: cst.Call, updated: cst.Call):
    f = original.func
    if isinstance(f, cst.Attribute) and f.attr.value == "var" and up.opts.enabled(CODE):
        return _block_var(up, original, updated, f)
    if isinstance(f, cst.Attribute) and f.attr.value == "list_vars" and not original.args \
            and up.opts.enabled(CODE) and _is_program(up, f.value, legacy_only=True) \
            and not up.suppressed_node(original, CODE):
        return _list_vars(up, original, updated)
    if isinstance(f, cst.Attribute) and f.attr.value == "all_parameters" and not original.args \
            and up.opts.enabled(CODE) and _is_block(up, f.value, legacy_only=True) \
            and not up.suppressed_node(original, CODE):
        return _block_all_parameters(up, original, updated)
    if not (isinstance(f, cst.Attribute) and f.attr.value in ("all_parameters", "block", *MANUAL)):
        return updated
    if not up.opts.enabled(CODE) or not _is_program(up, f.value):
        return updated
    if up.suppressed_node(original, CODE):
        return updated
    name = f.attr.value
    legacy = f"paddle.fluid.Program.{name}"
    if name in MANUAL:
        up.report(original, CODE, MANUAL[name], legacy, "", "manual")
        return updated
    new_value = updated.func.value  # type: ignore[union-attr]
    if name == "block":
        if len(original.args) != 1 or literal(code_of(original.args[0].value)) != ("ok", 0):
            up.report(original, CODE, "a PIR program has no block(i): block(0) is "
                      "global_block(); the other blocks are regions of control-flow ops",
                      legacy, "", "manual")
            return updated
        up.report(original, CODE, "`program.block(0)` → `program.global_block()` (PIR)",
                  legacy, "paddle.static.Program.global_block", "safe", applied=True)
        return cst.Call(func=cst.Attribute(value=new_value, attr=cst.Name("global_block")))
    if original.args:
        return updated
    if not _report_all_parameters(
            up, original, legacy,
            "`program.all_parameters()` → `program.global_block().all_parameters()` (PIR)"):
        return updated
    block = cst.Call(func=cst.Attribute(value=new_value, attr=cst.Name("global_block")))
    return _parameters_in_order(up, cst.Call(func=cst.Attribute(value=block, attr=cst.Name("all_parameters"))))


def _reversed(node: cst.BaseExpression) -> cst.BaseExpression:
    return cst.parse_expression("X[::-1]").visit(_Put(node))


def _parameters_in_order(up, node: cst.BaseExpression) -> cst.BaseExpression:
    """``node[::-1]``; in a module that ties weights by name, each name once, at its first
    use (``list({p.name: p for p in node[::-1]}.values())``)."""
    if _ties_weights(up):
        return cst.parse_expression("list({p.name: p for p in X[::-1]}.values())").visit(_Put(node))
    return _reversed(node)


TIED = ("; the module gives one parameter name to layers more than once (weight tying by "
        "ParamAttr name): 1.8 made one parameter, a PIR program lists it once per use, so "
        "each name is kept once, at its first use (checked on 1.8.5 and 3.3.1)")


def _ties_weights(up) -> bool:
    """A literal parameter name the module's layers create more than once (the book's
    word2vec 'shared_w', PaddleRec's 'SparseFeatFactors'), as optimizer_methods finds them
    for PU207."""
    cached = getattr(up, "_program_ties", None)
    if cached is None:
        from upgrader.fixers.optimizer_methods import _tied_calls, _tied_guards
        calls = _tied_calls(up)
        cached = up._program_ties = bool(_tied_guards(up)) or any(
            v for k, v in calls.items() if k != "guards")
    return cached


def _block_all_parameters(up, original: cst.Call, updated: cst.Call):
    """``<legacy program>.global_block().all_parameters()`` (or ``block(0)``): a PIR block
    lists its parameters in reverse creation order."""
    if not _report_all_parameters(
            up, original, "paddle.fluid.framework.Block.all_parameters",
            "`block.all_parameters()` → `block.all_parameters()[::-1]`: a PIR block keeps "
            "each parameter op at its top, so it lists the parameters in reverse creation "
            "order (1.8: creation order)"):
        return updated
    return _parameters_in_order(up, updated)


def _report_all_parameters(up, original: cst.Call, legacy: str, message: str) -> bool:
    """Report an ``all_parameters()`` rewrite; whether to apply it (unsafe in a file that
    calls ``create_global_var``, applied only with --unsafe-fixes there)."""
    safety = "unsafe" if _global_var_used(up) else "safe"
    if _ties_weights(up):
        message += TIED
    if safety == "unsafe":
        message += ("; unsafe: create_global_var's replacement is a non-trainable parameter "
                    "and is listed too (filter on `not p.stop_gradient`)")
    applied = safety == "safe" or up.opts.unsafe_fixes
    up.report(original, CODE, message, legacy, "paddle.static.Program.global_block", safety,
              applied=applied)
    return applied
