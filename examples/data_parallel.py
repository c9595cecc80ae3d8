"""Data-parallel training over MPI: ``mpiexec -n 2 .venv/bin/python examples/data_parallel.py``.

Every rank holds a replica of the model and trains on its shard of each batch; the
gradients are averaged over the ranks by ``janus.distributed.allreduce`` *inside* the
compiled ``janus.jit`` step (the ``janus_mpi`` host module), between the gradient and the
update. With ``--check`` rank 0 also trains one replica in plain NumPy on the whole,
concatenated batch: the parameters must agree (float32 tolerance).

1. ``mlp``: examples/demo.py's 16-256-4 regression MLP; its step takes
   ``janus.value_and_grad`` of the loss w.r.t. ``self`` and all-reduces the gradient dict.
2. ``lstm``: the zoo's LSTM language model (``janus.models.lstm``), unchanged: its own
   jitted step computes its gradients and updates its parameters in place. A second
   jitted call then averages the updated parameters over the ranks: for SGD that is the
   same update as averaging the gradients (mean(p - lr·g_r) = p - lr·mean(g_r)), with the
   same message size. Each rank keeps the recurrent state of its own sequences.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Callable

import numpy as np

import janus
import janus.distributed as dist
from janus.models.lstm import LSTMLanguageModel

F32 = np.float32


def loss_fn(model: "MLP", x: np.ndarray, y: np.ndarray) -> np.ndarray:
    h = np.tanh(x @ model.W1 + model.b1)
    d = h @ model.W2 + model.b2 - y
    return np.mean(d * d)


class MLP:
    """16-256-4 regression MLP; ``train_step`` is one data-parallel SGD step."""

    def __init__(self, seed: int, lr: float = 0.1) -> None:
        rng = np.random.default_rng(seed)
        self.W1 = (rng.standard_normal((16, 256)) * 0.3).astype(F32)
        self.b1 = np.zeros(256, F32)
        self.W2 = (rng.standard_normal((256, 4)) * 0.3).astype(F32)
        self.b2 = np.zeros(4, F32)
        self.lr = lr

    @janus.jit
    def train_step(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        loss, g = janus.value_and_grad(loss_fn)(self, x, y)
        g = dist.allreduce(g)  # the mean over the ranks, inside the compiled step
        self.W1 = self.W1 - self.lr * g["W1"]
        self.b1 = self.b1 - self.lr * g["b1"]
        self.W2 = self.W2 - self.lr * g["W2"]
        self.b2 = self.b2 - self.lr * g["b2"]
        return loss

    def parameters(self) -> list[np.ndarray]:
        return [self.W1, self.b1, self.W2, self.b2]


def numpy_mlp_step(model: MLP, x: np.ndarray, y: np.ndarray) -> None:
    """One process on the whole batch, hand-written NumPy gradients: the oracle."""
    h = np.tanh(x @ model.W1 + model.b1)
    d = h @ model.W2 + model.b2 - y
    dd = (2 / d.size) * d
    dh = (dd @ model.W2.T) * (1 - h * h)
    model.W2 = model.W2 - model.lr * (h.T @ dd)
    model.b2 = model.b2 - model.lr * dd.sum(0)
    model.W1 = model.W1 - model.lr * (x.T @ dh)
    model.b1 = model.b1 - model.lr * dh.sum(0)


def mlp_batch(step: int, size: int) -> tuple[np.ndarray, np.ndarray]:
    x = np.random.default_rng(step).standard_normal((size, 16)).astype(F32)
    return x, np.stack([np.sin(x[:, 0]), x[:, 1] * x[:, 2], np.cos(x[:, 3]), x[:, 4]], axis=1).astype(F32)


LSTM_PARAMETERS = ("E", "W", "b", "V", "c")


@janus.jit
def average_parameters(model: LSTMLanguageModel) -> None:
    """The replicas' parameters averaged, in one compiled call after the model's own step
    (one call for both is not convertible yet: the step updates them in place, and a
    jitted call may not rebind an attribute it updated in place)."""
    p = dist.allreduce({"E": model.E, "W": model.W, "b": model.b, "V": model.V, "c": model.c})
    model.E, model.W, model.b, model.V, model.c = p["E"], p["W"], p["b"], p["V"], p["c"]


def lstm_data_parallel_step(model: LSTMLanguageModel, tokens: np.ndarray, targets: np.ndarray) -> float:
    """The model's own (jitted) step on this rank's sequences, then the average."""
    loss = model.train_step(tokens, targets)
    average_parameters(model)
    return loss


def lstm_stream(vocab: int, batch: int, length: int) -> np.ndarray:
    """A (length, batch) token stream with structure to learn (as in the model zoo)."""
    rng = np.random.default_rng(1)
    successor = rng.permutation(vocab)
    stream = np.empty((length, batch), np.int64)
    stream[0] = rng.integers(0, vocab, batch)
    for t in range(1, length):
        stream[t] = np.where(rng.random(batch) < 0.8, successor[stream[t - 1]], rng.integers(0, vocab, batch))
    return stream


def shard(a: np.ndarray, axis: int = 0) -> np.ndarray:
    """This rank's equal share of ``a`` along ``axis``."""
    n = a.shape[axis] // dist.size()
    return np.take(a, range(dist.rank() * n, (dist.rank() + 1) * n), axis=axis)


