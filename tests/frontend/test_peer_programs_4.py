"""A fourth set of programs written the way public NumPy scripts are (``tests/helpers/peer_programs``:
a batched LSTM layer that unpacks ``B, T, _ = x.shape``, a REINFORCE agent whose episodes vary
in length, multi-head self-attention with a causal mask, an MLP with batch normalization and
printed losses, k-nearest neighbours and a k-means fit with boolean masks in a helper, an
``im2col`` convolution and a max-pool by Python loops), run unchanged with ``janus.jit`` added
from outside against the same code run by Python: results, types, object state, printed output.
Each test asserts how far each entry point converted, and for what still runs in Python, why."""

from __future__ import annotations

import re
from typing import Any

import numpy as np

import janus
from tests.helpers.peer_programs import bn_mlp, im2col_conv, knn, lstm_layer, mha, returns
from tests.helpers.peer_state import assert_compiled, lockstep, same_tree

RNG = np.random.default_rng(0)


def relaxed_calls(jf: Any) -> int:
    """Compiled calls of the versions whose signature has a ``?`` dim (from ``janus.explain``)."""
    return sum(int(n) for n in re.findall(r"^compiled: [^\n]*\?[^\n]*\((\d+) compiled call", janus.explain(jf), re.M))


# ---- a REINFORCE agent: episodes of varying length, returns filled backwards ----------------------
def episode(T: int) -> tuple:
    return RNG.standard_normal((T, 4)), RNG.integers(0, 2, T), RNG.random(T)


def test_reinforce_update_over_episodes_of_any_length_runs_in_one_relaxed_version():
    """``np.zeros_like(rewards)`` filled by ``out[t] = running`` over ``reversed(range(len(r)))``,
    ``x.std()``, ``states.shape[0]``: all over the ``?`` episode length."""
    episodes = [episode(T) for T in (5, 5, 6, 7, 5, 9, 4, 8, 6)]
    update = lockstep(returns.Agent.update, lambda: returns.Agent(4, 2), episodes)
    assert_compiled(update)
    explained = janus.explain(update)
    assert "relaxing (states.shape[0], actions.shape[0], rewards.shape[0]) to ?" in explained, explained
    assert "? dims not possible" not in explained, explained
    assert relaxed_calls(update) >= 3, explained


def test_discounted_returns_compile_for_any_length():
    discount = janus.jit(returns.discount, warmup=1)
    for T in (3, 3, 8, 5, 1):
        r = RNG.random(T)
        same_tree(discount(r, 0.9), returns.discount(r, 0.9))
    assert_compiled(discount)
    assert relaxed_calls(discount) >= 2, janus.explain(discount)


# ---- a batched LSTM layer: B, T, _ = x.shape, np.split into gates, states stacked --------------------
def test_lstm_layer_forward_and_pooling_match_python_and_compile():
    """The step outputs appended to a list in the loop over the ``?`` time dim are stacked in
    the ``scf.for``: one relaxed version serves every sequence length."""
    xs = [(RNG.standard_normal((2, T, 3)),) for T in (4, 4, 5, 4, 7, 2)]
    for entry in (lstm_layer.LSTMLayer.forward, lstm_layer.LSTMLayer.mean_pool):
        jf = lockstep(entry, lambda: lstm_layer.LSTMLayer(3, 4), xs)
        assert_compiled(jf)
        assert len(jf.versions) == 1 and relaxed_calls(jf) >= 3, janus.explain(jf)
        assert "relaxing (x.shape[1]) to ?" in janus.explain(jf)
    sequences = lockstep(lstm_layer.LSTMLayer.forward, lambda: lstm_layer.LSTMLayer(3, 4), [(x[0], True) for x in xs])
    assert_compiled(sequences)
    assert len(sequences.versions) == 1 and relaxed_calls(sequences) >= 3, janus.explain(sequences)


# ---- multi-head attention: reshape/transpose into heads, a causal mask ------------------------------
def test_multi_head_attention_matches_python_and_compiles():
    xs = [(RNG.standard_normal((2, 3, 8)),), (RNG.standard_normal((2, 3, 8)), False), (RNG.standard_normal((2, 3, 8)),)]
    attend = lockstep(mha.MultiHeadAttention.__call__, lambda: mha.MultiHeadAttention(8, 2), xs)
    assert_compiled(attend)
    assert "heap self.attn: written" in janus.explain(attend)


# ---- batch normalization: running statistics in a dict, a training flag, printed losses ---------------
def test_batchnorm_mlp_trains_as_in_python_and_prints_the_same(capsys):
    """The loss is printed every second step, under a branch on the step counter (a graph int):
    the steps that print run in Python under a python guard until that side proves common,
    then the branch is a segment boundary and every step keeps its array work compiled."""
    X, y = RNG.standard_normal((6, 5)), RNG.integers(0, 3, 6)
    train = lockstep(bn_mlp.BNNet.train_step, lambda: bn_mlp.BNNet(5, 8, 3), [(X, y)] * 16)
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 16 and lines[0::2] == lines[1::2]  # jitted then plain, the same lines
    (version,) = train.versions.values()
    assert version.graph.boundary.at_branch and version.calls >= 4, janus.explain(train)
    assert "python: bool at" in janus.explain(train)
    infer = lockstep(lambda net, X: net.forward(X, training=False)[0], lambda: bn_mlp.BNNet(5, 8, 3), [(X,)] * 3)
    assert_compiled(infer)


# ---- k-nearest neighbours and k-means ----------------------------------------------------------------
X_TRAIN, Y_TRAIN = RNG.standard_normal((12, 2)), RNG.integers(0, 3, 12)


def test_knn_votes_with_bincount_per_row_compile():
    predict = janus.jit(knn.knn_predict, warmup=1)
    for n in (4, 4, 4):
        X_test = RNG.standard_normal((n, 2))
        same_tree(predict(X_TRAIN, Y_TRAIN, X_test), knn.knn_predict(X_TRAIN, Y_TRAIN, X_test))
    assert_compiled(predict)


def test_kmeans_fit_with_a_boolean_mask_in_a_helper_compiles():
    """``X[labels == j]`` in a helper called from a list comprehension: a value-sized ``?``
    dim, its ``len`` a graph value, its mean guarded non-empty; an empty cluster (the
    helper's other branch) fails the branch's guard, and the next version takes both sides."""
    fit = janus.jit(knn.kmeans_fit, warmup=1, fallback="silent")
    far = np.vstack([X_TRAIN[:2], X_TRAIN[:1] + 100.0])  # the third center wins no point
    for centers in (X_TRAIN[:3], X_TRAIN[:3], far, far, X_TRAIN[:3]):
        same_tree(fit(X_TRAIN, centers.copy()), knn.kmeans_fit(X_TRAIN, centers.copy()))
    assert_compiled(fit)
    assert list(fit.versions.values())[-1].calls >= 2, janus.explain(fit)


# ---- an im2col convolution and a max-pool by loops over windows -----------------------------------------
def test_im2col_convolution_and_max_pool_compile_and_take_any_batch_size():
    xs = [(RNG.standard_normal((n, 2, 6, 6)),) for n in (2, 2, 3)]
    conv = lockstep(im2col_conv.Conv2D.forward, lambda: im2col_conv.Conv2D(2, 3), xs)
    assert_compiled(conv)
    pool = janus.jit(im2col_conv.max_pool, warmup=1)
    for n in (2, 2, 3, 4, 5):
        x = RNG.standard_normal((n, 2, 6, 6))
        same_tree(pool(x), im2col_conv.max_pool(x))
    assert_compiled(pool)
    assert relaxed_calls(pool) >= 2, janus.explain(pool)
