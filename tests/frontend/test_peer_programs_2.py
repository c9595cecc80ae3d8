"""A second set of programs written the way public NumPy scripts are (``tests/helpers/peer_programs``:
a char-RNN on module globals, a policy-gradient agent with a ``model`` dict, skip-gram with
negative sampling, an MLP as free functions over a parameter tuple, an attention decoder with a
``@dataclass`` state, a CNN from ``sliding_window_view``), run unchanged with ``janus.jit``
added from outside against the same code run by Python: results, types, module and object
state after the steps, the legacy global RNG and ``Generator`` streams, printed output. Each
test also asserts how far each entry point converted: compiled, or split around what runs in
Python (never the whole call)."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

import janus
from tests.helpers.peer_programs import char_rnn, mlp_nets, mlp_train, pong_pg, seq2seq, skipgram, window_cnn
from tests.helpers.peer_state import assert_compiled as compiled, assert_split as split, restore, same_tree, snapshot


def run_both(module: Any, names: tuple[str, ...], steps: Callable[[Callable], Any], fn: Callable,
             seed: int | None = None) -> tuple[Any, Any, dict, dict]:
    """``steps(fn)`` compiled, then by Python from the same module state (and legacy RNG seed):
    both results and the module state each left."""
    start = snapshot(module, names)
    jf = janus.jit(fn, warmup=1)
    if seed is not None:
        np.random.seed(seed)
    got = steps(jf)
    got_rng, got_state = np.random.get_state(), snapshot(module, names)
    restore(module, start)
    if seed is not None:
        np.random.seed(seed)
    want = steps(fn)
    want_rng, want_state = np.random.get_state(), snapshot(module, names)
    restore(module, start)
    same_tree(got_state, want_state)
    assert all(np.array_equal(a, b) for a, b in zip(got_rng, want_rng))  # the legacy RNG stream
    return jf, got, want, got_state


# ---- char-RNN: globals, dicts keyed by time step, clip(out=), Adagrad over zip --------------------
RNN_STATE = ("Wxh", "Whh", "Why", "bh", "by", "mWxh", "mWhh", "mWhy", "mbh", "mby")


def test_char_rnn_training_steps_match_python_and_compile():
    data = [char_rnn.char_to_ix[c] for c in char_rnn.data]

    def steps(train: Callable) -> list:
        h, out = np.zeros((char_rnn.hidden_size, 1)), []
        for p in range(0, 16, 4):
            loss, h = train(data[p:p + 8], data[p + 1:p + 9], h)
            out.append((loss, h))
        return out

    jf, got, want, state = run_both(char_rnn, RNN_STATE, steps, char_rnn.train_step)
    same_tree(got, want)
    assert not np.array_equal(state["Wxh"], char_rnn.Wxh)  # the steps did update the globals
    compiled(jf)


def test_char_rnn_sampling_keeps_the_legacy_rng_stream():
    h = np.random.default_rng(0).standard_normal((char_rnn.hidden_size, 1))

    def steps(sample: Callable) -> list:
        return [sample(h, seed_ix, 6) for seed_ix in (1, 3, 1, 2)]

    jf, got, want, _ = run_both(char_rnn, RNN_STATE, steps, char_rnn.sample, seed=5)
    same_tree(got, want)
    split(jf, "RandomState.choice")  # the draw runs in Python (p=, a view of the softmax), the RNN step compiled


# ---- policy gradient: a model dict, legacy RNG actions, discounted returns -----------------------
PG_STATE = ("model", "grad_buffer", "rmsprop_cache")


def test_policy_gradient_actions_keep_the_legacy_rng_stream():
    xs = np.random.default_rng(1).standard_normal((5, pong_pg.D))

    def steps(act: Callable) -> list:
        return [act(x) for x in xs]

    jf, got, want, _ = run_both(pong_pg, PG_STATE, steps, pong_pg.act, seed=3)
    same_tree(got, want)
    split(jf, "RandomState.uniform")


def episode(rng: np.random.Generator, n: int) -> tuple:
    """One episode's records (the rewards the same each time: one version of ``discount_rewards``'s branches)."""
    hs = [np.maximum(rng.standard_normal(pong_pg.H), 0) for _ in range(n)]
    rewards = [0.0, 1.0, 0.0, 0.0, -1.0, 0.0][:n]
    return [rng.standard_normal(pong_pg.D) for _ in range(n)], hs, [float(d) for d in rng.standard_normal(n)], rewards


def test_policy_gradient_episode_and_rmsprop_updates_match_python():
    episodes = [episode(np.random.default_rng(s), 6) for s in range(3)]

    def steps(finish: Callable) -> list:
        return [finish(*e) for e in episodes]

    jf, got, want, state = run_both(pong_pg, PG_STATE, steps, pong_pg.finish_episode)
    same_tree(got, want)
    assert np.any(state["grad_buffer"]["W1"])
    compiled(jf)
    restore(pong_pg, {"grad_buffer": state["grad_buffer"]})
    jf, got, want, _ = run_both(pong_pg, PG_STATE, lambda update: [update() for _ in range(3)], pong_pg.rmsprop_update)
    same_tree(got, want)
    compiled(jf)


def test_discounted_rewards_match_python():
    discount = janus.jit(pong_pg.discount_rewards, warmup=1)
    for r in (np.array([0.0, 0.0, 1.0, 0.0, -1.0]), np.array([1.0, 0.0, 0.0, 0.0, 0.0]), np.zeros(5)) * 2:
        same_tree(discount(r), pong_pg.discount_rewards(r))
    # ``running_add = 0`` on one side of a data-dependent branch, an array on the other (``trace/either.py``)
    compiled(discount)


# ---- skip-gram with negative sampling: rows by index, np.add.at, a Generator -----------------------
def test_skipgram_pairs_update_embeddings_as_in_python():
    model_jit, model_py = skipgram.SkipGram(12, 5, seed=2), skipgram.SkipGram(12, 5, seed=2)
    train = janus.jit(skipgram.SkipGram.train_pairs, warmup=1)
    pairs = [(1, 2), (2, 3), (4, 5), (3, 1)]
    for _ in range(4):
        same_tree(train(model_jit, pairs), model_py.train_pairs(pairs))
        same_tree(model_jit, model_py)  # both embedding matrices and the Generator's state
    split(train, "Generator.integers")
    nearest = janus.jit(skipgram.SkipGram.most_similar, warmup=1)
    for word in (3, 3, 5, 7):  # the word relaxed to an int input on its first change
        same_tree(nearest(model_jit, word), model_py.most_similar(word))
    compiled(nearest)


def test_item_assignment_into_a_heap_array_through_a_live_view_runs_in_python():
    class Table:
        def __init__(self):
            self.W = np.arange(12.0).reshape(4, 3)

        def bump(self, i, g):
            row = self.W[i]  # a view: NumPy's write below shows through it
            self.W[i] -= g
            return row * 1.0

    t_jit, t_py = Table(), Table()
    bump = janus.jit(Table.bump, warmup=1, fallback="silent")
    g = np.ones(3)
    for _ in range(3):
        same_tree(bump(t_jit, 2, g), t_py.bump(2, g))
        same_tree(t_jit, t_py)
    assert "live view" in janus.explain(bump)


# ---- an MLP as free functions in a helper module over a parameter tuple -----------------------------
def test_mlp_tuple_params_step_and_epoch_match_python(capsys):
    rng = np.random.default_rng(4)
    X, y = rng.standard_normal((16, 5)), rng.integers(0, 3, 16)
    step = janus.jit(mlp_train.sgd_step, warmup=1)
    p_jit = p_py = mlp_nets.init_params((5, 7, 3))
    for _ in range(3):
        (p_jit, loss_jit), (p_py, loss_py) = step(p_jit, X, y), mlp_train.sgd_step(p_py, X, y)
        same_tree((p_jit, loss_jit), (p_py, loss_py))
    compiled(step)
    epoch = janus.jit(mlp_train.train_epoch, warmup=1)
    p_jit = p_py = mlp_nets.init_params((5, 7, 3), seed=1)
    for verbose in (False, True, False, True, True):
        order = rng.permutation(16)
        p_jit, losses_jit = epoch(p_jit, X, y, order, 8, verbose)
        printed = capsys.readouterr().out
        p_py, losses_py = mlp_train.train_epoch(p_py, X, y, order, 8, verbose)
        assert printed == capsys.readouterr().out and printed.startswith("epoch") == verbose
        same_tree((p_jit, losses_jit), (p_py, losses_py))
    split(epoch, "print")  # the %-formatted line is made and printed in Python after the compiled loop


# ---- an attention decoder: a @dataclass state replaced field by field, greedy argmax tokens ---------
def test_seq2seq_greedy_decoding_matches_python_and_compiles():
    model = seq2seq.Seq2Seq(7, 6, seed=1)
    greedy = janus.jit(seq2seq.Seq2Seq.greedy, warmup=1)
    for tokens in ([1, 2, 3, 4], [4, 3, 2, 1], [5, 6, 1, 2]):
        got, want = greedy(model, tokens), model.greedy(tokens)
        same_tree(got, want)
        assert all(type(t) is int for t in got[0])  # ``int(np.argmax(...))``: Python ints, as in Python
    compiled(greedy)


# ---- a CNN from sliding_window_view + einsum, a dense head trained on its features -------------------
def test_window_cnn_head_steps_match_python():
    net_jit, net_py = window_cnn.init(), window_cnn.init()
    rng = np.random.default_rng(5)
    step = janus.jit(window_cnn.head_step, warmup=1)
    for _ in range(3):
        images, labels = rng.standard_normal((4, 8, 8)), rng.integers(0, 3, 4)
        same_tree(step(net_jit, images, labels), window_cnn.head_step(net_py, images, labels))
        same_tree(net_jit, net_py)
    # sliding_window_view is an op-table gather: the whole step compiles
    compiled(step)


@pytest.mark.parametrize("n", [2, 5])
def test_a_dead_view_after_a_loop_does_not_stop_a_split(n, capsys):
    def total(x, n):
        parts = []
        for i in range(0, 6, n):
            part = x[i:i + n]  # a view of the argument, dead once the loop ends
            parts.append(part.sum())
        print("%d parts, %.3f" % (len(parts), sum(parts)))
        return np.stack(parts)

    jf = janus.jit(total, warmup=1)
    x = np.arange(6.0)
    for _ in range(3):
        got = jf(x, n)
        printed = capsys.readouterr().out
        same_tree(got, total(x, n))
        assert printed == capsys.readouterr().out
    split(jf, "print")


def test_int_of_a_float_array_that_varies_is_not_a_graph_int():
    def scaled(x):
        n = int(x.sum() * 1e10)  # leaves int64 for large sums: Python's int keeps growing
        return n * 3

    jf = janus.jit(scaled, warmup=1, fallback="silent")
    for x in (np.ones(2), np.full(2, 2.0), np.full(2, 1e12)):
        assert jf(x) == scaled(x) and type(jf(x)) is int
    assert "int runs in Python" in janus.explain(jf)  # a boundary: Python converts it
