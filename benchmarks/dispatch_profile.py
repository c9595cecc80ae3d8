"""Per-dispatch profile of compiled zoo models: dispatch, runs, time, FLOPs, % of peak.

Each model runs under ``janus.jit`` (full size unless ``--quick``) through its steps; the
last call of each compiled function is replayed by ``iree-benchmark-module`` under IREE's
HAL profiler (``janus.benchmark.dispatches``). Peak: the best NumPy float32 1024x1024
GEMM in this process, as in ``janus-bench``.

    JANUS_CACHE_DIR=/tmp/jc python benchmarks/dispatch_profile.py lstm-lm gan lenet5 rntn-infer-b1
"""

from __future__ import annotations

import argparse

from janus.benchmark import dispatches
from janus.benchmark.report import peak_gflops


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("models", nargs="+", help="zoo model names (janus-bench --list)")
    parser.add_argument("--quick", action="store_true", help="the models' quick sizes")
    parser.add_argument("--driver", default="local-sync", help="IREE driver the calls are replayed on")
    parser.add_argument("--repetitions", type=int, default=5, help="replayed calls averaged per function")
    parser.add_argument("--top", type=int, default=12, help="dispatches listed per function (slowest first)")
    parser.add_argument("--peak", type=float, help="GFLOP/s that count as 100%% (default: measured now, as janus-bench "
                        "does; on a loaded machine give the bench report's)")
    args = parser.parse_args()
    peak = args.peak or peak_gflops()
    source = "given" if args.peak else "best NumPy float32 1024x1024 GEMM now"
    print(f"peak {peak:.1f} GFLOP/s ({source}); driver {args.driver}; times are wall-clock per dispatch\n")
    for model in args.models:
        for call in dispatches.capture(model, "quick" if args.quick else "full"):
            try:
                rows = dispatches.profile(call, args.driver, args.repetitions)
            except dispatches.NotReplayable as e:
                print(f"### {model}: not profiled: {e}\n")
                continue
            print(dispatches.table(model, call.function, rows, peak, args.top) + "\n")


if __name__ == "__main__":
    main()
