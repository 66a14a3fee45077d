"""compat.install(): every import form of paddle.fluid resolves to the shim."""
from _compat_support import emit_source, explain, results, run_script

IMPORTS = emit_source() + r'''
import sys
import compat
compat.install()
import paddle
import paddle.fluid as fluid
from paddle import fluid as fluid2
from paddle.fluid import layers
import paddle.fluid.layers as L
from paddle.fluid.dygraph.nn import Linear
from paddle.fluid.dygraph import Linear as Linear2, to_variable
from paddle.fluid.layers import fc, data
from paddle.fluid.param_attr import ParamAttr
from paddle.fluid.initializer import Constant
from paddle.fluid.framework import Program
from paddle.fluid.executor import Executor
from paddle.fluid.optimizer import AdamOptimizer
from paddle.fluid.regularizer import L2Decay
from paddle.fluid.incubate.fleet.collective import fleet, DistributedStrategy
from paddle.fluid.incubate.fleet.base import role_maker
from paddle.fluid.contrib.mixed_precision import decorate
import paddle.fluid.layers.detection as det          # no hand-written file: generated
import paddle.fluid.core as core
import compat.fluid as cf
emit(
    same_module=fluid is cf and fluid2 is cf and paddle.fluid is cf,
    sys_modules=sys.modules["paddle.fluid"] is cf,
    layers=layers is cf.layers and L is cf.layers,
    linear=Linear is cf.dygraph.nn.Linear and Linear2 is Linear,
    fc=fc is cf.layers.fc, data=data is cf.layers.data,
    param_attr=ParamAttr is cf.ParamAttr,
    program=Program is cf.Program, executor=Executor is cf.Executor,
    adam=AdamOptimizer is cf.optimizer.AdamOptimizer,
    l2=L2Decay is cf.regularizer.L2Decay,
    fleet=type(fleet).__name__, role=hasattr(role_maker, "PaddleCloudRoleMaker"),
    det_name=det.__name__, det_is_attr=cf.layers.detection is det,
    core_eof=core.EOFException is paddle.base.core.EOFException,
    cuda=core.is_compiled_with_cuda() == paddle.is_compiled_with_cuda(),
    static=not paddle.in_dynamic_mode(),
    spec_name=cf.__spec__.name, layers_spec=cf.layers.__spec__.name,
    generated_same=fluid.layers.relu is fluid.layers.nn.relu,
)
try:
    fluid.layers.no_such_api
except AttributeError as exc:
    emit(missing=str(exc))
try:
    import paddle.fluid.no_such_module
except ImportError as exc:
    emit(missing_module=type(exc).__name__)
'''


def test_import_forms(tmp_path):
    proc = run_script(tmp_path, IMPORTS, via_compat=False, PYTHONWARNINGS="ignore")
    r = results(proc)
    assert proc.returncode == 0, explain(proc)
    for key in ("same_module", "sys_modules", "layers", "linear", "fc", "data", "param_attr",
                "program", "executor", "adam", "l2", "role", "det_is_attr", "core_eof", "cuda",
                "static", "generated_same"):
        assert r[key] is True, (key, r)
    assert r["fleet"] == "_Fleet"
    assert r["det_name"] == "compat.fluid.layers.detection"
    # the shim keeps its own identity (import specs are not rewritten to paddle.fluid)
    assert r["spec_name"] == "compat.fluid" and r["layers_spec"] == "compat.fluid.layers"
    assert "no_such_api" in r["missing"] and "PU001" in r["missing"]
    assert r["missing_module"] in ("ModuleNotFoundError", "ImportError")


def test_import_without_install_is_untouched(tmp_path):
    """Importing compat alone neither imports Paddle nor installs the hook."""
    code = emit_source() + r'''
import sys
import compat
emit(paddle_loaded="paddle" in sys.modules, installed=compat.installed(),
     hook=any(type(f).__name__ == "AliasFinder" for f in sys.meta_path))
'''
    proc = run_script(tmp_path, code, via_compat=False)
    assert proc.returncode == 0, explain(proc)
    assert results(proc) == {"paddle_loaded": False, "installed": False, "hook": False}


def test_python_m_compat_installs_the_hook(tmp_path):
    code = emit_source() + r'''
import paddle.fluid as fluid
from paddle.fluid.dygraph import guard
import compat
emit(installed=compat.installed(), module=fluid.__name__, guard=guard.__module__)
'''
    proc = run_script(tmp_path, code, PYTHONWARNINGS="ignore")
    assert proc.returncode == 0, explain(proc)
    assert results(proc) == {"installed": True, "module": "compat.fluid",
                             "guard": "compat.fluid.dygraph.base"}
