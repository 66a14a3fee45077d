"""bound_names.literal_at: a bare name's literal value at a call, only when it is certain."""
import textwrap
from types import SimpleNamespace

import pytest

from upgrader import bound_names


def _at(src: str, name: str, marker: str = "# <-"):
    src = textwrap.dedent(src)
    line = next(i for i, l in enumerate(src.splitlines(), 1) if marker in l)
    return bound_names.literal_at(SimpleNamespace(source=src), line, name)


def test_function_local_bound_once():
    assert _at("""
        def f():
            flag = False
            use(flag)  # <-
        """, "flag") == "False"


def test_module_constant_seen_in_functions():
    assert _at("""
        FLAG = [1, 2]
        def f():
            use(FLAG)  # <-
        """, "FLAG") == "[1, 2]"


def test_closure_of_enclosing_function():
    assert _at("""
        def f():
            flag = None
            def g():
                use(flag)  # <-
        """, "flag") == "None"


@pytest.mark.parametrize("src", [
    # bound twice
    """
    def f(c):
        flag = False
        if c:
            flag = True
        use(flag)  # <-
    """,
    # a parameter anywhere in the module
    """
    def g(flag=True):
        pass
    def f():
        flag = False
        use(flag)  # <-
    """,
    # bound in another function: the name here is not that variable
    """
    def g():
        flag = False
    def f():
        use(flag)  # <-
    """,
    # a class body's names are not visible in its methods
    """
    class A:
        flag = False
        def m(self):
            use(flag)  # <-
    """,
    # a star import may rebind a module-level name
    """
    flag = False
    from somewhere import *
    def f():
        use(flag)  # <-
    """,
    # globals() may rebind it
    """
    flag = False
    globals()["flag"] = True
    use(flag)  # <-
    """,
    # declared global in a function, which may assign it
    """
    flag = False
    def g():
        global flag
    use(flag)  # <-
    """,
    # except ... as, for targets, with targets, comprehension variables count as bindings
    """
    flag = False
    try:
        pass
    except Exception as flag:
        pass
    use(flag)  # <-
    """,
    """
    flag = False
    for flag in range(2):
        pass
    use(flag)  # <-
    """,
    """
    flag = False
    xs = [flag for flag in range(3)]
    use(flag)  # <-
    """,
    # augmented assignment
    """
    def f():
        flag = 0
        flag += 1
        use(flag)  # <-
    """,
    # not a literal
    """
    def f():
        flag = compute()
        use(flag)  # <-
    """,
    # a default argument is evaluated outside the function that binds the name
    """
    def f(x=use(flag)):  # <-
        flag = False
    """,
])
def test_unknown(src):
    assert _at(src, "flag") is None


def test_unparsable_source_is_unknown():
    assert bound_names.literal_at(SimpleNamespace(source="def f(:\n"), 1, "x") is None


def test_bound_name_decides_unsafe_argument():
    """The engine judges `is_sparse=<name>` by the literal the name holds at the call."""
    from upgrader import upgrade_source
    base = "import paddle.fluid as fluid\n\ndef f(w):\n    s = {}\n    return fluid.embedding(w, size=[10, 4], is_sparse=s)\n"
    dense = upgrade_source(base.format("False")).findings
    sparse = upgrade_source(base.format("True")).findings
    assert [f.fix for f in dense if f.code == "PU101"] == ["safe"]
    assert [f.fix for f in sparse if f.code == "PU101"] == ["unsafe"]
    assert "is_sparse=s (= True here)" in next(f.message for f in sparse if f.code == "PU101")
