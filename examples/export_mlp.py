"""Train a NumPy MLP in Python, export its inference with ``janus.export``, and run the .vmfb
with IREE's own ``iree-run-module`` (no Python in that process): same answer as NumPy.

Run: ``.venv/bin/python examples/export_mlp.py [out_dir]``.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np

import janus


def predict(x, W1, b1, W2, b2):
    h = np.maximum(x @ W1 + b1, 0.0)
    return h @ W2 + b2


def train(x: np.ndarray, y: np.ndarray, steps: int = 200, lr: float = 0.05) -> list[np.ndarray]:
    rng = np.random.default_rng(0)
    W1, W2 = (rng.standard_normal(s).astype(np.float32) * 0.3 for s in [(x.shape[1], 32), (32, y.shape[1])])
    b1, b2 = np.zeros(32, np.float32), np.zeros(y.shape[1], np.float32)
    for _ in range(steps):
        h = np.maximum(x @ W1 + b1, 0.0)
        d = 2 * (h @ W2 + b2 - y) / len(x)
        dh = (d @ W2.T) * (h > 0)
        W2 -= lr * h.T @ d
        b2 -= lr * d.sum(0)
        W1 -= lr * x.T @ dh
        b1 -= lr * dh.sum(0)
    return [W1, b1, W2, b2]


def main(out: Path) -> None:
    rng = np.random.default_rng(1)
    x = rng.standard_normal((256, 8)).astype(np.float32)
    params = train(x, np.sin(x[:, :2]))
    sample = x[:4]
    out.mkdir(parents=True, exist_ok=True)
    done = janus.export(predict, sample, *params, path=out / "mlp.vmfb", params=["W1", "b1", "W2", "b2"])
    np.save(out / "x.npy", sample)
    print("$", " ".join(done.command))
    command = [str(Path(sys.executable).parent / done.command[0]), *done.command[1:]]
    print(subprocess.run(command, cwd=out, capture_output=True, text=True, check=True).stdout.strip())
    print("NumPy:", np.array2string(predict(sample, *params), precision=6, separator=" "))


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "export-demo"))
