"""Program.current_block() under compat (1.x API PIR programs lack).

1.8 returned the block ops were being added to: the global block, or the body of a
cond/while_loop while it is built. On PIR the call raised AttributeError.
"""
from _compat_support import emit_source, explain, results, run_script


def test_current_block_is_global_outside_and_body_inside_cond(tmp_path):
    proc = run_script(tmp_path, emit_source() + r'''
import paddle.fluid as fluid
main, startup = fluid.Program(), fluid.Program()
seen = {}
with fluid.program_guard(main, startup):
    x = fluid.data('x', [1, 2], 'float32')
    fluid.layers.fc(x, 2, param_attr=fluid.ParamAttr(name='w0'))
    blk = fluid.default_main_program().current_block()
    seen['outer_is_global'] = blk == main.global_block()
    seen['w0'] = list(blk.var('w0').shape)
    def body():
        seen['inner_is_global'] = main.current_block() == main.global_block()
        return x + 1
    fluid.layers.cond(fluid.layers.reduce_sum(x) > 0, body, lambda: x - 1)
    seen['after_is_global'] = main.current_block() == main.global_block()
emit(**seen)
''')
    got = results(proc)
    assert got == {"outer_is_global": True, "w0": [2, 2], "inner_is_global": False,
                   "after_is_global": True}, explain(proc)
