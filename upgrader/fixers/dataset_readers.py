"""PU106 dataset-readers: the 1.x reader creators of ``paddle.dataset`` (MNIST, CIFAR,
UCI housing, IMDB, PTB, WMT16, CoNLL-05) become small functions fix adds to the module, which read
the files of today's dataset classes and yield 1.8's samples.

What it does
    ``paddle.dataset.mnist.train()`` becomes ``_fluid_mnist_reader('train')`` (``test()``:
    ``'test'``), ``paddle.dataset.cifar.train10(cycle=c)`` becomes
    ``_fluid_cifar_reader('train10', cycle=c)`` (also ``test10``, ``train100``,
    ``test100``), ``paddle.dataset.uci_housing.train()`` becomes
    ``_fluid_uci_housing_reader('train')``, ``paddle.dataset.imdb.train(word_idx)`` becomes
    ``_fluid_imdb_reader('train', word_idx)``, ``paddle.dataset.imdb.word_dict()``
    becomes ``_fluid_imdb_word_dict()``, and ``paddle.dataset.imikolov.train(word_idx, n)``
    / ``build_dict()`` become ``_fluid_imikolov_reader('train', word_idx, n)`` /
    ``_fluid_imikolov_build_dict()``; ``paddle.dataset.wmt16.train(src_size, trg_size)`` /
    ``get_dict(lang, size)`` become ``_fluid_wmt16_reader('train', src_size, trg_size)`` /
    ``_fluid_wmt16_dict(lang, size)``; ``paddle.dataset.conll05.test()`` / ``get_dict()`` /
    ``get_embedding()`` become ``_fluid_conll05_test()`` / ``_fluid_conll05_get_dict()`` /
    ``_fluid_conll05_get_embedding()``. ``fix`` adds each function once, after the
    module's imports. Each returns a reader creator, as the 1.x call did, so
    ``paddle.batch(paddle.reader.shuffle(reader, buf_size), batch_size)`` around it keeps
    working.

Why is this bad?
    The ``paddle.dataset`` readers are deprecated since 2.0; their successors
    (``paddle.vision.datasets.MNIST`` / ``Cifar10`` / ``Cifar100``,
    ``paddle.text.datasets.UCIHousing`` / ``Imdb`` / ``Imikolov`` / ``WMT16`` /
    ``Conll05st``) are map-style datasets with another sample format: MNIST gives a [28, 28]
    image of 0..255 and a [1] int64 label (1.8: a flat float32 [784] image scaled to [-1, 1]
    and an int), CIFAR a [32, 32, 3] HWC image of 0..255 read in sorted batch order (1.8: a
    flat float32 [3072] CHW image in [0, 1], in the archive's order), UCI housing float32
    arrays (1.8: float64), IMDB int64 arrays of ids from its own dictionary (1.8: lists of
    ids from the dictionary the caller gave), and ``Imikolov(mode='test')`` reads
    ptb.test.txt where 1.8's ``test()`` read ptb.valid.txt. ``WMT16`` does not clip the
    dictionary sizes to the vocabulary as 1.8 did and builds the target dictionary from the
    source column (both versions cache the dictionaries in the same files); ``Conll05st``
    gives numpy arrays (1.8: lists) and has ``get_dict`` / ``get_embedding`` as methods. A
    plain rename changes every sample a model trains on.

Example
    ``paddle.batch(paddle.dataset.mnist.train(), batch_size=64)`` →
    ``paddle.batch(_fluid_mnist_reader('train'), batch_size=64)``.

Fix safety
    Safe: the functions let today's dataset class find (and download) the same file
    1.8 read, in the same cache directory ``~/.cache/paddle/dataset/<name>/``, then yield
    1.8's samples from it: same values, dtypes, shapes and order (the rules' examples,
    run on files written by the example, on 1.8.5 and 3.x). 1.8's
    ``uci_housing`` reader also drew a bar chart of the feature ranges into
    ``./image/ranges.png``; the function does not. ``_fluid_imdb_reader`` builds an
    ``Imdb`` dataset once to find the file, so preparing the data takes longer; the
    CoNLL-05 functions download all five files of ``Conll05st`` where 1.8's
    ``get_dict()`` fetched three and ``get_embedding()`` one. As in 1.8, the ids of the
    CoNLL-05 label dictionary follow the iteration order of a set of tag names, which
    Python's string hashing varies between runs unless PYTHONHASHSEED is set. Manual
    when the module already uses the function's name for something else.
"""
from __future__ import annotations

