"""What a profiled (warm-up) run costs against the plain run of the same call (issue #15).

Not a test: run ``.venv/bin/python benchmarks/profile_cost.py [--rounds 3] [--baseline main]``
and read the table. Each workload is one call as ``janus.jit``'s warm-up makes it:
``run_profiled`` of the plain function, its recursive calls going through the jit function
(as they do in a warm-up run). Variants, alternated in one process, ``--rounds`` times each, CPU
time of this process (``time.process_time``; min and median):

- ``plain``: the call with profiling off (the jit functions swapped for their plain ones);
- ``bounded``: ``profiler.run_profiled`` as it is;
- ``full``: the same with ``profiler.QUIET_FRAMES = None`` (every frame observed);
- ``baseline``: with ``--baseline REV``, ``janus/frontend/profiler.py`` of git revision ``REV``
  loaded beside this one (the profiler before a change).
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType
from typing import Any, Callable

from janus.frontend import profiler
from janus.models import recursion, treernn
from janus.models.trees import SIZES, make_dataset

ROOT = Path(__file__).resolve().parent.parent


def scalar_workloads() -> dict[str, tuple[Callable, tuple]]:
    return {f"{name}{args}": (getattr(recursion, name), args) for name, (args, _) in recursion.CALLS.items()}


def tree_workloads() -> dict[str, tuple[Callable, tuple]]:
    hidden, vocab, *_ = SIZES["full"]
    model = treernn.TreeRNN(hidden, vocab)
    trees, _ = make_dataset("full")
    return {f"treernn-infer-b{b}": (treernn.TreeRNN.infer, (model, trees[:b])) for b in (1, 25)}


def load_baseline(rev: str) -> ModuleType:
    """``profiler.py`` of ``rev`` as a module of its own, sharing this one's ``RUNNING`` (the jit
    functions ask this module whether a profiled run is in progress). Not registered, but
    named as this one, whose frames (``profiling()``) it then does not observe either."""
    text = subprocess.run(["git", "-C", str(ROOT), "show", f"{rev}:janus/frontend/profiler.py"],
                          check=True, capture_output=True, text=True).stdout
    path = Path(tempfile.mkdtemp()) / "baseline_profiler.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(profiler.__name__, path)
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    module.RUNNING = profiler.RUNNING
    return module


def plain(jit_fn: Any, args: tuple) -> None:
    """The call with every recursion jit function of the zoo swapped for its plain function."""
    swapped = {name: getattr(recursion, name) for name in recursion.CALLS}
    for name, fn in swapped.items():
        setattr(recursion, name, fn.fn)
    try:
        jit_fn.fn(*args)
    finally:
        for name, fn in swapped.items():
            setattr(recursion, name, fn)


def profiled(module: ModuleType, quiet: int | None | str = "as is") -> Callable[[Any, tuple], None]:
    def run(jit_fn: Any, args: tuple) -> None:
        saved = profiler.QUIET_FRAMES
        if quiet != "as is":
            profiler.QUIET_FRAMES = quiet  # type: ignore[assignment]
        try:
            module.run_profiled(jit_fn.fn, args, {}, module.Profile())
        finally:
            profiler.QUIET_FRAMES = saved
    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--baseline", help="git revision whose profiler.py is the 'baseline' variant")
    parser.add_argument("--only", help="comma-separated workload names (prefixes)")
    parser.add_argument("--no-full", action="store_true", help="skip the 'full' variant")
    options = parser.parse_args()
    variants: dict[str, Callable[[Any, tuple], None]] = {"plain": plain, "bounded": profiled(profiler)}
    if not options.no_full:
        variants["full"] = profiled(profiler, None)
    if options.baseline:
        variants["baseline"] = profiled(load_baseline(options.baseline))
    workloads = {**scalar_workloads(), **tree_workloads()}
    if options.only:
        workloads = {k: v for k, v in workloads.items() if k.startswith(tuple(options.only.split(",")))}
    print(f"python {sys.version.split()[0]}, {options.rounds} round(s), CPU seconds (min / median)")
    print(f"{'workload':24}" + "".join(f"{v:>20}" for v in variants) + "   ratios to plain (median)")
    for name, (fn, args) in workloads.items():
        times: dict[str, list[float]] = {v: [] for v in variants}
        for _ in range(options.rounds):
            for variant, run in variants.items():
                started = time.process_time()
                run(fn, args)
                times[variant].append(time.process_time() - started)
        medians = {v: statistics.median(t) for v, t in times.items()}
        cells = "".join(f"{min(t):9.3f} / {medians[v]:8.3f}" for v, t in times.items())
        ratios = ", ".join(f"{v} {medians[v] / medians['plain']:.0f}x" for v in variants if v != "plain")
        print(f"{name:24}{cells}   {ratios}", flush=True)


if __name__ == "__main__":
    main()
