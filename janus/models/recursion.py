"""Scalar recursion: the classic call-bound benchmarks, written as plain recursive Python.

``specialize=False`` makes the int arguments graph inputs from the first compile. With
the default, a benchmark that always calls ``fib(25)`` gets a graph of constants, which
IREE evaluates once at compile time: the bench would time a cached constant, not the
recursion.
"""

from __future__ import annotations

from typing import Callable

import janus
from janus.models.workload import ModelSpec, Size, Workload


@janus.jit(specialize=False)
def fib(n: int) -> int:
    return n if n < 2 else fib(n - 1) + fib(n - 2)


@janus.jit(specialize=False)
def ackermann(m: int, n: int) -> int:
    if m == 0:
        return n + 1
    if n == 0:
        return ackermann(m - 1, 1)
    return ackermann(m - 1, ackermann(m, n - 1))


@janus.jit(specialize=False)
def tak(x: int, y: int, z: int) -> int:
    if y < x:
        return tak(tak(x - 1, y, z), tak(y - 1, z, x), tak(z - 1, x, y))
    return z


CALLS = {  # function name -> (full arguments, quick arguments)
    "fib": ((25,), (12,)),
    "ackermann": ((2, 3), (2, 3)),
    "tak": ((24, 16, 8), (12, 8, 4)),
}


def spec(name: str) -> ModelSpec:
    def build(size: Size) -> Workload:
        fn: Callable[..., int] = globals()[name]  # looked up at build time: janus-bench swaps the global
        args = CALLS[name][0 if size == "full" else 1]
        return Workload(lambda i: fn(*args), dict, 6, 4, "calls", 1, 0.0)

    shown = ", ".join(map(str, CALLS[name][0]))
    return ModelSpec(name, f"{name}({shown}), scalar recursion", "overhead", build, (__name__,))


SPECS = [spec(name) for name in CALLS]
