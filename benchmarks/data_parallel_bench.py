"""Data-parallel scaling on this machine: steps/s with 1 and 2 MPI processes, the time
per step spent in collectives, and the scaling efficiency (not a test; numbers depend on
the machine's load).

    .venv/bin/python benchmarks/data_parallel_bench.py [--ranks 1 2] [--steps 300]

Runs ``mpiexec -n N python benchmarks/data_parallel_bench.py --worker ...`` per model,
scaling and N; each worker trains ``examples/data_parallel.py``'s models (compiled,
all-reduce inside the step) and rank 0 prints one JSON line. Strong scaling keeps the
global batch (ideal: N× steps/s); weak scaling keeps the per-rank batch (ideal: the same
steps/s, N× samples/s).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: global batch at 1 rank: MLP rows, LSTM sequences
BATCH = {"mlp": 256, "lstm": 16}


def worker(model: str, batch: int, steps: int) -> None:
    sys.path.insert(0, str(ROOT / "examples"))
    import data_parallel as dp  # noqa: E402  (the example's models)

    import janus.distributed as dist
    from janus.distributed.collectives import Timing

    dist.init()
    train = dp.train_mlp if model == "mlp" else dp.train_lstm
    run = train(10, batch, False)  # profiled, compiled, warm
    dist.allreduce(0.0)  # all ranks start timing together
    Timing.seconds, Timing.collectives = 0.0, 0
    started = time.perf_counter()
    for _ in range(steps):
        run()
    elapsed = time.perf_counter() - started
    comm = dist.allreduce(Timing.seconds, op="sum") / dist.size() / steps
    if dist.rank() == 0:
        print(json.dumps({"steps_per_s": steps / elapsed, "comm_ms_per_step": 1e3 * comm,
                          "collectives_per_step": Timing.collectives / steps}))


def measure(model: str, ranks: int, batch: int, steps: int) -> dict:
    command = [str(Path(sys.executable).parent / "mpiexec"), "-n", str(ranks), sys.executable, __file__,
               "--worker", model, "--batch", str(batch), "--steps", str(steps)]
    # one BLAS thread per rank: N ranks of N threads each on N cores only contend
    env = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
    out = subprocess.run(command, capture_output=True, text=True, timeout=600, cwd=ROOT, check=True, env=env).stdout
    return json.loads(out.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ranks", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--models", nargs="+", default=["mlp", "lstm"])
    parser.add_argument("--scale", type=int, default=1, help="multiply the global batches (more work per step)")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--batch", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.worker, args.batch, args.steps)
        return 0
    print("| model | scaling | ranks | global batch | steps/s | samples/s | collectives ms/step | efficiency |")
    print("|---|---|---|---|---|---|---|---|")
    for model in args.models:
        for scaling in ("strong", "weak"):
            base = None
            for n in args.ranks:
                batch = BATCH[model] * args.scale * (n if scaling == "weak" else 1)
                r = measure(model, n, batch, args.steps)
                base = base or r["steps_per_s"]
                ideal = base * n if scaling == "strong" else base
                print(f"| {model} | {scaling} | {n} | {batch} | {r['steps_per_s']:.0f} | {r['steps_per_s'] * batch:.0f} | "
                      f"{r['comm_ms_per_step']:.3f} | {r['steps_per_s'] / ideal:.0%} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
