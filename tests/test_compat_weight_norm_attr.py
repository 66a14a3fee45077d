"""fluid.WeightNormParamAttr in a static program (compat on PIR).

3.x's WeightNormParamAttr builds its g/v parameters only in old-IR programs; on PIR a layer
using it died inside Paddle with a bare TypeError (full: argument must be paddle::DataType).
The rule is manual; compat raises LegacyAPIError with the rule's note instead.
"""
from _compat_support import explain, results, run_script, emit_source


def test_weight_norm_param_attr_static_raises_legacy_api_error(tmp_path):
    proc = run_script(tmp_path, emit_source() + r'''
import paddle.fluid as fluid
from compat import LegacyAPIError
main, startup = fluid.Program(), fluid.Program()
with fluid.program_guard(main, startup):
    x = fluid.data('x', [None, 3], 'float32')
    try:
        attr = fluid.WeightNormParamAttr(dim=None, name='wn')
        fluid.layers.fc(x, 2, param_attr=attr)
        emit(outcome='built')
    except LegacyAPIError as e:
        emit(outcome='legacy', text=str(e))
    except Exception as e:
        emit(outcome='other', text=repr(e))
''')
    got = results(proc)
    assert got.get("outcome") == "legacy", explain(proc)
    assert "WeightNormParamAttr [PU102]" in got["text"]
    assert "paddle.nn.utils.weight_norm" in got["text"]
