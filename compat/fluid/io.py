"""``paddle.fluid.io`` (1.8): save/load in 1.x layouts, readers, ``DataLoader``.

- ``save(program, model_path)`` / ``load(program, model_path, executor, var_list)``:
  ``model_path.pdparams`` / ``.pdopt`` / ``.pdmodel`` (``paddle.static.save/load``);
- ``save_params`` / ``save_persistables`` / ``save_vars``: a directory with one file per
  variable (named after it), or one file ``filename`` holding them all; ``load_*`` read
  them back into the current scope;
- ``save_inference_model(dirname, feeded_var_names, target_vars, executor, ...)``: a
  directory (model file ``model_filename`` or ``__model__``), returns the fetch names;
  ``load_inference_model(dirname, executor, ...)`` returns
  ``[program, feed_target_names, fetch_targets]``.
"""
from __future__ import annotations

import os
import pickle

import numpy as np
import paddle

from compat import _lazy
from compat._runtime import legacy, manual_error
from compat.fluid import _pir
from compat.fluid.reader import DataLoader, PyReader, default_collate_fn  # noqa: F401

__all__ = ["save_vars", "save_params", "save_persistables", "load_vars", "load_params",
           "load_persistables", "save_inference_model", "load_inference_model", "batch",
           "shuffle", "buffered", "cache", "chain", "firstn", "compose", "map_readers",
           "xmap_readers", "multiprocess_reader", "ComposeNotAligned", "DataLoader", "PyReader",
           "default_collate_fn", "save", "load", "load_program_state", "set_program_state",
           "get_program_parameter", "get_program_persistable_vars", "is_persistable",
           "is_parameter"]

batch = paddle.batch
shuffle = paddle.reader.shuffle
buffered = paddle.reader.buffered
cache = paddle.reader.cache
chain = paddle.reader.chain
firstn = paddle.reader.firstn
compose = paddle.reader.compose
map_readers = paddle.reader.map_readers
xmap_readers = paddle.reader.xmap_readers
multiprocess_reader = paddle.reader.multiprocess_reader
ComposeNotAligned = paddle.reader.ComposeNotAligned

_FORMAT = b"paddle-upgrade-compat-var\n"


def _io(name, replacement=None):
    return legacy("paddle.fluid.io." + name, replacement=replacement)


def _program(main_program):
    if main_program is None:
        return paddle.static.default_main_program()
    from compat.fluid import compiler
    if isinstance(main_program, compiler.CompiledProgram):
        return main_program._program
    return main_program


def _is_parameter(value) -> bool:
    from compat.fluid import _pir
    return _pir.is_parameter(value)


def _persistable_values(program):
    out = []
    seen = set()
    for op in program.global_block().ops:
        if op.name() not in ("builtin.parameter", "pd_op.data"):
            continue
        for r in op.results():
            if not r.persistable:
                continue
            name = r.name
            if name not in seen:
                seen.add(name)
                out.append(r)
    return out


@_io("is_persistable", replacement="var.persistable")
def is_persistable(var):
    """1.8: False for feed/fetch/reader variables, else ``var.persistable``. A PIR value
    has no desc (paddle.static.is_persistable raises AttributeError): its attribute."""
    if isinstance(var, paddle.pir.Value):
        return bool(var.persistable)
    return paddle.static.is_persistable(var)


@_io("is_parameter", replacement="program.global_block().all_parameters()")
def is_parameter(var):
    """1.8: ``isinstance(var, Parameter)`` (True for dygraph parameters too). A PIR
    program's parameters are plain values: a value made by a parameter op that 1.8 made
    a Parameter (not create_global_var's or an optimizer's learning rate)."""
    if isinstance(var, paddle.pir.Value):
        return _is_parameter(var)
    from paddle.base import framework
    return isinstance(var, (framework.Parameter, framework.EagerParamBase))


@_io("get_program_parameter", replacement="program.global_block().all_parameters()")
def get_program_parameter(program):
    return [v for v in _persistable_values(program) if _is_parameter(v)]


@_io("get_program_persistable_vars")
def get_program_persistable_vars(program):
    return _persistable_values(program)


def _scope():
    return paddle.static.global_scope()


def _get(name):
    var = _scope().find_var(name)
    if var is None:
        raise ValueError("variable %r is not in the scope: run the startup program first" % name)
    return np.array(var.get_tensor())


