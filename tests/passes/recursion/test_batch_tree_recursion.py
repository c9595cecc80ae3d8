"""``janus-batch-tree-recursion`` end to end: tree models run level by level agree with Python.

The default pipelines batch a recursion whose node reads a weight of at least 64K elements
(``test_zoo_default_pipeline``); the other tests batch every one for the CPU target and check, for
each program, that it applied (the pass logs it) and that every compiled result matches the plain
function.
"""

from __future__ import annotations

import copy
import dataclasses
import logging
import threading
from typing import Callable

import numpy as np
import pytest

import janus
from janus.models.rntn import RNTN
from janus.models.treelstm import TreeLSTM
from janus.models.treernn import TreeRNN
from janus.models.trees import SIZES, Tree, make_dataset
from janus.runtime.targets import TARGETS
from tests.helpers import wavefront_trees as wt

BATCHED = "runs one batch per level"
pytestmark = pytest.mark.filterwarnings("error::janus.FallbackWarning")


@pytest.fixture(autouse=True)
def batch_levels(monkeypatch: pytest.MonkeyPatch) -> None:
    cpu = TARGETS["cpu"]
    monkeypatch.setitem(TARGETS, "cpu", dataclasses.replace(cpu, pipeline=f"{cpu.pipeline}{{min-node-weights=1}}"))


def _agree(got: np.ndarray, want: np.ndarray) -> None:
    assert np.asarray(got).dtype == np.asarray(want).dtype
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("model_class", [TreeRNN, TreeLSTM, RNTN])
def test_zoo_inference_batched_by_level(model_class: type, caplog: pytest.LogCaptureFixture) -> None:
    hidden, vocab, *_ = SIZES["quick"]
    model = model_class(hidden, vocab)
    trees, _ = make_dataset("quick")
    plain = type(model).infer.fn
    infer = janus.jit(plain)  # its own profile: TreeModel.infer's is shared by the three models
    with caplog.at_level(logging.INFO, logger="janus.passes"):
        for batch in (trees[0:1], trees[1:2], trees[2:3], trees[3:4], trees[0:5], trees[5:10], trees[10:15]):
            _agree(infer(model, batch), plain(model, batch))
    assert BATCHED in caplog.text and "stays node by node" not in caplog.text


def test_rntn_weight_rows_first_agrees_and_its_guards_fail_into_python(monkeypatch: pytest.MonkeyPatch,
                                                                       caplog: pytest.LogCaptureFixture) -> None:
    """RNTN's ``V @ x`` run V's rows first (``weight-rows-first=1``: every W; by default only a W of
    1M elements or more, the full-size V) agrees with Python; the level function's guards, then
    checked by its copy without barriers, still fail a call with a word out of range into Python."""
    cpu = TARGETS["cpu"]
    monkeypatch.setitem(TARGETS, "cpu", dataclasses.replace(cpu, pipeline=cpu.pipeline.replace(
        "{min-node-weights=1}", "{min-node-weights=1 weight-rows-first=1}")))
    hidden, vocab, *_ = SIZES["quick"]
    model = RNTN(hidden, vocab)
    trees, _ = make_dataset("quick")
    plain = RNTN.infer.fn
    infer = janus.jit(plain)
    with caplog.at_level(logging.INFO, logger="janus.passes"):
        for batch in (trees[0:1], trees[1:2], trees[2:3], trees[3:4], trees[0:5], trees[5:10]):
            _agree(infer(model, batch), plain(model, batch))
    bad = copy.deepcopy(trees[1:2])  # a batch of the compiled version's kind: one tree
    leaf = bad[0]
    while leaf.word is None:
        leaf = leaf.right
    leaf.word = vocab + 3
    with pytest.raises(IndexError):
        plain(model, bad)
    with pytest.raises(IndexError):
        infer(model, bad)
    assert BATCHED in caplog.text and "stays node by node" not in caplog.text
    assert "failed" in janus.explain(infer)


