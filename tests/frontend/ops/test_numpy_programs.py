"""Small programs written the way NumPy users write them (not like the model zoo), using
gathers along an axis, products and sorts, run unchanged under ``janus.jit`` /
``janus.grad`` and compared with the same code run by Python: a REINFORCE policy step
(``np.take_along_axis`` of log-probabilities), a geometric-mean portfolio loss
(``np.prod``, ``np.cumprod``), a least-trimmed-squares regression (``np.sort``) and a
beam-search step (``np.argsort``, ``np.take_along_axis``, integer arithmetic on flat ids).
Each training step's gradient comes from janus-autodiff when jitted and from the eager
tape when Python runs it; one gradient of each is also checked by finite differences."""

from __future__ import annotations

from typing import Any

import numpy as np

import janus
from tests.helpers import assert_same, check_compiled
from tests.helpers.grad_cases import central_differences


# ---- REINFORCE on a contextual bandit -------------------------------------------------------
def log_softmax(z):
    z = z - z.max(axis=1, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=1, keepdims=True))


def policy_loss(W, states, actions, rewards):
    logp = log_softmax(states @ W)
    chosen = np.take_along_axis(logp, actions[:, None], axis=1)[:, 0]
    advantage = rewards - rewards.mean()
    return -np.mean(chosen * advantage)


def reinforce_step(W, states, actions, rewards, lr):
    loss, dW = janus.value_and_grad(policy_loss)(W, states, actions, rewards)
    return W - lr * dW, loss


def bandit_batch(rng: np.random.Generator, W: np.ndarray, dtype: Any) -> tuple:
    """Actions sampled from the current policy (in NumPy, outside the step), rewarded for
    matching the context's strongest feature."""
    states = rng.standard_normal((16, 5)).astype(dtype)
    z = (states @ W).astype(np.float64)
    p = np.exp(z - z.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    actions = np.array([rng.choice(3, p=row) for row in p])
    rewards = (actions == np.argmax(states[:, :3], axis=1)).astype(dtype)
    return states, actions, rewards


def test_reinforce_training_matches_python() -> None:
    rng = np.random.default_rng(0)
    step = janus.jit(reinforce_step, warmup=1)
    W_jit = W_py = np.zeros((5, 3), np.float32)
    for _ in range(12):
        states, actions, rewards = bandit_batch(rng, W_py, np.float32)
        W_jit, loss_jit = step(W_jit, states, actions, rewards, 0.5)
        W_py, loss_py = reinforce_step(W_py, states, actions, rewards, 0.5)
        np.testing.assert_allclose(loss_jit, loss_py, rtol=1e-4, atol=1e-6)
        np.testing.assert_allclose(W_jit, W_py, rtol=1e-4, atol=1e-5)
    (version,) = step.versions.values()
    assert version.calls == 11, janus.explain(step)


def test_reinforce_gradient_matches_finite_differences() -> None:
    rng = np.random.default_rng(1)
    W = rng.standard_normal((5, 3)) * 0.3
    states, actions, rewards = bandit_batch(rng, W, np.float64)
    g = janus.grad(policy_loss, warmup=1)
    g(W, states, actions, rewards)
    assert g.versions, janus.explain(g)
    np.testing.assert_allclose(g(W, states, actions, rewards), central_differences(policy_loss, [W, states, actions, rewards], 0),
                               rtol=1e-6, atol=1e-9)


# ---- a geometric-mean portfolio loss ----------------------------------------------------------
def geometric_mean(x, axis=0):
    return np.prod(x, axis=axis) ** (1.0 / x.shape[axis])


def portfolio_loss(w, returns):
    weights = np.exp(w) / np.sum(np.exp(w))
    growth = 1.0 + returns @ weights  # per period
    wealth = np.cumprod(growth)
    drawdown = np.max(wealth) - wealth[-1]
    return -np.log(geometric_mean(growth)) + 0.5 * drawdown ** 2


def test_portfolio_gradient_compiled_matches_python_and_finite_differences() -> None:
    rng = np.random.default_rng(2)
    returns = rng.normal(0.002, 0.02, (24, 4))
    w = rng.standard_normal(4) * 0.1
    g = janus.grad(portfolio_loss, warmup=1)
    want = g(w, returns)  # the eager tape
    assert g.versions, janus.explain(g)
    (version,) = g.versions.values()
    got = g(w, returns)
    assert version.calls == 1
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-13)
    np.testing.assert_allclose(got, central_differences(portfolio_loss, [w, returns], 0), rtol=1e-6, atol=1e-9)


# ---- least trimmed squares: the largest residuals left out ------------------------------------
def trimmed_loss(w, X, y, keep):
    residuals = np.sort((X @ w - y) ** 2)
    return np.mean(residuals[:keep])


def lts_step(w, X, y, lr):
    loss, dw = janus.value_and_grad(trimmed_loss)(w, X, y, 12)
    return w - lr * dw, loss


def test_trimmed_regression_training_matches_python() -> None:
    rng = np.random.default_rng(3)
    X = rng.standard_normal((16, 3)).astype(np.float32)
    y = X @ np.float32([1.0, -2.0, 0.5])
    y[[2, 7, 11]] += np.float32([8.0, -9.0, 7.0])  # outliers the trimmed loss ignores
    step = janus.jit(lts_step, warmup=1)
    w_jit = w_py = np.zeros(3, np.float32)
    for _ in range(25):
        w_jit, loss_jit = step(w_jit, X, y, 0.2)
        w_py, loss_py = lts_step(w_py, X, y, 0.2)
        np.testing.assert_allclose(loss_jit, loss_py, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(w_jit, w_py, rtol=1e-4, atol=1e-5)
    (version,) = step.versions.values()
    assert version.calls == 24, janus.explain(step)
    np.testing.assert_allclose(w_py, [1.0, -2.0, 0.5], atol=0.1)  # it fits the inliers


def test_trimmed_gradient_matches_finite_differences() -> None:
    rng = np.random.default_rng(4)
    X, y, w = rng.standard_normal((10, 3)), rng.standard_normal(10), rng.standard_normal(3)
    g = janus.grad(trimmed_loss, warmup=1)
    g(w, X, y, 7)
    assert g.versions, janus.explain(g)
    np.testing.assert_allclose(g(w, X, y, 7), central_differences(trimmed_loss, [w, X, y, 7], 0), rtol=1e-6, atol=1e-9)


# ---- one beam-search step ---------------------------------------------------------------------
def beam_step(scores, h, W, E, beam):
    logp = log_softmax(h @ W)  # (beam, vocab)
    vocab = logp.shape[1]
    total = (scores[:, None] + logp).reshape(-1)
    best = np.argsort(-total, kind="stable")[:beam]
    parents, tokens = best // vocab, best % vocab
    new_scores = np.take_along_axis(total, best, axis=0)
    new_h = np.tanh(h[parents] + E[tokens])
    return new_scores, new_h, tokens


def test_beam_step_compiled_matches_python() -> None:
    rng = np.random.default_rng(5)
    h = rng.standard_normal((3, 4)).astype(np.float32)
    W, E = rng.standard_normal((4, 6)).astype(np.float32), rng.standard_normal((6, 4)).astype(np.float32)
    scores = np.zeros(3, np.float32)
    jf = check_compiled(beam_step, scores, h, W, E, 3)
    for _ in range(3):
        want = beam_step(scores, h, W, E, 3)
        got = jf(scores, h, W, E, 3)
        assert_same(got, want)
        scores, h, _ = want
