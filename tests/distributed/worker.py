"""Programs the distributed tests run under ``mpiexec -n N`` (``python worker.py SCENARIO``).

Each prints ``rank R: ...`` lines the test reads; a failed check raises, which aborts the
job (``janus.distributed.init``), so a broken scenario shows as a non-zero exit.
"""

from __future__ import annotations

import os
import signal
import sys
import time

import numpy as np

import janus
import janus.distributed as dist

F32 = np.float32
BATCH, STEPS = 16, 8


def loss_fn(model: "MLP", x: np.ndarray, y: np.ndarray) -> np.ndarray:
    h = np.tanh(x @ model.W1 + model.b1)
    d = h @ model.W2 + model.b2 - y
    return np.mean(d * d)


class MLP:
    """16-32-4; ``step`` averages the gradients over the ranks between gradient and update."""

    def __init__(self, seed: int = 0, lr: float = 0.1) -> None:
        rng = np.random.default_rng(seed)
        self.W1 = (rng.standard_normal((16, 32)) * 0.3).astype(F32)
        self.b1 = np.zeros(32, F32)
        self.W2 = (rng.standard_normal((32, 4)) * 0.3).astype(F32)
        self.b2 = np.zeros(4, F32)
        self.lr = lr
        self.outliers = 0

    def step(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        loss, g = janus.value_and_grad(loss_fn)(self, x, y)
        g = dist.allreduce(g)
        if np.abs(x).max() > 50.0:  # rank-local, after the collective: a guard that may fail on one rank
            self.outliers = self.outliers + 1
        self.W1 = self.W1 - self.lr * g["W1"]
        self.b1 = self.b1 - self.lr * g["b1"]
        self.W2 = self.W2 - self.lr * g["W2"]
        self.b2 = self.b2 - self.lr * g["b2"]
        return loss


class JitMLP(MLP):
    step = janus.jit(MLP.step)


def say(text: str) -> None:
    """One line in one write: the ranks' lines reach mpiexec's output whole."""
    os.write(1, f"rank {dist.rank()}: {text}\n".encode())


def batch(step: int, outlier: bool = False) -> tuple[np.ndarray, np.ndarray]:
    x = np.random.default_rng(100 + step).standard_normal((BATCH, 16)).astype(F32)
    y = np.stack([np.sin(x[:, 0]), x[:, 1] * x[:, 2], np.cos(x[:, 3]), x[:, 4]], axis=1).astype(F32)
    if outlier:  # in the last rank's shard only
        x[-1, 15] = 60.0
    return x, y


def shard(a: np.ndarray) -> np.ndarray:
    n = len(a) // dist.size()
    return a[dist.rank() * n : (dist.rank() + 1) * n]


def params(model: MLP) -> list[np.ndarray]:
    return [model.W1, model.b1, model.W2, model.b2]


def train(outlier_step: int = -1) -> None:
    """N ranks on shards == one process on the whole batch; all ranks hold the same
    parameters. At ``outlier_step`` only the last rank's shard has an outlier: its compiled
    step fails a guard after the all-reduce and re-runs in Python (replaying the reduction)."""
    model, reference = JitMLP(seed=dist.rank()), MLP()
    dist.broadcast_parameters(model)  # rank 0's initial parameters everywhere
    for step in range(STEPS):
        x, y = batch(step, outlier=step == outlier_step)
        model.step(shard(x), shard(y))
        _plain_step(reference, x, y)
    for got, want in zip(params(model), params(reference)):
        np.testing.assert_allclose(got, want, rtol=2e-4, atol=2e-5)
    mine = np.concatenate([p.ravel() for p in params(model)])
    # the same steps on every rank; a rank that re-ran a step in NumPy may differ by rounding
    np.testing.assert_allclose(mine, dist.broadcast(mine), rtol=1e-6, atol=1e-7, err_msg="ranks diverged")
    compiled = sum(v.calls for v in JitMLP.step.versions.values())
    failed = sum(1 for e in JitMLP.step.events if "guard" in e and "failed" in e)
    say(f"OK compiled={compiled} guard_failures={failed} outliers={model.outliers}")


def _plain_step(model: MLP, x: np.ndarray, y: np.ndarray) -> None:
    """One SGD step of one process on the whole batch (the oracle): plain NumPy gradients."""
    h = np.tanh(x @ model.W1 + model.b1)
    d = h @ model.W2 + model.b2 - y
    dd = (2 / d.size) * d
    dh = (dd @ model.W2.T) * (1 - h * h)
    model.W2 = model.W2 - model.lr * (h.T @ dd)
    model.b2 = model.b2 - model.lr * dd.sum(0)
    model.W1 = model.W1 - model.lr * (x.T @ dh)
    model.b1 = model.b1 - model.lr * dh.sum(0)


def fail(how: str) -> None:
    """Rank 1 fails at step 3 (raises, exits, is killed, or is stuck); the others must stop."""
    model = JitMLP()
    for step in range(STEPS):
        if dist.rank() == 1 and step == 3:
            if how == "raise":
                raise RuntimeError("rank 1 fails mid-training")
            if how == "exit":
                os._exit(3)
            if how == "stuck":
                time.sleep(120)
            os.kill(os.getpid(), signal.SIGKILL)
        x, y = batch(step)
        model.step(shard(x), shard(y))
    say("finished (should not happen)")


def shapes() -> None:
    """Ranks that disagree on shapes all raise the same clear error, imperative or compiled,
    and the next well-formed collective still gives the right answer."""
    n = 3 if dist.rank() == 0 else 4
    try:
        dist.allreduce(np.ones(n, F32))
    except ValueError as e:
        say(f"imperative ValueError: {e}")

    @janus.jit
    def reduce(x: np.ndarray) -> np.ndarray:
        return dist.allreduce(x * 2.0, op="sum")

    for _ in range(5):  # compiled from the 4th call on
        assert np.allclose(reduce(np.ones(3, F32)), 2.0 * dist.size())
    try:
        reduce(np.ones(3 if dist.rank() == 0 else 5, F32))  # rank 0 compiled, rank 1 profiling
    except ValueError as e:
        say(f"jit ValueError: {e}")
    model = MLP()
    if dist.rank() == 1:
        model.extra = {"w": np.zeros(2)}
    try:
        dist.broadcast_parameters(model)
    except ValueError as e:
        say(f"broadcast ValueError: {e}")
    assert np.allclose(dist.allreduce(np.full(2, dist.rank() + 1.0), op="sum"), sum(range(1, dist.size() + 1)))
    say("OK")


if __name__ == "__main__":
    dist.init(timeout=float(os.environ.get("WORKER_TIMEOUT", "20")))
    scenario = sys.argv[1]
    if scenario == "train":
        train()
    elif scenario == "guard":
        train(outlier_step=5)
    elif scenario in ("raise", "exit", "kill", "stuck"):
        fail(scenario)
    elif scenario == "shapes":
        shapes()
    else:
        raise SystemExit(f"unknown scenario {scenario}")
