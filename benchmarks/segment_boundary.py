"""What a segment boundary costs (co-execution, ``janus/frontend/segments.py``).

Not a test: run ``JANUS_CACHE_DIR=/tmp/jc-bench .venv/bin/python benchmarks/segment_boundary.py``.
The same array work (``steps`` small elementwise steps on a 64-vector) runs with 0, 1, 2,
4 and 8 Python operations between the steps; each operation is ``gc.isenabled()``, a C call of
about 30 ns, so nearly all of the difference is the boundary itself: one more compiled
segment launch (IREE local-sync), the state rebuilt after the segment, the resume
function's entry key and guards, and the continuation loop. After the last boundary only
``return x`` is left, which runs in Python (no array work: no launch), so k boundaries make
k launches in all, as the version without a boundary makes one. Per-boundary cost =
(time with k boundaries - time with none) / k. Times are the minimum over ``REPEATS``
rounds of ``CALLS`` calls each, in CPU time of this process (``time.process_time``): the
machine is shared and noisy, and the minimum is the least disturbed round. The split's cost
rule (``JitFunction.COST_CALLS``) is off here: it would run these small steps in Python,
where they are faster, and this script measures the boundary itself.
"""

from __future__ import annotations

import gc
import time

import numpy as np

import janus
from janus.frontend.jit import JitFunction

CALLS = 2000
REPEATS = 7
STEPS = 8


def make(boundaries: int):
    """A function of ``STEPS`` steps with a Python operation after ``boundaries`` of them."""
    every = STEPS // boundaries if boundaries else STEPS + 1
    lines = ["def f(x):"]
    for i in range(STEPS):
        lines.append("    x = x * 0.5 + 1.0")
        if boundaries and (i + 1) % every == 0:
            lines.append("    gc.isenabled()")
    lines.append("    return x")
    namespace = {"gc": gc, "np": np}
    exec("\n".join(lines), namespace)
    return namespace["f"]


def per_call(fn, x: np.ndarray) -> float:
    best = float("inf")
    for _ in range(REPEATS):
        start = time.process_time()
        for _ in range(CALLS):
            fn(x)
        best = min(best, (time.process_time() - start) / CALLS)
    return best


def main() -> None:
    JitFunction.COST_CALLS = 0
    x = np.linspace(0.0, 1.0, 64)
    base = None
    print(f"{'boundaries':>10} {'us/call':>9} {'us/boundary':>12}  segments compiled")
    for k in (0, 1, 2, 4, 8):
        plain = make(k)
        jf = janus.jit(plain, warmup=1, fallback="silent")
        for _ in range(2 * (k + 2)):  # warm every segment up and compile it
            np.testing.assert_allclose(jf(x), plain(x))
        t = per_call(jf, x) * 1e6
        base = t if k == 0 else base
        chain = _compiled_segments(jf)
        extra = f"{(t - base) / k:12.2f}" if k else f"{'':>12}"
        print(f"{k:>10} {t:9.2f} {extra}  {chain}")
    print(f"plain NumPy: {per_call(make(0), x) * 1e6:.2f} us/call")


def _compiled_segments(jf) -> int:
    """Compiled segments along the chain (the first one and every resume function's)."""
    seen, level, count = set(), [jf], 0
    while level:
        count += sum(bool(v.calls) for f in level for v in f.versions.values())
        seen.update(map(id, level))
        level = [v.resume for f in level for v in f.versions.values() if v.resume is not None and id(v.resume) not in seen]
    return count


if __name__ == "__main__":
    main()
