"""What ``janus.jit`` adds to a call it runs in Python, for each reason a call runs there.

Not a test: run ``python benchmarks/python_call_overhead.py``. A call janus decided to run
in Python should cost the plain call and well under a microsecond more. One row per
reason: the cost rule (REINFORCE ``Agent.act``, a split version slower than Python), a
refused key (the trace cannot convert this signature), a key whose ``python`` guard keeps
failing (the branch mostly takes the side left to Python), and a program no signature
converts (imperative for good, no keys). Each row times the jitted call and the plain one
alternately in this process, ``ROUNDS`` rounds of ``CALLS`` calls, and reports the best
round of each in CPU time (``time.process_time``: other processes' time slices do not
count). ``--profile`` prints where the jitted calls of one row spend their time.
"""

from __future__ import annotations

import argparse
import cProfile
import functools
import pstats
import time
import warnings
from typing import Any, Callable

import numpy as np

import janus
from janus.models.reinforce import Agent

ROUNDS, CALLS = 15, 2000


def refused(x: np.ndarray, k: int) -> np.ndarray:
    if k > 1:
        return x.real * 2.0  # ``.real`` does not convert: signatures with k > 1 are refused
    return x * 2.0


def python_side(x: np.ndarray) -> np.ndarray:
    y = x * 2.0
    if y.sum() > 0:
        print(end="")  # the side the graph leaves to Python (its ``python`` guard)
    return y


def imports(x: np.ndarray) -> np.ndarray:
    import math  # IMPORT_NAME: no signature converts

    return x + math.pi


def best_of(fn: Callable[[], Any], after: Callable[[], Any]) -> float:
    """Seconds per call of one round of ``CALLS`` calls (``after`` runs outside the clock)."""
    started = time.process_time()
    for _ in range(CALLS):
        fn()
    seconds = (time.process_time() - started) / CALLS
    after()
    return seconds


def rows() -> list[tuple[str, Callable[[], Any], Callable[[], Any], Callable[[], Any], Any]]:
    """(reason, jitted call, plain call, reset between rounds, the jit function), warmed up:
    each jit function has settled on running these calls in Python."""
    obs = np.array([0.01, -0.02, 0.03, 0.01], np.float32)
    agent, plain_agent = Agent(16), Agent(16)

    def clear() -> None:
        for who in (agent, plain_agent):
            who.observations.clear(), who.actions.clear()

    x = np.linspace(0.1, 1.0, 16)
    made = [("cost rule (REINFORCE Agent.act, hidden 16)", lambda: agent.act(obs),
             lambda: Agent.act.fn(plain_agent, obs), clear, Agent.act)]
    jitted = {name: janus.jit(fn, fallback="silent") for name, fn in
              (("refused", refused), ("python_side", python_side), ("imports", imports))}
    jitted["python_side"].SPLITS = False  # the guard fails on; with splits the branch would become a boundary
    for _ in range(4):
        jitted["python_side"](-x)  # the profile sees the side that converts
    made += [("refused key (x.real)", functools.partial(jitted["refused"], x, 2), functools.partial(refused, x, 2),
              lambda: None, jitted["refused"]),
             ("python guard keeps failing (print on one side)", functools.partial(jitted["python_side"], x),
              functools.partial(python_side, x), lambda: None, jitted["python_side"]),
             ("unsupported program (an import)", functools.partial(jitted["imports"], x),
              functools.partial(imports, x), lambda: None, jitted["imports"])]
    for _, jit_call, _, reset, _ in made:
        for _ in range(40):
            jit_call()
        reset()
    return made


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", type=int, metavar="ROW", help="cProfile the jitted calls of this row")
    options = parser.parse_args()
    warnings.simplefilter("ignore")
    made = rows()
    for reason, jit_call, _, _, jf in made:
        fallbacks = list(jf.fallbacks.values())
        assert fallbacks and not jf.versions, janus.explain(jf)
    if options.profile is not None:
        _, jit_call, _, reset, _ = made[options.profile]
        profiler = cProfile.Profile()
        profiler.runcall(lambda: [jit_call() for _ in range(20 * CALLS)])
        reset()
        pstats.Stats(profiler).sort_stats("tottime").print_stats(12)
        return
    print("| runs in Python because | plain (µs) | janus.jit (µs) | added (µs) |\n|---|---:|---:|---:|")
    for reason, jit_call, plain_call, reset, _ in made:
        jitted, plain = float("inf"), float("inf")
        for _ in range(ROUNDS):  # alternated: both see the same machine
            jitted = min(jitted, best_of(jit_call, reset))
            plain = min(plain, best_of(plain_call, reset))
        print(f"| {reason} | {plain * 1e6:.2f} | {jitted * 1e6:.2f} | {(jitted - plain) * 1e6:.2f} |")
    print(f"(CPU time per call, best of {ROUNDS} alternated rounds of {CALLS} calls)")


if __name__ == "__main__":
    main()
