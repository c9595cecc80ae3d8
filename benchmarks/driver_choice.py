"""How steady the CPU driver choice (``janus.runtime.drivers``) is, from a trace of real calls.

A zoo model runs compiled (full size unless ``--quick``) with every call of its slow
functions alternating between local-sync and local-task: a trace of pairs of consecutive
calls, one on each driver, under whatever load the machine has. The trace is then replayed
through the choice policy from many start points (each a fresh process of ``janus-bench``
seeing another stretch of the machine's load): at each call the policy picks a driver
and gets the time that driver's call took at that point of the trace. Reported per
policy: how often a replay ends on local-task, and the median call time of each replay's
steady calls (``janus-bench``'s step time), its spread over the replays. Twice: with the
pairs in the order they ran (the load changing as it did: another process taking a core
for a while), and shuffled (the same calls with no such stretches: what is left is each
call's own noise, the part a policy can average away; the stretches it can only follow).

``--policy PATH`` adds the ``DriverChoice`` of another ``drivers.py`` (an older one:
``git show <rev>:janus/runtime/drivers.py > /tmp/old_drivers.py``), replayed on the same
trace. One trace, so both policies meet the same load: the comparison is fair even on a
busy machine, but the trace itself says only what this machine's load was while it ran.

    JANUS_CACHE_DIR=/tmp/jc python benchmarks/driver_choice.py lstm-lm gan --policy /tmp/old_drivers.py
"""

from __future__ import annotations

import argparse
import importlib.util
import inspect
import random
import statistics
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

from janus.benchmark.swap import fresh_jit
from janus.models import MODELS
from janus.runtime import drivers, module

#: calls of one replay (a full-size janus-bench run makes about this many steady calls of a 30 ms step)
CALLS = 40
#: the first calls of a replay that are not steady steps (janus-bench's warm-up after compiling)
SKIPPED = drivers.WINDOW


class Alternating:
    """Stands in for ``DriverChoice``: calls go to both drivers in turn, each time logged."""

    compared = tried = True
    quiet = False
    current = 0

    def __init__(self) -> None:
        self.log: list[tuple[int, float, float]] = []

    def next(self) -> int:
        return len(self.log) % 2

    def record(self, driver: int, seconds: float, work: float = 1.0) -> None:
        self.log.append((driver, seconds, work))


@contextmanager
def alternating() -> Iterator[list[Alternating]]:
    made: list[Alternating] = []

    def make() -> Alternating:
        made.append(Alternating())
        return made[-1]

    original = module.DriverChoice
    module.DriverChoice = make  # type: ignore[assignment, misc]
    try:
        yield made
    finally:
        module.DriverChoice = original  # type: ignore[misc]


#: steps after which a model none of whose functions has a second driver is given up
MAX_STEPS_WITHOUT_CHOICE = 50


class SingleDriver(Exception):
    """No compiled function of the model has a second driver (an explicit driver, a GPU
    target, or a host module that must run serially: ``host_modules.serial_only``)."""


#: one call of a trace: its seconds and its work (``DriverChoice.record``)
Call = tuple[float, float]


def trace(model: str, size: str, pairs: int) -> list[tuple[Call, Call]]:
    """(local-sync, local-task) calls, consecutive, of ``model``'s slowest function."""
    spec = MODELS[model]
    with fresh_jit(spec.modules), alternating() as choices:
        workload = spec.build(size)  # type: ignore[arg-type]
        step = 0
        while not choices or max(len(c.log) for c in choices) < 2 * pairs + 4:
            if not choices and step >= MAX_STEPS_WITHOUT_CHOICE:
                raise SingleDriver(f"{model}: no compiled function has a second driver to compare")
            workload.step(step)
            step += 1
    log = max((c.log for c in choices), key=lambda log: sum(s for _, s, _ in log))[4:]  # past both warm-ups
    return [(log[i][1:], log[i + 1][1:]) for i in range(0, len(log) - 1, 2)]


def replay(policy: type, calls: list[tuple[Call, Call]], start: int) -> tuple[int, float]:
    """The driver ``policy`` ends on and the median of its steady call times, starting at
    ``start`` (each call's work passed to a policy that takes it)."""
    choice: Any = policy()
    weighs = "work" in inspect.signature(choice.record).parameters
    times = []
    for k in range(CALLS):
        driver = choice.next() if choice.compared else 0
        seconds, work = calls[(start + k) % len(calls)][driver]
        choice.record(driver, seconds, work) if weighs else choice.record(driver, seconds)
        times.append(seconds)
    return choice.current, statistics.median(times[SKIPPED:])


def summary(name: str, policy: type, calls: list[tuple[Call, Call]]) -> str:
    ends, medians = zip(*(replay(policy, calls, start) for start in range(len(calls))))
    deciles = statistics.quantiles(medians, n=10)
    return (f"| {name} | {100 * sum(ends) / len(ends):.0f}% | {1e3 * statistics.median(medians):.2f} | "
            f"{1e3 * deciles[0]:.2f} - {1e3 * deciles[-1]:.2f} | {1e3 * min(medians):.2f} - {1e3 * max(medians):.2f} |")


def load_policy(path: str) -> type:
    spec = importlib.util.spec_from_file_location(f"policy_{Path(path).stem}", path)
    assert spec is not None and spec.loader is not None
    loaded = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(loaded)
    return loaded.DriverChoice


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("models", nargs="+", help="zoo model names (janus-bench --list)")
    parser.add_argument("--quick", action="store_true", help="the models' quick sizes")
    parser.add_argument("--pairs", type=int, default=100, help="pairs of calls in each model's trace")
    parser.add_argument("--policy", action="append", default=[], help="another drivers.py to replay too")
    args = parser.parse_args()
    policies = {"current": drivers.DriverChoice, **{p: load_policy(p) for p in args.policy}}
    for model in args.models:
        try:
            calls = trace(model, "quick" if args.quick else "full", args.pairs)
        except SingleDriver as e:
            print(f"### {e}\n")
            continue
        sync, task = ([seconds for seconds, _ in driver] for driver in zip(*calls))
        print(f"### {model}: {len(calls)} pairs; median call local-sync {1e3 * statistics.median(sync):.2f} ms, "
              f"local-task {1e3 * statistics.median(task):.2f} ms, median ratio "
              f"{statistics.median(t / s for (s, _), (t, _) in calls):.2f}, per unit of work "
              f"{statistics.median((t / v) / (s / w) for (s, w), (t, v) in calls):.2f}\n")
        shuffled = random.Random(0).sample(calls, len(calls))
        print("| policy | order | replays ending on local-task | median step ms | 10-90% | min - max |\n"
              "|---|---|---:|---:|---:|---:|")
        for order, pairs in (("as run", calls), ("shuffled", shuffled)):
            for name, policy in policies.items():
                print(summary(f"{name} | {order}", policy, pairs))
        print()


if __name__ == "__main__":
    main()