import libcst as cst

CODE = "PU106"
STRUCTURAL = ("dataset-readers",)

#: legacy name -> (function, its mode argument)
CALLS = {
    "paddle.dataset.mnist.train": ("_fluid_mnist_reader", "train"),
    "paddle.dataset.mnist.test": ("_fluid_mnist_reader", "test"),
    "paddle.dataset.cifar.train10": ("_fluid_cifar_reader", "train10"),
    "paddle.dataset.cifar.test10": ("_fluid_cifar_reader", "test10"),
    "paddle.dataset.cifar.train100": ("_fluid_cifar_reader", "train100"),
    "paddle.dataset.cifar.test100": ("_fluid_cifar_reader", "test100"),
    "paddle.dataset.uci_housing.train": ("_fluid_uci_housing_reader", "train"),
    "paddle.dataset.uci_housing.test": ("_fluid_uci_housing_reader", "test"),
    "paddle.dataset.imdb.train": ("_fluid_imdb_reader", "train"),
    "paddle.dataset.imdb.test": ("_fluid_imdb_reader", "test"),
    "paddle.dataset.imdb.word_dict": ("_fluid_imdb_word_dict", None),
    "paddle.dataset.imikolov.train": ("_fluid_imikolov_reader", "train"),
    "paddle.dataset.imikolov.test": ("_fluid_imikolov_reader", "test"),
    "paddle.dataset.imikolov.build_dict": ("_fluid_imikolov_build_dict", None),
    "paddle.dataset.wmt16.train": ("_fluid_wmt16_reader", "train"),
    "paddle.dataset.wmt16.test": ("_fluid_wmt16_reader", "test"),
    "paddle.dataset.wmt16.validation": ("_fluid_wmt16_reader", "val"),
    "paddle.dataset.wmt16.get_dict": ("_fluid_wmt16_dict", None),
    "paddle.dataset.conll05.test": ("_fluid_conll05_test", None),
    "paddle.dataset.conll05.get_dict": ("_fluid_conll05_get_dict", None),
    "paddle.dataset.conll05.get_embedding": ("_fluid_conll05_get_embedding",
                                             None),
}
#: functions the added functions call
NEEDS = {"_fluid_wmt16_reader": ("_fluid_wmt16_dict",)}
#: what docs/rules.md and explain show instead of the entry's target
HELPERS = {"dataset-readers": "_fluid_<dataset>_* functions fix adds to the module (1.8's "
                              "samples from today's dataset files; HELPER_OF names each)"}

#: what explain and docs/rules.md show for each entry
_REST = {"_fluid_cifar_reader": ", cycle=...", "_fluid_imdb_reader": ", word_idx",
         "_fluid_imikolov_reader": ", word_idx, n, data_type=...",
         "_fluid_imikolov_build_dict": "min_word_freq=...",
         "_fluid_wmt16_reader": ", src_dict_size, trg_dict_size, src_lang=...",
         "_fluid_wmt16_dict": "lang, dict_size, reverse=..."}
HELPER_OF = {name: "%s(%s%s) (a function fix adds to the module: 1.8's samples from today's "
                   "dataset files)" % (fn, "" if mode is None else repr(mode), _REST.get(fn, ""))
             for name, (fn, mode) in CALLS.items()}

