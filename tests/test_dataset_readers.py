"""fixers/dataset_readers.py: paddle.dataset reader creators -> functions fix adds (the
values are proven by the rules' examples in tests/test_proof.py)."""
import ast

from upgrader import upgrade_source
from upgrader.rulebook import load

BOOK = load()


def up(code):
    return upgrade_source(code, rules=BOOK)


def test_readers_become_added_functions_with_the_mode():
    r = up("import paddle\n"
           "train = paddle.batch(paddle.reader.shuffle(paddle.dataset.mnist.train(), buf_size=500), 64)\n"
           "test = paddle.dataset.cifar.test10(cycle=flag)\n"
           "c100 = paddle.dataset.cifar.train100()\n"
           "house = paddle.dataset.uci_housing.test()\n")
    assert "paddle.reader.shuffle(_fluid_mnist_reader('train'), buf_size=500)" in r.code
    assert "test = _fluid_cifar_reader('test10', cycle=flag)" in r.code
    assert "c100 = _fluid_cifar_reader('train100')" in r.code
    assert "house = _fluid_uci_housing_reader('test')" in r.code
    tree = ast.parse(r.code)
    defs = [n.name for n in tree.body if isinstance(n, ast.FunctionDef)]
    assert defs == ["_fluid_mnist_reader", "_fluid_cifar_reader", "_fluid_uci_housing_reader"]
    assert "= paddle.dataset" not in r.code and "(paddle.dataset" not in r.code
    assert {f.fix for f in r.findings} == {"safe"} and all(f.applied for f in r.findings)
    again = up(r.code)
    assert again.code == r.code and not again.findings


def test_positional_cycle_keeps_its_value():
    r = up("import paddle\nr = paddle.dataset.cifar.train10(True)\n")
    assert "r = _fluid_cifar_reader('train10', cycle=True)" in r.code


def test_a_module_using_the_name_otherwise_keeps_the_call():
    code = "import paddle\n_fluid_mnist_reader = 3\nr = paddle.dataset.mnist.train()\n"
    r = up(code)
    assert "r = paddle.dataset.mnist.train()" in r.code
    assert r.findings[0].fix == "manual" or not r.findings[0].applied
    assert "for something else" in r.findings[0].message


def test_bad_arguments_stay_manual():
    r = up("import paddle\nr = paddle.dataset.mnist.train(5)\n")
    assert "paddle.dataset.mnist.train(5)" in r.code
    assert not r.findings[0].applied


def test_imdb_reader_takes_the_dictionary_given():
    r = up("import paddle\nwd = paddle.dataset.imdb.word_dict()\n"
           "r = paddle.dataset.imdb.test(word_idx=wd)\nt = paddle.dataset.imdb.train(wd)\n")
    assert "wd = _fluid_imdb_word_dict()" in r.code
    assert "r = _fluid_imdb_reader('test', wd)" in r.code
    assert "t = _fluid_imdb_reader('train', wd)" in r.code
    assert all(f.applied for f in r.findings) and len(r.findings) == 3


def test_imikolov_arguments_keep_their_order():
    r = up("import paddle\nd = paddle.dataset.imikolov.build_dict()\n"
           "e = paddle.dataset.imikolov.build_dict(min_word_freq=f)\n"
           "a = paddle.dataset.imikolov.train(d, N)\n"
           "b = paddle.dataset.imikolov.test(n=5, word_idx=d, data_type=2)\n"
           "c = paddle.dataset.imikolov.test(d, 5, 1)\n")
    assert "d = _fluid_imikolov_build_dict()" in r.code
    assert "e = _fluid_imikolov_build_dict(min_word_freq=f)" in r.code
    assert "a = _fluid_imikolov_reader('train', d, N)" in r.code
    assert "b = _fluid_imikolov_reader('test', d, 5, data_type=2)" in r.code
    assert "c = _fluid_imikolov_reader('test', d, 5, data_type=1)" in r.code
    assert all(f.applied for f in r.findings) and len(r.findings) == 5


def test_wmt16_reader_brings_its_dictionary_function():
    r = up("import paddle\nr = paddle.dataset.wmt16.train(src, trg)\n"
           "v = paddle.dataset.wmt16.validation(10, 12, src_lang='de')\n")
    assert "r = _fluid_wmt16_reader('train', src, trg)" in r.code
    assert "v = _fluid_wmt16_reader('val', 10, 12, src_lang='de')" in r.code
    defs = [n.name for n in ast.parse(r.code).body if isinstance(n, ast.FunctionDef)]
    assert sorted(defs) == ["_fluid_wmt16_dict", "_fluid_wmt16_reader"]
    d = up("import paddle\nd = paddle.dataset.wmt16.get_dict('en', n, reverse=True)\n")
    assert "d = _fluid_wmt16_dict('en', n, reverse=True)" in d.code
    assert "def _fluid_wmt16_reader" not in d.code
    # a module that uses one of the two names for something else keeps the call
    c = up("import paddle\n_fluid_wmt16_dict = {}\nr = paddle.dataset.wmt16.test(3, 4)\n")
    assert "r = paddle.dataset.wmt16.test(3, 4)" in c.code


def test_a_dataset_module_import_goes_with_its_last_use():
    r = up("import paddle\nimport paddle.dataset.conll05 as conll05\n"
           "w, v, l = conll05.get_dict()\nr = paddle.dataset.conll05.test()\n")
    assert "import paddle.dataset.conll05" not in r.code
    assert "w, v, l = _fluid_conll05_get_dict()" in r.code
    kept = up("import paddle\nfrom paddle.dataset import imdb\nr = imdb.train(imdb.word_dict())\n"
              "other = imdb.build_dict\n")
    assert "from paddle.dataset import imdb" in kept.code  # imdb.build_dict is still read
    assert "r = _fluid_imdb_reader('train', _fluid_imdb_word_dict())" in kept.code


def test_explain_and_docs_name_each_entrys_own_function():
    from upgrader.explain import entry_doc, modern
    from upgrader.rulebook import load
    book = load()
    entry = book.lookup("paddle.dataset.imdb.train")
    assert modern(entry).startswith("_fluid_imdb_reader('train', word_idx)")
    assert "_fluid_mnist_reader" not in modern(entry)
    assert "_fluid_imdb_reader('train', word_idx)" in entry_doc(entry, book)["what"]
    assert modern(book.lookup("paddle.fluid.layers.rank_loss")).startswith("_fluid_rank_loss ")
