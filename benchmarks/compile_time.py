"""Compile time of every zoo model (quick size), in CPU seconds, for one or more source trees.

``janus-bench`` reports compile time as wall-clock seconds, which a loaded machine
inflates at random. Here each model runs compiled in a fresh process per tree, and the
time of ``JitFunction._build`` (tracing, the pass pipeline and ``iree-compile``) is taken
as CPU time of the process and of its children, with the persistent compile cache off; trees alternate model by model and round
by round, and the lowest of the rounds is reported, so two trees compare under the same
conditions. Compare a change with its base:

    git worktree add /tmp/base HEAD~1
    .venv/bin/python benchmarks/compile_time.py --trees /tmp/base . --rounds 2
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time


def _cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def measure_one(model: str) -> dict[str, float]:
    """Run ``model`` compiled in this process; CPU and wall seconds spent building versions."""
    import janus.frontend.backend  # noqa: F401  (IREE's bindings load here, not inside the first build)
    from janus.benchmark import measure
    from janus.frontend.jit import JitFunction
    from janus.models import MODELS

    totals = {"cpu": 0.0, "wall": 0.0, "builds": 0}
    build = JitFunction._build

    def timed(self, *args, **kwargs):
        cpu, wall = _cpu(), time.perf_counter()
        try:
            return build(self, *args, **kwargs)
        finally:
            totals["cpu"] += _cpu() - cpu
            totals["wall"] += time.perf_counter() - wall
            totals["builds"] += 1

    JitFunction._build = timed
    spec = MODELS[model]
    result = measure.run(spec, "quick", compiled=True, min_seconds=0.0, max_extra_steps=0)
    if result.error:
        raise SystemExit(f"{model}: {result.error}")
    return totals


def model_names(tree: str) -> list[str]:
    code = "from janus.models import MODELS; print(' '.join(MODELS))"
    out = subprocess.run([sys.executable, "-c", code], env=_env(tree), capture_output=True, text=True, check=True)
    return out.stdout.split()


def _env(tree: str) -> dict[str, str]:
    """``tree`` first on the path; no persistent compile cache (every build runs iree-compile)."""
    return {**os.environ, "PYTHONPATH": os.path.abspath(tree), "JANUS_CACHE_DIR": ""}


def compare(trees: list[str], rounds: int, models: list[str]) -> None:
    best: dict[tuple[str, str], dict[str, float]] = {}
    for _ in range(rounds):
        for model in models:
            for tree in trees:
                out = subprocess.run([sys.executable, __file__, "--one", model], env=_env(tree),
                                     capture_output=True, text=True)
                if out.returncode:
                    print(f"{model} @ {tree}: failed\n{out.stderr[-2000:]}", file=sys.stderr)
                    continue
                got = json.loads(out.stdout.strip().splitlines()[-1])
                key = (model, tree)
                if key not in best or got["cpu"] < best[key]["cpu"]:
                    best[key] = got
    head = " | ".join(f"{t} CPU s (wall s)" for t in trees)
    print(f"| model | versions | {head} |")
    print("|---|---:|" + "---:|" * len(trees))
    total = [0.0] * len(trees)
    for model in models:
        cells = []
        for i, tree in enumerate(trees):
            got = best.get((model, tree))
            cells.append("failed" if got is None else f"{got['cpu']:.2f} ({got['wall']:.2f})")
            total[i] += got["cpu"] if got else 0.0
        builds = next((best[(model, t)]["builds"] for t in trees if (model, t) in best), 0)
        print(f"| {model} | {builds} | " + " | ".join(cells) + " |")
    print("| total | | " + " | ".join(f"{t:.2f}" for t in total) + " |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trees", nargs="+", default=["."], help="source trees to compare (PYTHONPATH each)")
    parser.add_argument("--rounds", type=int, default=1, help="runs per model and tree; the lowest CPU time counts")
    parser.add_argument("--models", nargs="*", help="model names (default: the whole zoo)")
    parser.add_argument("--one", help=argparse.SUPPRESS)  # a child process: one model, JSON out
    args = parser.parse_args()
    if args.one:
        print(json.dumps(measure_one(args.one)))
        return
    compare(args.trees, args.rounds, args.models or model_names(args.trees[0]))


if __name__ == "__main__":
    main()