def test_zoo_one_leaf_and_mutated_tree(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="janus.passes")
    hidden, vocab, *_ = SIZES["quick"]
    model = TreeRNN(hidden, vocab)
    plain = TreeRNN.infer.fn
    infer = janus.jit(plain)
    tree = Tree(left=Tree(word=3), right=Tree(left=Tree(word=4), right=Tree(word=5)))
    for _ in range(4):
        _agree(infer(model, [tree]), plain(model, [tree]))
    tree.right.left.word = 7  # same shape, new word
    _agree(infer(model, [tree]), plain(model, [tree]))
    tree.left = Tree(left=Tree(word=1), right=Tree(word=2))  # new shape
    _agree(infer(model, [tree]), plain(model, [tree]))
    single = Tree(word=6)
    for _ in range(3):
        _agree(infer(model, [single]), plain(model, [single]))
    assert BATCHED in caplog.text and "stays node by node" not in caplog.text


VOCAB, HIDDEN = 20, 6
sentence_vector = janus.jit(wt.sentence_vector)


@pytest.fixture(scope="module")
def params() -> wt.Params:
    return wt.Params(HIDDEN, VOCAB)


def _check(sentence: wt.Sentence, p: wt.Params, compiled: Callable = sentence_vector) -> None:
    _agree(compiled(sentence, p), wt.sentence_vector(sentence, p))


def test_own_model_shapes(params: wt.Params, caplog: pytest.LogCaptureFixture) -> None:
    rng = np.random.default_rng(3)
    trees = [wt.balanced(8, rng, VOCAB), wt.chain(5, rng, VOCAB), wt.balanced(5, rng, VOCAB),
             wt.Node(left=wt.Node(word=2)),  # two nodes: no right child
             wt.Node(left=wt.Node(left=wt.Node(word=1), right=wt.Node(word=2)))]
    with caplog.at_level(logging.INFO, logger="janus.passes"):
        for tree in trees * 2:
            _check(wt.Sentence(tree), params)
    assert BATCHED in caplog.text and "stays node by node" not in caplog.text


def test_own_model_deep_chain_and_one_node(params: wt.Params, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="janus.passes")
    compiled = janus.jit(wt.sentence_vector)
    rng = np.random.default_rng(4)
    deep = wt.Sentence(wt.chain(800, rng, VOCAB))
    for _ in range(3):
        _check(deep, params, compiled)
    leaf = wt.Sentence(wt.Node(word=5))
    for _ in range(3):
        _check(leaf, params, compiled)
    assert BATCHED in caplog.text and "stays node by node" not in caplog.text


@pytest.mark.filterwarnings("ignore::janus.FallbackWarning")
def test_level_guard_failing_deep_in_the_tree_runs_in_python(params: wt.Params,
                                                             caplog: pytest.LogCaptureFixture) -> None:
    """The level function's guards (here: a leaf's word inside ``E``) are checked on every node once
    before the levels run: a word out of range at the deepest leaf, or at a leaf of a shallow
    level, fails the call into Python, which raises as the plain program does; good trees after
    it still agree."""
    caplog.set_level(logging.INFO, logger="janus.passes")
    compiled = janus.jit(wt.sentence_vector)
    rng = np.random.default_rng(8)
    good = wt.Sentence(wt.chain(6, rng, VOCAB))
    for _ in range(3):
        _check(good, params, compiled)
    for bad_leaf in ("deepest", "shallow"):
        bad = copy.deepcopy(good)
        node = bad.root
        while node.left is not None and bad_leaf == "deepest":
            node = node.left
        (node if bad_leaf == "deepest" else node.right).word = VOCAB + 3
        with pytest.raises(IndexError):
            wt.sentence_vector(bad, params)
        with pytest.raises(IndexError):
            compiled(bad, params)
        _check(good, params, compiled)
    assert BATCHED in caplog.text
    assert "failed" in janus.explain(compiled)


def test_zoo_forest_of_mixed_shapes_at_batch_25(caplog: pytest.LogCaptureFixture) -> None:
    """25 trees of every shape in one call (each tree's table call writes the same global table:
    the rows of one are copied out before the next runs), then other batches of 25."""
    caplog.set_level(logging.INFO, logger="janus.passes")
    hidden, vocab, *_ = SIZES["quick"]
    model = TreeRNN(hidden, vocab)
    trees, _ = make_dataset("quick")
    plain = TreeRNN.infer.fn
    infer = janus.jit(plain)
    for start in (0, 25, 0, 25, 10):
        _agree(infer(model, trees[start:start + 25]), plain(model, trees[start:start + 25]))
    assert BATCHED in caplog.text


