"""A branch on a graph value, one side of which does not convert (``print`` of a computed
value, a logger call, an f-string of a loss): when calls take that side often, the branch
becomes a segment boundary (``split.end_branch``): Python takes the condition's truth and
each side goes on as its own continuation, so a call taking the side that prints keeps
its array work compiled instead of running wholly in Python under a ``python`` guard.
Each program runs plain and jitted in lockstep (values, stdout, heap, log records)."""

from __future__ import annotations

import logging

import numpy as np
import pytest

import janus
from tests.helpers import assert_same
from tests.helpers.coexec import lockstep, no_cost_rule, segment_calls  # noqa: F401 (an autouse fixture)

CALLS = 14


class Model:
    def __init__(self):
        self.W = np.arange(16.0, dtype=np.float32).reshape(4, 4) / 32
        self.step = 0


def inputs(i: int) -> np.ndarray:
    return (np.arange(8.0, dtype=np.float32).reshape(2, 4) - i) / 8


def train_logging_by_argument(model, x, epoch):
    y = np.tanh(x @ model.W)
    loss = (y ** 2).mean()
    model.W -= 0.05 * x.T @ y
    if epoch % 3 == 0:
        print(f"epoch {epoch}: loss {loss:.5f}")
    return loss


def train_logging_by_counter(model, x):
    y = np.tanh(x @ model.W)
    loss = float((y ** 2).mean())
    model.W -= 0.05 * x.T @ y
    model.step += 1
    if model.step % 2 == 0:
        print("step", model.step, "loss", round(loss, 4))
    return y  # (a float compares exactly: compiled float32 sums round apart)


def train_logging_mostly(model, x, epoch):
    y = np.tanh(x @ model.W)
    model.W -= 0.05 * x.T @ y
    if epoch % 4 != 1:  # the profile sees this side more often than the other
        print(f"|y| = {np.abs(y).sum():.4f}")
    return y


def _boundaries(jf) -> list:
    return [v.graph.boundary for v in jf.versions.values() if v.graph.boundary is not None]


@pytest.mark.parametrize("fn, make", [
    (train_logging_by_argument, lambda i: lambda m: (m, inputs(i), i)),  # a relaxed int argument
    (train_logging_by_counter, lambda i: lambda m: (m, inputs(i))),  # a heap int read as a graph input
    (train_logging_mostly, lambda i: lambda m: (m, inputs(i), i)),  # the profile decides at once
], ids=["argument", "heap-counter", "profile"])
def test_a_branch_whose_side_prints_becomes_a_boundary(capsys, fn, make):
    models = [Model(), Model()]
    jf = lockstep(fn, models, [make(i) for i in range(CALLS)], capsys, warmup=3)
    assert_same(models[1].W, models[0].W)
    assert models[1].step == models[0].step
    (boundary,) = _boundaries(jf)
    assert boundary.at_branch and boundary.description == "bool"
    assert "python: bool at" in janus.explain(jf)
    # the last calls took both sides, each with its array work compiled
    assert segment_calls(jf)[0] >= 4, segment_calls(jf)
    assert not jf.fallbacks, jf.fallbacks


def test_a_logger_call_on_a_branch_splits_and_logs_the_same_records(capsys, caplog):
    log = logging.getLogger("tests.branch_boundaries")

    def step(model, x, epoch):
        y = np.tanh(x @ model.W)
        model.W -= 0.05 * x.T @ y
        if epoch % 2 == 0:
            log.warning("epoch %d |y| %.5f", epoch, float(np.abs(y).sum()))
        return y

    records = []
    for jitted in (False, True):
        caplog.clear()
        model = Model()
        f = janus.jit(step, warmup=3, fallback="silent") if jitted else step
        results = [f(model, inputs(i), i) for i in range(CALLS)]
        records.append(([(r.levelname, r.getMessage(), r.lineno, r.funcName) for r in caplog.records], results, model.W))
    (want_log, want, want_w), (got_log, got, got_w) = records
    assert got_log == want_log  # the record's line and function are the program's own
    assert_same(got, want)
    assert_same(got_w, want_w)
    assert [b.at_branch for b in _boundaries(f)] == [True]


def test_what_the_python_side_raises_propagates_after_the_compiled_part_committed(capsys):
    def checked(model, x, epoch):
        model.W -= 0.05 * x.T @ np.tanh(x @ model.W)
        total = model.W.sum()
        if epoch % 2 == 1:
            print(f"total {total:.4f}")
            if epoch == 11:
                raise ValueError(f"stopped at epoch {epoch}")
        return total

    models = [Model(), Model()]
    jf = lockstep(checked, models, [lambda m, i=i: (m, inputs(i), i) for i in range(CALLS)], capsys, warmup=3)
    assert_same(models[1].W, models[0].W)  # the step that raised committed its update, as Python did
    assert [b.at_branch for b in _boundaries(jf)] == [True]


def test_a_rare_python_side_keeps_its_guard(capsys):
    """Taken once in many calls, the side stays under a ``python`` guard (one launch per call)."""
    def rare(model, x, epoch):
        y = np.tanh(x @ model.W)
        if epoch == 9:
            print(f"sum {y.sum():.4f}")
        return y

    jf = lockstep(rare, [Model(), Model()], [lambda m, i=i: (m, inputs(i), i) for i in range(CALLS)], capsys, warmup=3)
    assert not _boundaries(jf)
    assert any(kind == "python" for v in jf.versions.values() for _, kind, _ in v.graph.guards)


def descend_until_converged(w, X, y, lr=0.1, max_iter=60):
    previous, i = np.inf, 0
    while i < max_iter:
        r = X @ w - y
        loss = 0.5 * np.mean(r ** 2)
        if abs(previous - loss) < 1e-3:  # a trip count that depends on array values
            break
        w = w - lr * X.T @ r / len(y)
        previous = loss
        i += 1
    return w, i


def test_a_loop_leaving_on_a_computed_condition_steps_through_boundaries(capsys):
    rng = np.random.default_rng(1)
    problems = [(np.zeros(3), rng.standard_normal((20, 3)), rng.standard_normal(20)) for _ in range(6)] * 3
    jf = lockstep(descend_until_converged, [None, None], [lambda state, p=p: p for p in problems], capsys, warmup=3)
    (boundary,) = _boundaries(jf)
    assert boundary.at_branch
    assert len(segment_calls(jf)) >= 2 and all(segment_calls(jf)[:2]), segment_calls(jf)
