"""compat's linear_chain_crf / crf_decoding run the functions fix adds
(upgrader/fixers/linear_chain_crf.py); their values are proven against 1.8.5 by the rules'
examples (tests/test_proof.py) and program static_nlp_lac_crf. Here: what those cannot
show, the forms that raise and a batch 1.8.5's dygraph could not run."""
from _compat_support import run

CODE = r'''
import numpy as np
import compat.fluid as fluid
from compat import LegacyAPIError
from compat._added import added
from compat.fluid.layers import nn

rs = np.random.RandomState(3)
x_np = rs.randn(3, 5, 4).astype('float32')
lab_np = rs.randint(0, 4, (3, 5, 1)).astype('int64')
lens_np = np.array([5, 2, 1], 'int64')
init = fluid.initializer.NumpyArrayInitializer(rs.randn(6, 4).astype('float32'))
with fluid.dygraph.guard():
    x = fluid.dygraph.to_variable(x_np)
    lab = fluid.dygraph.to_variable(lab_np)
    lens = fluid.dygraph.to_variable(lens_np)
    # 1.8.5's dygraph ran one sequence per batch; a batch gives each sequence's cost
    whole = fluid.layers.linear_chain_crf(x, lab, fluid.ParamAttr(initializer=init), length=lens)
    parts = [fluid.layers.linear_chain_crf(x[i:i + 1], lab[i:i + 1], fluid.ParamAttr(initializer=init),
                                           length=lens[i:i + 1]).numpy() for i in range(3)]
    print('batch', np.allclose(whole.numpy(), np.concatenate(parts), rtol=1e-6, atol=1e-6),
          whole.shape == [3, 1])
    try:
        fluid.layers.crf_decoding(x, fluid.ParamAttr(name='crfw'), length=lens)
    except ValueError as e:
        print('dygraph decoding raises', 'dygraph' in str(e))
    for call in (lambda: fluid.layers.linear_chain_crf(x, lab), lambda: fluid.layers.crf_decoding(x, fluid.ParamAttr(name='crfw'))):
        try:
            call()
        except LegacyAPIError as e:
            print('LoD form raises', 'padded form' in str(e))
main, startup = fluid.Program(), fluid.Program()
with fluid.program_guard(main, startup):
    e = fluid.data(name='e', shape=[-1, 5, 4], dtype='float32')
    try:
        fluid.layers.crf_decoding(e, fluid.ParamAttr(name='missing'), length=fluid.data(name='n', shape=[-1], dtype='int64'))
    except ValueError as err:
        print('missing parameter raises', 'missing' in str(err))
print('same functions', 'added("linear_chain_crf", "_fluid_linear_chain_crf")' in open(nn.__file__).read(),
      'added("linear_chain_crf", "_fluid_crf_decoding")' in open(nn.__file__).read())
'''


def test_forms_1_8_5_rejected_or_could_not_run(tmp_path):
    script = tmp_path / "crf.py"
    script.write_text(CODE)
    proc = run([str(script)], cwd=str(tmp_path), PYTHONWARNINGS="ignore")
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = [ln for ln in proc.stdout.splitlines() if ln.split(" ")[0] in
             ("batch", "dygraph", "LoD", "missing", "same")]
    assert len(lines) == 6, proc.stdout
    assert all(ln.endswith("True") and "False" not in ln for ln in lines), proc.stdout