def test_two_threads_share_one_compiled_function(params: wt.Params, caplog: pytest.LogCaptureFixture) -> None:
    """The table is a global of the compiled module: calls from two threads must not interleave."""
    caplog.set_level(logging.INFO, logger="janus.passes")
    compiled = janus.jit(wt.sentence_vector)
    rng = np.random.default_rng(5)
    sentences = [wt.Sentence(wt.balanced(int(k), rng, VOCAB)) for k in rng.integers(2, 40, 8)]
    sentences += [wt.Sentence(wt.chain(int(k), rng, VOCAB)) for k in rng.integers(1, 30, 8)]
    wants = [wt.sentence_vector(s, params) for s in sentences]
    for s in sentences[:3]:
        compiled(s, params)  # profile and compile before the threads start
    assert BATCHED in caplog.text
    failures: list[BaseException] = []

    def work(order: list[int]) -> None:
        try:
            for _ in range(5):
                for i in order:
                    _agree(compiled(sentences[i], params), wants[i])
        except BaseException as e:  # reported by the main thread
            failures.append(e)

    threads = [threading.Thread(target=work, args=(list(range(len(sentences))),)),
               threading.Thread(target=work, args=(list(reversed(range(len(sentences)))),))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures, failures[0]


def test_more_nodes_than_table_rows_run_in_python(params: wt.Params, monkeypatch: pytest.MonkeyPatch,
                                                   caplog: pytest.LogCaptureFixture) -> None:
    """The table is a global of ``table-rows`` rows: a tree with more nodes fails its guard and
    runs in Python (right, never a write past the table); smaller trees still run compiled."""
    caplog.set_level(logging.INFO, logger="janus.passes")
    cpu = TARGETS["cpu"]
    monkeypatch.setitem(TARGETS, "cpu", dataclasses.replace(cpu, pipeline=cpu.pipeline.replace(
        "{min-node-weights=1}", "{min-node-weights=1 table-rows=16}")))
    compiled = janus.jit(wt.sentence_vector)
    rng = np.random.default_rng(6)
    small, big = wt.Sentence(wt.balanced(6, rng, VOCAB)), wt.Sentence(wt.chain(20, rng, VOCAB))
    for sentence in (small, small, small, big, small, big):
        _check(sentence, params, compiled)
    assert BATCHED in caplog.text
    assert "at most 16 nodes (janus-batch-tree-recursion's table-rows) failed" in janus.explain(compiled)


@pytest.mark.parametrize("model_class, batched", [(TreeLSTM, True), (RNTN, True), (TreeRNN, False)])
def test_zoo_default_pipeline(model_class: type, batched: bool, monkeypatch: pytest.MonkeyPatch,
                              caplog: pytest.LogCaptureFixture) -> None:
    """By default (``min-node-weights=65536``) the pass batches TreeLSTM (W 256x640) and RNTN (V
    128x256x256) at the zoo's full size, where it measured faster, and leaves TreeRNN (W 256x128)
    node by node; the quick sizes here only shrink the trees."""
    cpu = TARGETS["cpu"]
    monkeypatch.setitem(TARGETS, "cpu", dataclasses.replace(cpu, pipeline=cpu.pipeline.replace("{min-node-weights=1}", "")))
    hidden, vocab, *_ = SIZES["full"]
    model = model_class(hidden, vocab)
    trees, _ = make_dataset("quick")
    plain = type(model).infer.fn
    infer = janus.jit(plain)
    with caplog.at_level(logging.INFO, logger="janus.passes"):
        for batch in (trees[0:2], trees[2:4], trees[4:6], trees[6:8]):
            np.testing.assert_allclose(infer(model, batch), plain(model, batch), rtol=1e-4, atol=1e-5)
    assert (BATCHED in caplog.text) == batched
    assert ("stays node by node: its weights are smaller than min-node-weights=65536" in caplog.text) == (not batched)


def test_default_pipeline_batches_a_forest_of_many_trees(monkeypatch: pytest.MonkeyPatch,
                                                         caplog: pytest.LogCaptureFixture) -> None:
    """TreeRNN's weights are below ``min-node-weights``, but a call over a forest of at least
    8 trees (16 calls of the recursion from the entry, ``min-calls``: two per tree, on the
    root's children) is batched by default."""
    cpu = TARGETS["cpu"]
    monkeypatch.setitem(TARGETS, "cpu", dataclasses.replace(cpu, pipeline=cpu.pipeline.replace("{min-node-weights=1}", "")))
    hidden, vocab, *_ = SIZES["full"]
    model = TreeRNN(hidden, vocab)
    trees, _ = make_dataset("quick")
    plain = TreeRNN.infer.fn
    for size, batched in ((8, True), (7, False)):
        infer = janus.jit(plain)
        caplog.clear()
        with caplog.at_level(logging.INFO, logger="janus.passes"):
            for start in range(0, 4 * size, size):
                np.testing.assert_allclose(infer(model, trees[start:start + size]), plain(model, trees[start:start + size]),
                                           rtol=1e-4, atol=1e-5)
        assert (BATCHED in caplog.text) == batched, caplog.text
        assert (f"called from {2 * size} place(s), fewer than min-calls=16" in caplog.text) == (not batched)


def _table_calls(compiled: Callable, *args: object) -> int:
    """How many calls of a table function (one level loop each) the lowered entry makes."""
    return compiled.lower(*args).lowered.count("call @encode_rec0_table(")


def test_forest_of_wrappers_runs_one_level_loop(params: wt.Params, caplog: pytest.LogCaptureFixture) -> None:
    """A list of wrappers (``Sentence.root``) is one forest: every tree of the call in one
    table, one level loop; batches of other sizes and shapes (one node, two nodes, an 800-deep
    chain, the same sentence twice) agree with Python."""
    caplog.set_level(logging.INFO, logger="janus.passes")
    compiled = janus.jit(wt.forest_vectors)
    rng = np.random.default_rng(7)
    sentences = [wt.Sentence(wt.balanced(9, rng, VOCAB)), wt.Sentence(wt.Node(word=4)),
                 wt.Sentence(wt.chain(6, rng, VOCAB)), wt.Sentence(wt.Node(left=wt.Node(word=2)))]
    for _ in range(3):
        _agree(compiled(sentences, params), wt.forest_vectors(sentences, params))
    assert BATCHED in caplog.text and "stays node by node" not in caplog.text
    assert _table_calls(compiled, sentences, params) == 1
    mixed = [wt.Sentence(wt.chain(800, rng, VOCAB)), sentences[0], wt.Sentence(wt.balanced(30, rng, VOCAB)), sentences[0]]
    for batch in (mixed, sentences[::-1]) * 4:  # a sentence given twice: a key of its own, warmed up
        _agree(compiled(batch, params), wt.forest_vectors(batch, params))
    sentences[2].root.left.left = wt.Node(word=9)  # mutated between calls: a new shape
    sentences[0].root.left.left.word = 1  # and a new word
    _agree(compiled(sentences, params), wt.forest_vectors(sentences, params))
    assert sum(v.calls for v in compiled.versions.values()) >= 6  # compiled, not run in Python


def test_forest_of_nodes_shares_subtrees(params: wt.Params, caplog: pytest.LogCaptureFixture) -> None:
    """A list of nodes is one forest; a tree given twice, or inside another tree of the list,
    is one row of it, as in Python it is one object."""
    caplog.set_level(logging.INFO, logger="janus.passes")
    compiled = janus.jit(wt.forest_roots)
    rng = np.random.default_rng(8)
    big = wt.balanced(12, rng, VOCAB)
    roots = [big, wt.chain(3, rng, VOCAB), big, big.left]
    for _ in range(3):
        _agree(compiled(roots, params), wt.forest_roots(roots, params))
    assert BATCHED in caplog.text
    assert _table_calls(compiled, roots, params) == 1


def test_forest_node_writes_reach_each_tree(params: wt.Params) -> None:
    """``root.h = ...`` on the trees of a list (one forest): each written row is committed to
    its own node object, as Python would."""
    compiled = janus.jit(wt.mark_roots)
    rng = np.random.default_rng(9)
    for _ in range(4):
        roots = [wt.balanced(4, rng, VOCAB), wt.Node(word=3), wt.chain(2, rng, VOCAB)]
        twins = copy.deepcopy(roots)
        assert compiled(roots, params) == pytest.approx(wt.mark_roots(twins, params), rel=1e-6)
        for root, twin in zip(roots, twins):
            assert vars(root).keys() == vars(twin).keys()
            _agree(root.h, twin.h)
            assert root.left is None or "h" not in vars(root.left)
    assert sum(v.calls for v in compiled.versions.values()) >= 1
