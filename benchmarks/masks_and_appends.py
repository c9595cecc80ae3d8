"""Two peer programs that used to run (wholly or partly) in Python, jitted against plain NumPy.

Not a test: run ``JANUS_CACHE_DIR=/tmp/jc-bench PYTHONPATH=. .venv/bin/python benchmarks/masks_and_appends.py``.

- k-means (``tests/helpers/peer_programs/knn.py``): ``X[labels == j]`` in a helper called
  from a list comprehension, a boolean mask read (``janus/frontend/ops/masks.py``);
- numpy-ml layers (``numpyml_layers.py``): ``self.X.append(X)`` onto lists on the heap in
  every layer's forward (a deferred heap append, ``heap/access.py``), trained by
  ``Sequential.train_step``, whose ``update`` still runs in Python between segments.

Per call, CPU time of this process (``time.process_time``), plain and jitted alternated
round by round (the machine is shared); min and median over ``ROUNDS`` rounds of ``CALLS``
calls. Run it on another checkout (``PYTHONPATH``) for the before/after ratio.
"""

from __future__ import annotations

import statistics
import time
from typing import Any, Callable

import numpy as np

import janus
from tests.helpers.peer_programs import knn, numpyml_layers

CALLS = 50
ROUNDS = 7


def per_call(fn: Callable[[], Any]) -> float:
    start = time.process_time()
    for _ in range(CALLS):
        fn()
    return (time.process_time() - start) / CALLS


def compare(name: str, plain: Callable[[], Any], jitted: Callable[[], Any]) -> None:
    for _ in range(5):  # the warm-up: profiled runs and the compile
        jitted()
    times: dict[str, list[float]] = {"plain": [], "jit": []}
    for _ in range(ROUNDS):
        times["plain"].append(per_call(plain))
        times["jit"].append(per_call(jitted))
    line = ", ".join(f"{k} min {min(v) * 1e6:.0f} us median {statistics.median(v) * 1e6:.0f} us" for k, v in times.items())
    print(f"{name}: {line}; plain/jit (min) {min(times['plain']) / min(times['jit']):.2f}x")


def main() -> None:
    rng = np.random.default_rng(0)
    X = rng.standard_normal((2000, 8))
    centers = X[:4].copy()
    fit = janus.jit(knn.kmeans_fit, warmup=1, fallback="silent")
    compare("kmeans_fit (2000x8, k=4, 3 iterations)", lambda: knn.kmeans_fit(X, centers), lambda: fit(X, centers))

    xb, yb = rng.standard_normal((32, 64)), rng.standard_normal((32, 10))
    plain_net, jit_net = numpyml_layers.Sequential([64, 128, 10]), numpyml_layers.Sequential([64, 128, 10])
    step = janus.jit(numpyml_layers.Sequential.train_step, warmup=1, fallback="silent")
    compare("numpy-ml train_step (64-128-10, batch 32)", lambda: plain_net.train_step(xb, yb),
            lambda: step(jit_net, xb, yb))
    forward = janus.jit(numpyml_layers.Sequential.forward, warmup=1, fallback="silent")
    compare("numpy-ml forward, appending to the layers' lists", lambda: plain_net.forward(xb),
            lambda: forward(jit_net, xb))


if __name__ == "__main__":
    main()
