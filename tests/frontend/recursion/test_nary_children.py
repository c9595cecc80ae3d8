"""N-ary trees whose children lists differ in length (issue #15, deliverable 1): a ``for``
loop over ``node.children`` becomes an ``scf.for`` over the node's row of the padded id
matrix, so a child-sum recursion compiles for every tree of the kind. Plain Python running
the same program is the oracle for every answer."""

from __future__ import annotations

import numpy as np

from janus.frontend import explain, jit
from tests.helpers.peer_programs import child_sum_treelstm as cs

VOCAB, IN_DIM, MEM_DIM, CLASSES = 40, 8, 6, 3
MODEL = cs.ChildSumTreeLSTM(VOCAB, IN_DIM, MEM_DIM, CLASSES, seed=1)


def compiled_answers(jf, calls) -> int:
    """Calls ``jf`` on each argument tuple of ``calls``, checking every answer (value and
    dtype) against plain Python; returns how many the compiled versions gave."""
    before = sum(v.calls for v in jf.versions.values())
    for args in calls:
        got, want = jf(*args), jf.fn(*args)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
        assert np.asarray(got).dtype == np.asarray(want).dtype
    return sum(v.calls for v in jf.versions.values()) - before


def fan(*counts: int) -> cs.DepNode:
    """A root whose children have ``counts`` leaf children each (varying lengths)."""
    rng = np.random.default_rng(sum(counts))
    leaf = lambda: cs.DepNode(int(rng.integers(VOCAB)))  # noqa: E731
    return cs.DepNode(1, [cs.DepNode(2, [leaf() for _ in range(k)]) for k in counts])


def sentences(seed: int, count: int, words: tuple[int, int] = (2, 14)) -> list[cs.Sentence]:
    rng = np.random.default_rng(seed)
    return [cs.random_sentence(rng, int(rng.integers(*words)), VOCAB, CLASSES) for _ in range(count)]


def encode(node, emb):
    """A child-sum recursion with the leaf test written as ``children == []``."""
    if node.children == []:
        return np.tanh(emb[node.word])
    total = np.zeros(emb.shape[1], emb.dtype)
    for child in node.children:
        total = total + encode(child, emb)
    return np.tanh(total + emb[node.word])


def test_children_of_varying_length_compile_one_version_for_every_tree_of_the_kind():
    """Lists padded to a power of two: every tree whose lists hold at most 4 items is one kind."""
    jf = jit(encode)
    counts = [(1, 3), (4, 0, 2), (2, 1, 1, 4), (0, 3), (1, 2, 3), (3, 3, 1), (0, 0, 4, 2)]
    assert compiled_answers(jf, [(fan(*c), MODEL.emb) for c in counts]) >= 4, explain(jf)
    assert jf.compiles == 1 and "scf.for" in next(iter(jf.versions.values())).graph.text


def test_leaves_only_and_one_two_or_five_children():
    """Each is a kind of its own (no children list anywhere, or every list of one length):
    each compiles, and answers as Python does."""
    jf = jit(encode)
    for root in (cs.DepNode(3), fan(1), fan(2), fan(5), fan(2, 2)):
        assert compiled_answers(jf, [(root, MODEL.emb)] * 4) >= 1, explain(jf)


def test_child_sum_tree_lstm_on_one_sentence_and_on_a_mixed_forest():
    predict = jit(cs.ChildSumTreeLSTM.predict)
    assert compiled_answers(predict, [(MODEL, s) for s in sentences(0, 8, (6, 14))]) >= 4, explain(predict)
    loss = jit(cs.ChildSumTreeLSTM.loss)
    forests = [(MODEL, sentences(seed, 4, (1, 12))) for seed in range(6)]  # leaves, chains and fans mixed
    assert compiled_answers(loss, forests) >= 2, explain(loss)


def binary(depth: int, word: int = 1) -> cs.DepNode:
    if depth == 0:
        return cs.DepNode(word)
    return cs.DepNode(word, [binary(depth - 1, word + 1), binary(depth - 1, word + 2)])


def test_children_of_one_length_with_no_leaf_test():
    """Every inner node has two children and the program never tests for leaves: the loop
    runs 0 times at a leaf (an unrolled loop of 2 would fail its guard there)."""
    predict = jit(cs.ChildSumTreeLSTM.predict)
    calls = [(MODEL, cs.Sentence(binary(depth), 1)) for depth in (1, 2, 3, 2, 3, 1, 2)]
    assert compiled_answers(predict, calls) >= 4, explain(predict)
    assert predict.compiles == 1


def test_a_tree_mutated_between_calls_and_a_wrapper_over_it():
    predict = jit(cs.ChildSumTreeLSTM.predict)
    sentence = cs.Sentence(fan(3, 1), 2)
    assert compiled_answers(predict, [(MODEL, sentence)] * 4) >= 1, explain(predict)
    sentence.root.children[0].add_child(cs.DepNode(7))  # a child appended: 4 and 1 children now
    sentence.root.children[1].children.append(cs.DepNode(9, [cs.DepNode(4)]))
    before = predict.fn(MODEL, sentence)
    assert compiled_answers(predict, [(MODEL, sentence)]) == 1, explain(predict)
    sentence.root.children[0].children.pop()
    assert compiled_answers(predict, [(MODEL, sentence)]) == 1, explain(predict)
    assert not np.allclose(before, predict.fn(MODEL, sentence))
    assert predict.compiles == 1


def test_leaf_test_against_the_other_container_type_is_python_s_answer():
    """``children == ()`` is False for a list in Python (and ``!=`` True): so in the graph."""
    def leaf_count(node):
        if node.children != ():
            return 1 + len(node.children)
        return 0
    jf = jit(leaf_count)
    for _ in range(5):
        assert jf(fan(2, 3)) == leaf_count(fan(2, 3)) == 3
    assert jf.versions, explain(jf)


def stacked(node, emb):
    """Children's states collected by a list comprehension: a list whose length varies."""
    if not node.children:
        return np.tanh(emb[node.word])
    return np.tanh(np.stack([stacked(c, emb) for c in node.children]).sum(0))


def summed(node, emb):
    """Children's states summed by a generator expression."""
    if not node.children:
        return np.tanh(emb[node.word])
    return np.tanh(sum(summed(c, emb) for c in node.children))


def test_a_comprehension_or_generator_over_children_of_one_length_compiles():
    """The comprehension's code, active in the caller, is inlined again inside the recursive function."""
    for fn in (stacked, summed):
        jf = jit(fn)
        assert compiled_answers(jf, [(fan(3, 3, 3), MODEL.emb)] * 5) >= 2, explain(jf)


def test_a_comprehension_over_children_of_varying_length_runs_in_python_with_the_reason():
    for fn in (stacked, summed):
        jf = jit(fn, fallback="silent")
        for _ in range(8):
            np.testing.assert_allclose(jf(fan(1, 3), MODEL.emb), fn(fan(1, 3), MODEL.emb), rtol=1e-6)
        reason = explain(jf)
        # the side of the leaf test that reaches the comprehension runs in Python (a python guard),
        # and once it is taken more often than not, the whole call
        assert not jf.versions and "different lengths" in reason and "write a for loop" in reason, reason
