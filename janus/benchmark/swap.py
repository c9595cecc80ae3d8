"""Which program runs: the model as written, or as if its ``janus.jit`` lines were deleted.

The ``janus.jit`` functions of a model are module globals or class attributes; recursive
functions call themselves through the global. Swapping them where they live therefore
changes every call, recursive ones included: ``plain_python`` gives the imperative oracle
with no jit wrapper left, ``fresh_jit`` a new ``JitFunction`` per function whose counters
(compiles, fallbacks, compile time) belong to this run alone.
"""

from __future__ import annotations

import importlib
from contextlib import contextmanager
from typing import Any, Callable, Iterator

from janus.frontend.jit import JitFunction
from janus.frontend.speculation import Speculation


def jit_sites(module_names: tuple[str, ...]) -> list[tuple[Any, str, JitFunction]]:
    """(owner, attribute, jit function) for every ``JitFunction`` in the modules' globals
    and in the classes they define."""
    sites: list[tuple[Any, str, JitFunction]] = []
    for name in module_names:
        module = importlib.import_module(name)
        owners = [module] + [v for v in vars(module).values() if isinstance(v, type) and v.__module__ == name]
        for owner in owners:
            sites.extend((owner, attr, value) for attr, value in vars(owner).items() if isinstance(value, JitFunction))
    return sites


@contextmanager
def swapped(module_names: tuple[str, ...], replace: Callable[[JitFunction], Any]) -> Iterator[dict[str, Any]]:
    """Replace each jit function by ``replace(it)`` while the block runs; yields the
    replacements by qualified name."""
    sites = jit_sites(module_names)
    replacements = {}
    for owner, attr, jf in sites:
        replacements[jf.__qualname__] = new = replace(jf)
        setattr(owner, attr, new)
    try:
        yield replacements
    finally:
        for owner, attr, jf in sites:
            setattr(owner, attr, jf)


def plain_python(module_names: tuple[str, ...]) -> Any:
    return swapped(module_names, lambda jf: jf.fn)


def fresh_jit(module_names: tuple[str, ...], switches: Speculation | None = None) -> Any:
    """Fresh jit functions, with the model's speculation switches or ``switches`` (ablation)."""
    return swapped(module_names, lambda jf: JitFunction(jf.fn, jf.warmup, switches or jf.switches))