SOURCES = {
    "_fluid_mnist_reader": '''def _fluid_mnist_reader(mode):
    """Paddle 1.8's paddle.dataset.mnist.train() / test(): a reader creator whose samples
    are (float32 image [784] scaled to [-1, 1], int label), in file order, read through
    paddle.vision.datasets.MNIST (same files)."""
    import paddle
    dataset = paddle.vision.datasets.MNIST(mode=mode, backend='cv2')

    def reader():
        for index in range(len(dataset)):
            image, label = dataset[index]
            image = image.astype('float32').reshape([784])
            yield image / 255.0 * 2.0 - 1.0, int(label[0])

    return reader
''',
    "_fluid_cifar_reader": '''def _fluid_cifar_reader(mode, cycle=False):
    """Paddle 1.8's paddle.dataset.cifar.train10() / test10() / train100() / test100(): a
    reader creator whose samples are (float32 CHW image [3072] scaled to [0, 1], int label),
    in the order of the archive's batches (endless with cycle=True), read from the file
    paddle.vision.datasets.Cifar10 / Cifar100 uses."""
    import pickle
    import tarfile
    import paddle
    datasets = paddle.vision.datasets
    if mode.endswith('100'):
        dataset = datasets.Cifar100(mode=mode[:-3], backend='cv2')
    else:
        dataset = datasets.Cifar10(mode=mode[:-2], backend='cv2')
    filename = dataset.data_file
    sub_name = {'train10': 'data_batch', 'test10': 'test_batch',
                'train100': 'train', 'test100': 'test'}[mode]

    def reader():
        while True:
            with tarfile.open(filename, mode='r') as f:
                names = [each.name for each in f if sub_name in each.name]
                for name in names:
                    batch = pickle.load(f.extractfile(name), encoding='bytes')
                    labels = batch.get(b'labels', batch.get(b'fine_labels', None))
                    for sample, label in zip(batch[b'data'], labels):
                        yield (sample / 255.0).astype('float32'), int(label)
            if not cycle:
                break

    return reader
''',
    "_fluid_uci_housing_reader": '''def _fluid_uci_housing_reader(mode):
    """Paddle 1.8's paddle.dataset.uci_housing.train() / test(): a reader creator whose
    samples are (float64 normalised features [13], float64 price [1]), read through
    paddle.text.datasets.UCIHousing (same file, same normalisation and 80/20 split)."""
    import paddle
    data = paddle.text.datasets.UCIHousing(mode=mode).data

    def reader():
        for row in data:
            yield row[:-1], row[-1:]

    return reader
''',
    "_fluid_imdb_word_dict": '''def _fluid_imdb_word_dict():
    """Paddle 1.8's paddle.dataset.imdb.word_dict(): {word (bytes): id} of the words seen
    more than 150 times in the IMDB archive, by falling frequency, plus the str key
    '<unk>'; the dictionary paddle.text.datasets.Imdb builds (same file, same rule)."""
    import paddle
    return paddle.text.datasets.Imdb(mode='train', cutoff=150).word_idx
''',
    "_fluid_imdb_reader": '''def _fluid_imdb_reader(mode, word_idx):
    """Paddle 1.8's paddle.dataset.imdb.train(word_idx) / test(word_idx): a reader creator
    whose samples are (list of word ids from word_idx, word_idx['<unk>'] for other words;
    int label, 0 positive, 1 negative), positive reviews first, in archive order, read from
    the file paddle.text.datasets.Imdb uses."""
    import re
    import string
    import tarfile
    import paddle
    filename = paddle.text.datasets.Imdb(mode=mode, cutoff=150).data_file
    unk = word_idx['<unk>']
    samples = []
    for label, kind in ((0, 'pos'), (1, 'neg')):
        pattern = re.compile(r'aclImdb/%s/%s/.*\\.txt$' % (mode, kind))
        with tarfile.open(filename) as tarf:
            member = tarf.next()
            while member is not None:
                if pattern.match(member.name):
                    text = tarf.extractfile(member).read().rstrip(b'\\n\\r')
                    words = text.translate(None, string.punctuation.encode('latin-1'))
                    samples.append(([word_idx.get(w, unk) for w in words.lower().split()],
                                    label))
                member = tarf.next()

    def reader():
        for doc, label in samples:
            yield doc, label

    return reader
''',
    "_fluid_imikolov_build_dict": '''def _fluid_imikolov_build_dict(min_word_freq=50):
    """Paddle 1.8's paddle.dataset.imikolov.build_dict(): {word: id} of the PTB words
    (bytes; the sentence marks '<s>' / '<e>' as str) seen more than min_word_freq times in
    ptb.train.txt and ptb.valid.txt, by falling frequency, plus '<unk>'; the dictionary
    paddle.text.datasets.Imikolov builds (same file, same rule)."""
    import paddle
    # n-grams longer than any line: the dataset keeps no samples of its own
    return paddle.text.datasets.Imikolov(data_type='NGRAM', window_size=2 ** 31,
                                         min_word_freq=min_word_freq).word_idx
''',
    "_fluid_imikolov_reader": '''def _fluid_imikolov_reader(mode, word_idx, n, data_type=1):
    """Paddle 1.8's paddle.dataset.imikolov.train(word_idx, n, data_type) / test(...): a
    reader creator over ptb.train.txt (test: ptb.valid.txt) whose samples are n-gram tuples
    of ids (data_type 1, NGRAM) or (src, trg) id lists (2, SEQ, at most n long when n > 0),
    read from the file paddle.text.datasets.Imikolov uses."""
    import tarfile
    import paddle
    # n-grams longer than any line: the dataset keeps no samples of its own
    filename = paddle.text.datasets.Imikolov(data_type='NGRAM', window_size=2 ** 31).data_file
    member = './simple-examples/data/ptb.%s.txt' % ('train' if mode == 'train' else 'valid')

    def reader():
        with tarfile.open(filename) as tf:
            unk = word_idx['<unk>']
            for line in tf.extractfile(member):
                if data_type == 1:
                    assert n > -1, 'Invalid gram length'
                    words = ['<s>'] + line.strip().split() + ['<e>']
                    if len(words) >= n:
                        ids = [word_idx.get(w, unk) for w in words]
                        for i in range(n, len(ids) + 1):
                            yield tuple(ids[i - n:i])
                elif data_type == 2:
                    ids = [word_idx.get(w, unk) for w in line.strip().split()]
                    src_seq = [word_idx['<s>']] + ids
                    trg_seq = ids + [word_idx['<e>']]
                    if n > 0 and len(src_seq) > n:
                        continue
                    yield src_seq, trg_seq
                else:
                    assert False, 'Unknow data type'

    return reader
''',
    "_fluid_wmt16_dict": '''def _fluid_wmt16_dict(lang, dict_size, reverse=False, data_file=None):
    """Paddle 1.8's paddle.dataset.wmt16.get_dict(lang, dict_size, reverse): the WMT16
    dictionary of lang ('<s>', '<e>', '<unk>', then the words of the training set by falling
    count), {word: id} or, reversed, {id: word}; built as 1.8 built it and cached in the
    same file, <dataset dir>/wmt16/<lang>_<size>.dict. data_file: the WMT16 archive
    (paddle.text.datasets.WMT16 finds or downloads it when None)."""
    import collections
    import os
    import tarfile
    import paddle
    if data_file is None:
        # the smallest dataset (validation set, dictionaries of the three marks only)
        data_file = paddle.text.datasets.WMT16(mode='val', src_dict_size=3,
                                               trg_dict_size=3).data_file
    dict_size = min(dict_size, 11250 if lang == 'en' else 19220)
    dict_path = os.path.join(os.path.dirname(data_file), '%s_%d.dict' % (lang, dict_size))
    found = False
    if os.path.exists(dict_path):
        with open(dict_path, 'rb') as f:
            found = len(f.readlines()) == dict_size
    if not found:
        counts = collections.defaultdict(int)
        with tarfile.open(data_file, mode='r') as f:
            for line in f.extractfile('wmt16/train'):
                columns = line.decode().strip().split('\\t')
                if len(columns) != 2:
                    continue
                for word in columns[0 if lang == 'en' else 1].split():
                    counts[word] += 1
        with open(dict_path, 'wb') as f:
            f.write(b'<s>\\n<e>\\n<unk>\\n')
            for idx, (word, _) in enumerate(
                    sorted(counts.items(), key=lambda x: x[1], reverse=True)):
                if idx + 3 == dict_size:
                    break
                f.write(word.encode() + b'\\n')
    word_dict = {}
    with open(dict_path, 'rb') as f:
        for idx, line in enumerate(f):
            if reverse:
                word_dict[idx] = line.strip().decode()
            else:
                word_dict[line.strip().decode()] = idx
    return word_dict
''',
    "_fluid_wmt16_reader": '''def _fluid_wmt16_reader(mode, src_dict_size, trg_dict_size, src_lang='en'):
    """Paddle 1.8's paddle.dataset.wmt16.train / test / validation(src_dict_size,
    trg_dict_size, src_lang): a reader creator whose samples are (source ids with '<s>' and
    '<e>', target ids after '<s>', target ids before '<e>'), with 1.8's dictionaries
    (_fluid_wmt16_dict), read from the file paddle.text.datasets.WMT16 uses."""
    import tarfile
    import paddle
    if src_lang not in ['en', 'de']:
        raise ValueError('An error language type.  Only support: '
                         'en (for English); de(for Germany).')
    trg_lang = 'de' if src_lang == 'en' else 'en'
    src_dict_size = min(src_dict_size, 11250 if src_lang == 'en' else 19220)
    trg_dict_size = min(trg_dict_size, 11250 if trg_lang == 'en' else 19220)
    # the smallest dataset (validation set, dictionaries of the three marks only)
    data_file = paddle.text.datasets.WMT16(mode='val', src_dict_size=3,
                                           trg_dict_size=3).data_file

    def reader():
        src_dict = _fluid_wmt16_dict(src_lang, src_dict_size, data_file=data_file)
        trg_dict = _fluid_wmt16_dict(trg_lang, trg_dict_size, data_file=data_file)
        start_id, end_id, unk_id = src_dict['<s>'], src_dict['<e>'], src_dict['<unk>']
        src_col = 0 if src_lang == 'en' else 1
        with tarfile.open(data_file, mode='r') as f:
            for line in f.extractfile('wmt16/' + mode):
                columns = line.decode().strip().split('\\t')
                if len(columns) != 2:
                    continue
                src_ids = [start_id] + [src_dict.get(w, unk_id)
                                        for w in columns[src_col].split()] + [end_id]
                trg_ids = [trg_dict.get(w, unk_id) for w in columns[1 - src_col].split()]
                yield src_ids, [start_id] + trg_ids, trg_ids + [end_id]

    return reader
''',
    "_fluid_conll05_test": '''def _fluid_conll05_test():
    """Paddle 1.8's paddle.dataset.conll05.test(): a reader creator whose samples are the
    nine lists of ids of paddle.text.datasets.Conll05st (words, five predicate context
    words, predicate, context mark, labels), as Python lists like 1.8's."""
    import paddle
    dataset = paddle.text.datasets.Conll05st()

    def reader():
        for index in range(len(dataset)):
            yield tuple(field.tolist() for field in dataset[index])

    return reader
''',
    "_fluid_conll05_get_dict": '''def _fluid_conll05_get_dict():
    """Paddle 1.8's paddle.dataset.conll05.get_dict(): (word_dict, verb_dict, label_dict)
    of paddle.text.datasets.Conll05st (same files, same rules)."""
    import paddle
    return paddle.text.datasets.Conll05st().get_dict()
''',
    "_fluid_conll05_get_embedding": '''def _fluid_conll05_get_embedding():
    """Paddle 1.8's paddle.dataset.conll05.get_embedding(): the path of the trained word
    vectors file (paddle.text.datasets.Conll05st downloads it)."""
    import paddle
    return paddle.text.datasets.Conll05st().get_embedding()
''',
}