def _set(name, value):
    var = _scope().find_var(name)
    if var is None:
        var = _scope().var(name)
    var.get_tensor().set(np.asarray(value), paddle.CPUPlace())


def _write(path, obj):
    d = os.path.dirname(path)
    if d:
        os.makedirs(d, exist_ok=True)
    with open(path, "wb") as f:
        f.write(_FORMAT)
        pickle.dump(obj, f, protocol=4)


def _read(path):
    with open(path, "rb") as f:
        head = f.read(len(_FORMAT))
        if head != _FORMAT:
            raise manual_error("paddle.fluid.io.load_vars",
                               "%s was not written by compat (a Paddle 1.x binary variable file); "
                               "load the 1.x model in Paddle 1.x and re-save it with "
                               "fluid.save, or convert it" % path)
        return pickle.load(f)


def _names(vars_):
    return [v if isinstance(v, str) else v.name for v in vars_]


@_io("save_vars", replacement="paddle.static.save")
def save_vars(executor, dirname, main_program=None, vars=None, predicate=None, filename=None):
    program = _program(main_program)
    if vars is None:
        vars = [v for v in _persistable_values(program) if predicate is None or predicate(v)]
    names = _names(vars)
    if filename is None:
        for n in names:
            _write(os.path.join(dirname, n), _get(n))
    else:
        _write(os.path.join(dirname, filename), {n: _get(n) for n in names})


@_io("load_vars", replacement="paddle.static.load")
def load_vars(executor, dirname, main_program=None, vars=None, predicate=None, filename=None):
    program = _program(main_program)
    if vars is None:
        vars = [v for v in _persistable_values(program) if predicate is None or predicate(v)]
    names = _names(vars)
    if filename is None:
        for n in names:
            _set(n, _read(os.path.join(dirname, n)))
    else:
        data = _read(os.path.join(dirname, filename))
        for n in names:
            if n not in data:
                raise RuntimeError("variable %r is missing in %s" % (n, filename))
            _set(n, data[n])


@_io("save_params", replacement="paddle.static.save")
def save_params(executor, dirname, main_program=None, filename=None):
    save_vars.__compat_impl__(executor, dirname, main_program, predicate=_is_parameter,
                              filename=filename)


@_io("save_persistables", replacement="paddle.static.save")
def save_persistables(executor, dirname, main_program=None, filename=None):
    save_vars.__compat_impl__(executor, dirname, main_program, filename=filename)


@_io("load_params", replacement="paddle.static.load")
def load_params(executor, dirname, main_program=None, filename=None):
    load_vars.__compat_impl__(executor, dirname, main_program, predicate=_is_parameter,
                              filename=filename)


@_io("load_persistables", replacement="paddle.static.load")
def load_persistables(executor, dirname, main_program=None, filename=None):
    load_vars.__compat_impl__(executor, dirname, main_program, filename=filename)


@legacy("paddle.fluid.io.save", "paddle.fluid.save", replacement="paddle.static.save")
def save(program, model_path):
    base = os.path.basename(model_path)
    if base == "":
        raise ValueError("The input model_path MUST be format of dirname/filename "
                         "[dirname\\filename in Windows system], but received model_path is "
                         "empty string.")
    d = os.path.dirname(model_path)
    if d:
        os.makedirs(d, exist_ok=True)
    program = _program(program)
    paddle.static.save(program, model_path)
    if not os.path.exists(model_path + ".pdmodel"):
        # 1.x wrote the program next to the parameters; PIR names it differently
        for ext in (".json", ".pdmodel.json"):
            if os.path.exists(model_path + ext):
                os.replace(model_path + ext, model_path + ".pdmodel")
                break
        else:
            with open(model_path + ".pdmodel", "w") as f:
                f.write(str(program))


def _strip(model_path):
    for ext in (".pdparams", ".pdopt", ".pdmodel"):
        if model_path.endswith(ext):
            return model_path[:-len(ext)]
    return model_path


def _var_files(dirname):
    """Relative paths ('/'-separated) of the files under ``dirname``: the variable names a
    save_vars directory holds (1.8 walked it the same way)."""
    out = []
    for root, _dirs, files in os.walk(dirname, topdown=False):
        for f in files:
            out.append(os.path.relpath(os.path.join(root, f), dirname).replace("\\", "/"))
    return out


