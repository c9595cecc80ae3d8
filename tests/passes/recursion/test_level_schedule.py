"""``level_schedule`` against trees built here: every row filled once, children before their
parent, levels padded, and a plain NumPy evaluation over the table equals the recursion."""

from __future__ import annotations

import numpy as np
import pytest

from janus.passes.recursion.level_schedule import level_schedule

Node = tuple  # ("leaf", word) or ("node", left, right)


def random_tree(rng: np.random.Generator, leaves: int) -> Node:
    if leaves == 1:
        return ("leaf", int(rng.integers(50)))
    split = int(rng.integers(1, leaves))
    return ("node", random_tree(rng, split), random_tree(rng, leaves - split))


def chain(length: int) -> Node:
    tree: Node = ("leaf", 0)
    for i in range(length):
        tree = ("node", ("leaf", i + 1), tree)
    return tree


def breadth_first(trees: list[Node]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """word (-1 inner), left, right (-1 on leaves), numbered from all roots at once."""
    queue, word, left, right = list(trees), [], [], []
    for node in queue:  # grows while iterating
        is_leaf = node[0] == "leaf"
        word.append(node[1] if is_leaf else -1)
        left.append(-1 if is_leaf else len(queue))
        right.append(-1 if is_leaf else len(queue) + 1)
        queue.extend(() if is_leaf else node[1:])
    return np.array(word), np.array(left, np.int64), np.array(right, np.int64)


def recurse(node: Node, emb: np.ndarray, w: np.ndarray) -> np.ndarray:
    if node[0] == "leaf":
        return emb[node[1]]
    return np.tanh(np.concatenate([recurse(node[1], emb, w), recurse(node[2], emb, w)]) @ w)


def by_levels(word, plan, emb, w) -> np.ndarray:
    """The table filled the way the compiled level loop fills it (NaN until filled, so a
    row read before its level ran shows in the result)."""
    table = np.full((plan.starts[-1], emb.shape[1]), np.nan)
    table[: len(plan.leaves)] = emb[word[plan.leaves]]
    for start, end in zip(plan.starts[:-1], plan.starts[1:]):
        kids = plan.kids[start - plan.starts[0] : end - plan.starts[0]]
        table[start:end] = np.tanh(np.concatenate([table[kids[:, 0]], table[kids[:, 1]]], axis=1) @ w)
    return table


FORESTS = {
    "one leaf": [("leaf", 3)],
    "one node": [("node", ("leaf", 1), ("leaf", 2))],
    "chain": [chain(12)],
    "mixed batch": [chain(5), ("leaf", 4), *(random_tree(np.random.default_rng(s), 9 + s) for s in range(6))],
}


@pytest.mark.parametrize("pad", [1, 4])
@pytest.mark.parametrize("forest", FORESTS, ids=list(FORESTS))
def test_levels_compute_the_recursion(forest: str, pad: int) -> None:
    trees = FORESTS[forest]
    word, left, right = breadth_first(trees)
    plan = level_schedule(left, right, len(trees), pad)
    inner = left >= 0
    assert sorted(plan.rows.tolist()) == sorted(set(plan.rows.tolist()))  # one row per node
    assert np.all(np.diff(plan.starts) % pad == 0) and np.all(np.diff(plan.starts) > 0)
    level_of_row = np.searchsorted(plan.starts, plan.rows[inner], side="right")
    for child in (left[inner], right[inner]):
        child_rows = plan.rows[child]
        assert np.all(child_rows < plan.starts[level_of_row - 1])  # filled in an earlier level
    rng = np.random.default_rng(0)
    emb, w = rng.standard_normal((50, 3)), rng.standard_normal((6, 3)) * 0.5
    table = by_levels(word, plan, emb, w)
    want = np.stack([recurse(t, emb, w) for t in trees])
    np.testing.assert_allclose(table[plan.rows[: len(trees)]], want, rtol=1e-12)


def test_chain_has_one_level_per_inner_node() -> None:
    word, left, right = breadth_first([chain(7)])
    plan = level_schedule(left, right, 1, 4)
    assert plan.levels == 7 and len(plan.leaves) == 8
    assert plan.kids.shape == (7 * 4 + 1, 2)
