"""iree-compile flags A/B on the real compiled steps of zoo models, at full size.

Each model runs once under ``janus.jit`` with the compile cache off; the module text
handed to ``iree-compile`` and the flags it got are recorded, and the last call of each
compiled function is captured (``janus.benchmark.dispatches``). The module is then
compiled again with each variant's flags added, and the captured call is invoked in this
process through the IREE runtime (inputs on the device once) for every variant, rounds
alternated: per variant, the lowest wall time of a call and the lowest over the rounds of
the CPU time per call (process time: a single-threaded driver's number that other
processes on the machine inflate least). A flag
kept must then pass janus-bench's comparison with NumPy; this script times only.

    python benchmarks/gemm_flags.py gan lstm-lm --rounds 5 \\
        --variant ukernels-all=--iree-llvmcpu-enable-ukernels=all
"""

from __future__ import annotations

import argparse
import time
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Iterator

import iree.runtime as rt
import numpy as np
from iree.compiler import tools

from janus.benchmark import dispatches
from janus.runtime import cache, compiler


@dataclass
class Compiled:
    text: str
    flags: list[str]


@contextmanager
def recording(into: list[Compiled]) -> Iterator[None]:
    """Every ``iree-compile`` the runtime runs while the block runs, recorded (text, flags)."""
    original = compiler.iree_compile

    def record(text: str, flags: list[str], libm_flags: tuple[str, ...], filename: str) -> bytes:
        vmfb = original(text, flags, libm_flags, filename)
        into.append(Compiled(text, list(flags)))
        return vmfb

    compiler.iree_compile = record  # type: ignore[assignment]
    try:
        yield
    finally:
        compiler.iree_compile = original  # type: ignore[assignment]


def captured_with_sources(model: str, size: str) -> list[tuple[dispatches.Captured, Compiled]]:
    """The model's compiled functions' last calls, each with the compile that made its module."""
    compiles: list[Compiled] = []
    cache.set_directory(None)
    try:
        with recording(compiles):
            calls = dispatches.capture(model, size)
    finally:
        cache.set_directory()
    return [(call, next(c for c in reversed(compiles) if f"@{call.function}(" in c.text)) for call in calls]


def call_times(call: dispatches.Captured, driver: str, repetitions: int) -> tuple[float, float]:
    """(min wall ms, mean CPU ms) of ``call`` invoked ``repetitions`` times in this process
    through the IREE runtime, its inputs on the device once (results stay there)."""
    config = rt.Config(driver)
    context = rt.SystemContext(config=config)
    context.add_vm_module(rt.VmModule.copy_buffer(context.instance, call.vmfb))
    function = context.modules.module[call.function]
    args = [rt.asdevicearray(config.device, v) if isinstance(v, np.ndarray) else v for v in call.inputs]
    function(*args)
    walls = []
    cpu = time.process_time()
    for _ in range(repetitions):
        start = time.perf_counter()
        function(*args)
        walls.append(time.perf_counter() - start)
    return 1e3 * min(walls), 1e3 * (time.process_time() - cpu) / repetitions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("models", nargs="+")
    parser.add_argument("--variant", action="append", default=[],
                        help="NAME=FLAG[,FLAG...]: flags added to the module's own (repeatable)")
    parser.add_argument("--driver", default="local-sync")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--repetitions", type=int, default=20)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    variants = {"base": []} | {name: flags.split(",") for name, flags in (v.split("=", 1) for v in args.variant)}
    for model in args.models:
        for call, source in captured_with_sources(model, "quick" if args.quick else "full"):
            builds: dict[str, dispatches.Captured | str] = {}
            for name, extra in variants.items():
                try:
                    builds[name] = replace(call, vmfb=tools.compile_str(source.text, extra_args=[*source.flags, *extra]))
                except tools.CompilerToolError as e:
                    errors = [line.split("error: ", 1)[1] for line in str(e).splitlines() if "error: " in line]
                    builds[name] = f"compile failed: {(errors or [str(e)])[0][:160]}"
            times: dict[str, list[tuple[float, float]]] = {name: [] for name in variants}
            for _ in range(args.rounds):
                for name, build in builds.items():
                    if not isinstance(build, str):
                        times[name].append(call_times(build, args.driver, args.repetitions))
            print(f"### {model} @{call.function} ({args.driver}; module flags: {' '.join(source.flags)})")
            for name, build in builds.items():
                shown = build if isinstance(build, str) else (
                    f"wall min {min(w for w, _ in times[name]):.3f} ms, CPU per call min over rounds "
                    f"{min(c for _, c in times[name]):.3f} ms (rounds' CPU: {', '.join(f'{c:.3f}' for _, c in times[name])})")
                print(f"- {name} {' '.join(variants[name])}: {shown}")


if __name__ == "__main__":
    main()