@legacy("paddle.fluid.io.load", "paddle.fluid.load", replacement="paddle.static.load")
def load(program, model_path, executor=None, var_list=None):
    prefix = _strip(model_path)
    if not os.path.exists(prefix + ".pdparams"):
        # 1.8 also read what save_params / save_persistables / save_vars wrote: a directory
        # (the program's variables that have a file there) or one combined file (var_list)
        if executor is None:
            raise ValueError("executor is required when loading model file saved with "
                             "[ save_params, save_persistables, save_vars ]")
        if os.path.isdir(model_path):
            files = set(_var_files(model_path))
            for n in [n for n in _names(_persistable_values(_program(program))) if n in files]:
                _set(n, _read(os.path.join(model_path, n)))
            return
        if os.path.isfile(model_path):
            if var_list is None:
                raise ValueError("var_list is required when loading model file saved with "
                                 "[ save_params, save_persistables, save_vars ]")
            data = _read(model_path)
            for n in _names(var_list):
                if n not in data:
                    raise RuntimeError("variable %r is missing in %s" % (n, model_path))
                _set(n, data[n])
            return
    paddle.static.load(_program(program), prefix, executor, var_list)


@_io("load_program_state", replacement="paddle.static.load_program_state")
def load_program_state(model_path, var_list=None):
    prefix = _strip(model_path)
    if not os.path.exists(prefix + ".pdparams") and os.path.exists(model_path):
        # a save_params / save_persistables / save_vars directory, or one combined file
        # with var_list (3.x's load_program_state returns {} for these on PIR programs)
        if os.path.isfile(model_path):
            if var_list is None:
                raise ValueError("var_list can not be None when model_path is a file type")
            data = _read(model_path)
            return {n: np.asarray(data[n]) for n in _names(var_list)}
        if var_list is not None:
            return {n: np.asarray(_read(os.path.join(model_path, n))) for n in _names(var_list)}
        state = {}
        for n in _var_files(model_path):
            value = _read(os.path.join(model_path, n))
            if not isinstance(value, dict):  # a combined file there: 1.8 skipped it too
                state[n] = np.asarray(value)
        return state
    return paddle.static.load_program_state(prefix, var_list)


@_io("set_program_state", replacement="paddle.static.set_program_state")
def set_program_state(program, state_dict):
    paddle.static.set_program_state(_program(program), state_dict)


def _prefix(dirname, model_filename):
    return os.path.join(dirname, model_filename or "__model__")


@_io("save_inference_model", replacement="paddle.static.save_inference_model")
def save_inference_model(dirname, feeded_var_names, target_vars, executor, main_program=None,
                         model_filename=None, params_filename=None, export_for_deployment=True,
                         program_only=False):
    program = _program(main_program)
    if isinstance(feeded_var_names, str):
        feeded_var_names = [feeded_var_names]
    if not isinstance(target_vars, (list, tuple)):
        target_vars = [target_vars]
    feed_vars = []
    for n in feeded_var_names:
        v = _pir.find_by_name(program, n) if isinstance(n, str) else n
        if v is None:
            raise ValueError("save_inference_model: no feed variable named %r" % n)
        feed_vars.append(v)
    fetch_vars = [_pir.translate(v, program) for v in target_vars]
    os.makedirs(dirname, exist_ok=True)
    paddle.static.save_inference_model(_prefix(dirname, model_filename), feed_vars, fetch_vars,
                                       executor, program=program)
    return [v.name for v in target_vars]


@_io("load_inference_model", replacement="paddle.static.load_inference_model")
def load_inference_model(dirname, executor, model_filename=None, params_filename=None,
                         pserver_endpoints=None):
    prefix = _prefix(dirname, model_filename)
    if not any(os.path.exists(prefix + ext) for ext in (".json", ".pdmodel")):
        if os.path.exists(prefix):
            raise manual_error("paddle.fluid.io.load_inference_model",
                               "%s is a Paddle 1.x inference model; export it again with "
                               "paddle.static.save_inference_model" % prefix)
        raise ValueError("There is no directory named '%s'" % dirname)
    program, feed_names, fetch_targets = paddle.static.load_inference_model(prefix, executor)
    return [program, feed_names, fetch_targets]


_lazy.attach(globals())
