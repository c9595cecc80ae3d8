"""Co-execution on programs written apart from the zoo and the segment tests: a training
loop printing its loss every few steps, a model serializing its config with ``json``, an
RL rollout drawing actions with ``rng.choice`` into lists, a loop logging through a helper
module. Each runs plain and jitted in lockstep (results, stdout, heap, lists, Generator
state, log records); its array work must run compiled, not the whole call in Python."""

from __future__ import annotations

import json
import logging

import numpy as np
import pytest

import janus
from tests.helpers import assert_same, training_log
from tests.helpers.coexec import lockstep, no_cost_rule, segment_calls  # noqa: F401 (an autouse fixture)

CALLS = 6


class Regressor:
    def __init__(self):
        self.W = np.arange(6.0).reshape(3, 2) / 8.0
        self.b = np.zeros(2)
        self.history = []


def fit(model, X, Y, steps, lr, every):
    loss = 0.0
    for step in range(steps):
        err = X @ model.W + model.b - Y
        loss = float((err ** 2).mean())
        model.W -= lr * (X.T @ err) / len(X)
        model.b -= lr * err.mean(axis=0)
        if step % every == 0:
            print(f"step {step:3d} loss {loss:.6f} |b| {np.abs(model.b).sum():.4f}")
        model.history.append(loss)
    return err  # the last residuals (a float would compare exactly: compiled sums round apart)


def test_a_training_loop_printing_its_loss_every_few_steps(capsys):
    models = [Regressor(), Regressor()]
    calls = [lambda m, i=i: (m, np.arange(12.0).reshape(4, 3) / 8.0 + i % 2, np.ones((4, 2)), 3, 0.125, 2)
             for i in range(2 * CALLS)]
    jf = lockstep(fit, models, calls, capsys)
    assert models[1].history == pytest.approx(models[0].history, rel=1e-12)
    assert_same(models[1].W, models[0].W)
    assert segment_calls(jf)[0] == len(calls) - 1 and sum(segment_calls(jf)[1:]) > len(calls), segment_calls(jf)


class Net:
    def __init__(self):
        self.config = {"hidden": 4, "activation": "tanh", "scale": 0.5}
        self.W1 = np.arange(12.0).reshape(3, 4) / 12.0
        self.W2 = np.ones((4, 2)) / 4.0
        self.summaries = []

    def forward(self, x):
        h = np.tanh(x @ self.W1) * self.config["scale"]
        text = json.dumps(self.config, sort_keys=True)
        self.summaries.append(text)
        return h @ self.W2, len(text)


def test_a_model_serializing_its_config_with_json(capsys):
    nets = [Net(), Net()]
    jf = lockstep(Net.forward, nets, [lambda n, i=i: (n, np.arange(3.0) + i) for i in range(CALLS)], capsys)
    assert nets[1].summaries == nets[0].summaries
    assert all(segment_calls(jf)[:2]), segment_calls(jf)  # the array work before and after dumps


def rollout(W, rng, obs, steps):
    rewards, actions = [], []
    for _ in range(steps):
        logits = obs @ W
        p = np.exp(logits - logits.max())
        p = p / p.sum()
        a = rng.choice(len(p), p=p)
        actions.append(int(a))
        obs = np.tanh(obs + W[:, a])
        rewards.append(float(obs.sum()))
    return np.array(rewards), actions


def test_an_rl_rollout_with_rng_choice_and_list_appends(capsys):
    rngs = [np.random.default_rng(3), np.random.default_rng(3)]
    W = np.arange(6.0).reshape(3, 2) / 5.0
    jf = lockstep(rollout, rngs, [lambda r, i=i: (W, r, np.arange(3.0) / 3 + i, 4) for i in range(2 * CALLS)], capsys)
    assert rngs[1].bit_generator.state == rngs[0].bit_generator.state
    assert segment_calls(jf)[0] == 2 * CALLS - 1 and sum(segment_calls(jf)[1:]) > 2 * CALLS, segment_calls(jf)


def smoothed(x, steps):
    h = x
    for step in range(steps):
        h = 0.5 * h + np.tanh(h)
        training_log.record(step, norm=float(np.sqrt((h * h).sum())), peak=float(h.max()))
    return h


def test_a_loop_logging_through_a_helper_module(capsys, caplog):
    steps = 3
    with caplog.at_level(logging.INFO, logger="tests.training"):
        jf = lockstep(smoothed, [None, None], [lambda s, i=i: (np.arange(3.0) + i, steps) for i in range(CALLS)], capsys)
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 2 * steps * CALLS
    for call in range(CALLS):  # each call logs plain, then jitted: the same lines
        plain = lines[2 * steps * call:][:steps]
        assert lines[2 * steps * call + steps:][:steps] == plain
    assert all(segment_calls(jf)[:2]), segment_calls(jf)


class Scale:
    def __init__(self, w):
        self.w = w

    def __call__(self, x):
        return x * self.w


class Noise:
    """A layer drawing from NumPy's global generator (a split inside the layer's call)."""

    def __call__(self, x):
        return x + np.random.rand(*x.shape)


class Layers:
    def __init__(self):
        self.layers = [Scale(np.arange(3.0)), Noise(), Scale(np.ones(3) * 3), Noise(), Scale(np.ones(3) / 2)]

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


def test_a_layer_list_whose_layers_draw_from_the_global_generator():
    """The loop resumes after each drawing layer with the layers it has left (a list of
    objects passed by reference), so the layers after it compile too."""
    plain, jitted = Layers(), Layers()
    jf = janus.jit(Layers.forward, warmup=1, fallback="silent")
    for call in range(2 * CALLS):
        x = np.full(3, float(call))
        np.random.seed(call)
        want, drawn = Layers.forward(plain, x), np.random.get_state()
        np.random.seed(call)
        assert_same(jf(jitted, x), want)
        assert all(np.array_equal(a, b) for a, b in zip(np.random.get_state(), drawn))
    assert segment_calls(jf)[1] > 0 and "list of 3 objects" in janus.explain(jf), janus.explain(jf)


def noisy_double(x, seed):
    gen = np.random.default_rng(seed)  # a Generator made by the call: a Cython function at the boundary
    return x * 2.0 + gen.standard_normal(x.shape)


def test_a_generator_made_inside_the_call_splits_there(capsys):
    calls = [lambda state, s=s: (np.arange(4.0) * s, s) for s in range(CALLS)]
    jf = lockstep(noisy_double, [None, None], calls, capsys)
    assert "python: default_rng at" in janus.explain(jf), janus.explain(jf)
    assert segment_calls(jf)[0] >= 1, janus.explain(jf)