def train_mlp(steps: int, batch: int, check: bool) -> Callable[[], None]:
    model = MLP(seed=dist.rank())  # different on purpose: broadcast_parameters makes them equal
    dist.broadcast_parameters(model)
    reference = MLP(seed=0) if check and dist.rank() == 0 else None
    step = 0

    def run() -> None:
        nonlocal step
        x, y = mlp_batch(step, batch)
        loss = model.train_step(shard(x), shard(y))
        if reference is not None and step < steps:
            numpy_mlp_step(reference, x, y)
        if step % 10 == 0 and dist.rank() == 0:
            print(f"mlp step {step:3d}: rank 0 shard loss {float(loss):.5f}")
        step += 1

    for _ in range(steps):
        run()
    if reference is not None:
        for got, want in zip(model.parameters(), reference.parameters()):
            np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
        print(f"mlp: {dist.size()} ranks on shards == one process on the batch after {steps} steps")
    return run


def train_lstm(steps: int, batch: int, check: bool, size: tuple[int, int, int, int] = (100, 16, 32, 5)) -> Callable[[], None]:
    vocab, embed, hidden, seq = size
    model = LSTMLanguageModel(vocab, embed, hidden, batch // dist.size(), seed=dist.rank())
    dist.broadcast_parameters(model)
    reference = LSTMLanguageModel(vocab, embed, hidden, batch, seed=0) if check and dist.rank() == 0 else None
    stream = lstm_stream(vocab, batch, 8 * seq + 1)
    step = 0

    def run() -> None:
        nonlocal step
        window = stream[step % 8 * seq : (step % 8 + 1) * seq + 1]
        loss = lstm_data_parallel_step(model, shard(window[:-1], 1), shard(window[1:], 1))
        if reference is not None and step < steps:
            LSTMLanguageModel.train_step.fn(reference, window[:-1], window[1:])
        if step % 10 == 0 and dist.rank() == 0:
            print(f"lstm step {step:3d}: rank 0 shard loss {float(loss):.5f}")
        step += 1

    for _ in range(steps):
        run()
    if reference is not None:
        for name in LSTM_PARAMETERS:
            np.testing.assert_allclose(getattr(model, name), getattr(reference, name), rtol=1e-4, atol=1e-5)
        print(f"lstm: {dist.size()} ranks on shards == one process on the batch after {steps} steps")
    return run


def steps_per_second(run: Callable[[], None], steps: int) -> float:
    """Steps per second of ``run`` (after the training above: compiled, warm)."""
    start = time.perf_counter()
    for _ in range(steps):
        run()
    return steps / (time.perf_counter() - start)


def compiled_calls(fn: janus.frontend.jit.JitFunction) -> int:
    return sum(v.calls for v in fn.versions.values())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", choices=["mlp", "lstm", "both"], default="both")
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--batch", type=int, default=256, help="global batch (MLP; the LSTM uses batch/16 sequences)")
    parser.add_argument("--check", action="store_true", help="rank 0 checks against one NumPy process on the whole batch")
    args = parser.parse_args()
    dist.init()
    if dist.rank() == 0:
        print(f"{dist.size()} rank(s); each trains on 1/{dist.size()} of every batch")
    if args.model in ("mlp", "both"):
        run = train_mlp(args.steps, args.batch, args.check)
        rate = steps_per_second(run, args.steps)
        if dist.rank() == 0:
            print(f"mlp: {rate:.0f} steps/s ({dist.size()} ranks, global batch {args.batch}; "
                  f"{compiled_calls(MLP.train_step)} compiled steps)")
    if args.model in ("lstm", "both"):
        run = train_lstm(args.steps, max(args.batch // 16, dist.size()), args.check)
        rate = steps_per_second(run, args.steps)
        if dist.rank() == 0:
            print(f"lstm: {rate:.0f} steps/s ({dist.size()} ranks; {compiled_calls(average_parameters)} compiled steps)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