def rewrite_call(up, original: cst.Call, updated: cst.Call, entry):
    from upgrader.fixers import bound_or_report, helper_conflict, need_helper, use_helper
    name, mode = CALLS[entry.name]
    if any(helper_conflict(up, original, entry, helper, SOURCES[helper])
           for helper in (name,) + NEEDS.get(name, ())):
        return updated
    bound = bound_or_report(up, original, updated, entry)
    if bound is None:
        return updated
    # the functions take 1.8's parameters, under 1.8's names and in 1.8's order: the
    # required ones by position, the others by keyword
    args = [] if mode is None else [cst.Arg(cst.SimpleString(repr(mode)))]
    for param in entry.params:
        value = bound.values.get(param.name)
        if value is None:
            continue
        if param.has_default:
            args.append(cst.Arg(value.value, keyword=cst.Name(param.name), equal=cst.AssignEqual(
                cst.SimpleWhitespace(""), cst.SimpleWhitespace(""))))
        else:
            args.append(cst.Arg(value.value))
    use_helper(up, original, entry, name, "a function fix adds to the module: 1.8's samples "
               "from today's dataset files")
    for other in NEEDS.get(name, ()):
        need_helper(up, other)
    return updated.with_changes(func=cst.Name(name), args=args)


def finish_module(up, module: cst.Module) -> cst.Module:
    """Add the functions the rewrites call after the module's docstring and imports."""
    from upgrader.fixers import add_used_helpers
    return add_used_helpers(up, module, SOURCES)
