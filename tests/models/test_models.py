"""The zoo's hand-written gradients are right: each training step's update, divided by the
learning rate, matches central finite differences of the loss it returns (in float64, on
a few random coordinates of every parameter), run as plain Python."""

from __future__ import annotations

import copy
from typing import Any, Callable

import numpy as np
import pytest

from janus.benchmark.swap import plain_python
from janus.models import gan, lenet, lstm, reinforce, rntn, treelstm, treernn
from janus.models.trees import make_dataset

LR, EPS = 1e-6, 1e-5


def to_float64(model: Any) -> Any:
    for name, value in vars(model).items():
        if isinstance(value, np.ndarray) and value.dtype == np.float32:
            setattr(model, name, value.astype(np.float64))
        elif isinstance(value, tuple):
            setattr(model, name, tuple(v.astype(np.float64) for v in value))
    return model


def check(model: Any, loss_of: Callable[[Any], Any], module: str, coords: int = 3,
          pick: Callable[[str, Any], float] = lambda name, loss: float(loss)) -> None:
    """``pick(parameter, returned)``: the loss whose gradient moved that parameter."""
    model = to_float64(model)
    with plain_python((module,)):
        stepped = copy.deepcopy(model)
        stepped.lr = LR
        loss_of(stepped)
        rng = np.random.default_rng(0)
        for name, value in model.parameters().items():
            if name in ("h", "c_state"):  # carried LSTM state, not a parameter
                continue
            grad = (value - stepped.parameters()[name]) / LR
            for k in rng.choice(value.size, min(coords, value.size), replace=False):
                losses = []
                for sign in (1, -1):
                    probe = copy.deepcopy(model)
                    probe.lr = 0.0
                    probe.parameters()[name].flat[k] += sign * EPS
                    losses.append(pick(name, loss_of(probe)))
                fd = (losses[0] - losses[1]) / (2 * EPS)
                assert grad.flat[k] == pytest.approx(fd, rel=1e-4, abs=1e-7), (name, k)


def test_lstm_language_model() -> None:
    rng = np.random.default_rng(1)
    tokens = rng.integers(0, 20, (4, 3))
    model = lstm.LSTMLanguageModel(20, 5, 6, 3)
    model.state = tuple(rng.standard_normal((3, 6)).astype(np.float32) for _ in range(2))
    check(model, lambda m: m.train_step(tokens[:-1], tokens[1:]), lstm.__name__)


@pytest.mark.parametrize("model", [treernn.TreeRNN, rntn.RNTN, treelstm.TreeLSTM])
def test_tree_models(model) -> None:
    trees, labels = make_dataset("quick")
    check(model(4, 50), lambda m: m.train_step(trees[:3], labels[:3]), "janus.models.trees")


def test_lenet() -> None:
    rng = np.random.default_rng(1)
    images, labels = rng.standard_normal((2, 28, 28, 1)), rng.integers(0, 10, 2)
    check(lenet.LeNet5(), lambda m: m.train_step(images, labels), lenet.__name__)


def test_gan_discriminator_and_generator() -> None:
    rng = np.random.default_rng(1)
    z, real = rng.standard_normal((3, 4)), np.tanh(rng.standard_normal((3, 10)))
    model = gan.GAN(4, 6, 10)
    for name in ("g1", "g2", "d1", "d2"):  # zero biases put ReLU inputs exactly on the kink
        setattr(model, name, 0.1 * rng.standard_normal(getattr(model, name).shape))
    # the D loss moves the D parameters; the G loss (after D's step) the G parameters
    check(model, lambda m: m.train_step(z, real), gan.__name__,
          pick=lambda name, losses: float(losses[name.startswith("G") or name.startswith("g")]))


def test_reinforce_policy() -> None:
    rng = np.random.default_rng(1)
    obs, actions, returns = rng.standard_normal((5, 4)), rng.integers(0, 2, 5), rng.standard_normal(5)
    check(reinforce.Policy(6), lambda m: m.update(obs, actions, returns), reinforce.__name__)
