"""First-call time of each zoo model with a cold and a warm compile cache.

Not a test: run ``.venv/bin/python benchmarks/cache_bench.py [model ...]`` and read the
table. Each model runs (quick size, under ``janus.jit``) in a fresh process twice over one
new cache folder: the first process compiles, the second should find every module in the
cache. "first calls" is the time of the warm-up steps and of steps that compiled
(profiling, tracing, lowering, iree-compile or a cache read, the first compiled calls);
"compile" is the part spent in the jit functions' builds. Wall time on a shared machine.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from tabulate import tabulate

ROOT = Path(__file__).resolve().parents[1]


def child(name: str) -> None:
    from janus.benchmark import measure
    from janus.models import MODELS
    from janus.runtime import cache

    run = measure.run(MODELS[name], "quick", True, min_seconds=0.0, max_extra_steps=0)
    print(json.dumps({"first": run.warmup_seconds, "compile": run.jit_summary()["compile_seconds"],
                      "error": run.error, **cache.stats()}))


def measure_model(name: str, folder: str) -> dict:
    env = {**os.environ, "JANUS_CACHE_DIR": folder, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, __file__, "--child", name], env=env, capture_output=True, text=True)
    if done.returncode:
        return {"error": done.stderr.strip().splitlines()[-1]}
    return json.loads(done.stdout.splitlines()[-1])


def main(names: list[str]) -> None:
    from janus.models import MODELS

    rows = []
    for name in names or list(MODELS):
        with tempfile.TemporaryDirectory(prefix="janus-cache-") as folder:
            cold, warm = measure_model(name, folder), measure_model(name, folder)
        if cold.get("error") or warm.get("error"):
            rows.append([name, None, None, None, None, None, f"error: {cold.get('error') or warm.get('error')}"])
            continue
        rows.append([name, cold["first"], warm["first"], cold["first"] / warm["first"], cold["compile"],
                     warm["compile"], f"{warm['hits']} hit(s), {warm['misses']} miss(es) of {cold['misses']}"])
        print(name, rows[-1][1:], file=sys.stderr)
    print(tabulate(rows, ["model", "first calls cold s", "warm s", "cold/warm", "compile cold s", "compile warm s",
                          "warm cache"], tablefmt="github", floatfmt=".2f", missingval="—"))


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        child(sys.argv[2])
    else:
        main(sys.argv[1:])
