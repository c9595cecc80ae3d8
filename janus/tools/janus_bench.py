"""``janus-bench``: every zoo model run as plain Python and under ``janus.jit`` in one process.

For each model it checks that the compiled run agrees with the plain run (what every step
returned, and the final parameters; tolerances in ``janus.benchmark.compare``), and reports
steady-state throughput, speed-up, compile time, compiled versions and the reasons calls
ran imperatively. Writes bench.json, bench.md and bench.png (with matplotlib: the
``bench`` extra). Exit code 1 when any model disagrees or fails. Times are reported,
never asserted.
"""

from __future__ import annotations

import argparse
import shlex
import sys
import warnings
from pathlib import Path

import janus.frontend.backend  # noqa: F401  (imported here, not first under a profiled call)
from janus.benchmark import ablation, compare, measure, report
from janus.benchmark.plot import TARGET_SPEEDUP
from janus.benchmark.progress import Progress
from janus.frontend.logs import FallbackWarning
from janus.models import MODELS
from janus.tools.cli import add_version


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="janus-bench", description=__doc__.split("\n\n")[0])
    add_version(p)
    p.add_argument("--quick", action="store_true", help="small sizes of every model (a CI smoke run)")
    p.add_argument("--models", help="comma-separated model names (default: all; see --list)")
    p.add_argument("--list", action="store_true", help="list the models and exit")
    p.add_argument("-o", "--out", default="janus-bench-report", help="output folder (default: %(default)s)")
    p.add_argument("--min-seconds", type=float,
                   help="steady-state seconds to time per run (default: 1, with --quick 0.2)")
    p.add_argument("--ablation", action="store_true",
                   help="JANUS Fig. 7: imperative, graph without speculation, + unrolling, + specialization")
    p.add_argument("--no-plot", action="store_true", help="do not write bench.png")
    p.add_argument("--target-speedup", type=float, default=TARGET_SPEEDUP,
                   help="speed-up drawn as the target line of the plots (default: %(default)g)")
    p.add_argument("--rtol", type=float, default=compare.RTOL, help="relative tolerance (default: %(default)g)")
    p.add_argument("--atol", type=float, default=compare.ATOL,
                   help="absolute tolerance, times max(1, max |value|) (default: %(default)g)")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.list:
        for spec in MODELS.values():
            print(f"{spec.name:22} {spec.bound:9} {spec.description}")
        return 0
    names = args.models.split(",") if args.models else list(MODELS)
    unknown = [n for n in names if n not in MODELS]
    if unknown:
        print(f"janus-bench: unknown model(s) {', '.join(unknown)}; known: {', '.join(MODELS)}", file=sys.stderr)
        return 2
    size = "quick" if args.quick else "full"
    command = shlex.join(["janus-bench", *(sys.argv[1:] if argv is None else argv)])
    min_seconds = args.min_seconds if args.min_seconds is not None else 0.2 if args.quick else 1.0
    if args.ablation:
        return run_ablation(args, names, size, command, min_seconds)
    peak = report.peak_gflops()
    progress = Progress(2 * len(names))
    records = []
    for name in names:
        spec = MODELS[name]
        runs = []
        for compiled in (False, True):
            label = f"{name}: {'janus.jit' if compiled else 'plain Python'}"
            progress.show(label)
            runs.append(measure.run(spec, size, compiled, lambda i, n: progress.step(f"step {i + 1}/{n}"),
                                    min_seconds))
            if not compiled:
                progress.finish(label)
        records.append(report.record(spec, size, *runs, peak, args.rtol, args.atol))
        progress.finish(f"{name}: {'agrees' if records[-1]['agree'] else 'DISAGREES'}")
    progress.close()
    for line in report.write(Path(args.out), records, report.environment(peak), command, not args.no_plot,
                             args.target_speedup):
        print(line)
    print(report.markdown(records, report.environment(peak), command))
    failed = [r["model"] for r in records if not r["agree"]]
    if failed:
        print(f"janus-bench: compiled and plain Python runs disagree for: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


def run_ablation(args: argparse.Namespace, names: list[str], size: str, command: str, min_seconds: float) -> int:
    """``--ablation``: every stage of ``ablation.STAGES`` per model; exit 1 on a disagreement."""
    progress = Progress(len(ablation.STAGES) * len(names))
    records = [ablation.record(MODELS[n], size, progress.show, progress.finish, min_seconds, args.rtol, args.atol)
               for n in names]
    progress.close()
    for line in ablation.write(Path(args.out), records, command, not args.no_plot, args.target_speedup):
        print(line)
    print(ablation.markdown(records, command))
    failed = [r["model"] for r in records if not r["agree"]]
    if failed:
        print(f"janus-bench: a stage disagrees with plain Python for: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


def entry() -> None:
    """Console-script entry point (fallback warnings off: the report lists each fallback with its reason)."""
    warnings.simplefilter("ignore", FallbackWarning)
    sys.exit(main())


if __name__ == "__main__":
    entry()
