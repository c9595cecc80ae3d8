"""``janus-compile``: a janus .mlir module in, a .vmfb (plus its JSON manifest) out; or a
Python function (``file.py:function``, see ``janus.export``) exported with example arguments.

A Python export also writes its example inputs as ``<name>.npy`` beside the .vmfb and
prints an ``iree-run-module`` command (absolute paths) that runs as printed.

The .vmfb runs with IREE's own ``iree-run-module`` (no Python needed); the sidecar
``<out>.vmfb.json`` is what ``janus.runtime.CompiledModule.load`` needs to check
arguments and to move heap values. Errors are located diagnostics, exit code 1.
"""

from __future__ import annotations

import argparse
import inspect
import shlex
import sys
from pathlib import Path
from typing import Callable

import numpy as np

from janus.aot import Exported, export
from janus.frontend.generate import generate
from janus.frontend.profiler import Profile, run_profiled
from janus.frontend.values import NotConvertible
from janus.runtime.compiler import compile_module, lower
from janus.runtime.errors import CompileError
from janus.runtime.targets import TARGETS
from janus.tools.cli import add_version
from janus.tools.export_args import example_args, is_python_target, leaf, load_function

#: Unrecognized options with this prefix go to iree-compile (e.g. --iree-vulkan-target=rdna3).
IREE_FLAG_PREFIX = "--iree-"


def parse_args(argv: list[str] | None) -> tuple[argparse.Namespace, list[str]]:
    p = argparse.ArgumentParser(
        prog="janus-compile",
        description="Compile a janus MLIR module to an IREE .vmfb for a target. Options starting "
        f"with {IREE_FLAG_PREFIX} are passed to iree-compile and override the target's presets.",
    )
    add_version(p)
    p.add_argument("input", help="input .mlir file, or file.py:function to export a Python function")
    p.add_argument("-o", "--output", help="output .vmfb (default: the input with .vmfb; stdout with --emit-mlir)")
    p.add_argument("--target", default="cpu", choices=sorted(TARGETS), help="target preset (default: cpu)")
    p.add_argument("--pipeline", help="janus-opt pipeline run first (default: the target's; "
                   + ", ".join(f"{t.name}: {t.pipeline}" for t in TARGETS.values()) + ")")
    p.add_argument("--emit-mlir", action="store_true", help="write the lowered module iree-compile would get, not a .vmfb")
    python = p.add_argument_group("file.py:function (janus.export)")
    python.add_argument("--example-args", metavar="NPZ", help="example arguments by parameter name (np.savez)")
    python.add_argument("--arg-shape", action="append", default=[], metavar="NAME=64x784xf32",
                        help="an example argument of zeros with this shape and element type (repeatable)")
    python.add_argument("--params", default="", metavar="NAMES",
                        help="comma-separated parameters saved beside the .vmfb as .npy (trained weights)")
    args, rest = p.parse_known_args(argv)
    unknown = [a for a in rest if not a.startswith(IREE_FLAG_PREFIX)]
    if unknown:
        p.error(f"unrecognized arguments: {' '.join(unknown)}")
    return args, rest


def main(argv: list[str] | None = None) -> int:
    args, iree_flags = parse_args(argv)
    if is_python_target(args.input):
        return export_function(args, iree_flags)
    try:
        text = Path(args.input).read_text(encoding="utf-8")
        if args.emit_mlir:
            pipeline = args.pipeline or TARGETS[args.target].pipeline
            return write_text(lower(text, pipeline, filename=args.input).operation.get_asm(), args.output)
        artifact = compile_module(text, args.target, pipeline=args.pipeline, filename=args.input, extra_flags=iree_flags)
        artifact.save(args.output or Path(args.input).with_suffix(".vmfb"))
    except CompileError as e:
        print(e, file=sys.stderr)
        return 1
    except OSError as e:
        print(f"janus-compile: {e.filename}: {e.strerror}", file=sys.stderr)
        return 1
    return 0


def write_text(text: str, output: str | None) -> int:
    """``--emit-mlir``: the module to ``output``, or stdout when none (or ``-``)."""
    if output in (None, "-"):
        sys.stdout.write(text)
    else:
        Path(output).write_text(text, encoding="utf-8")
    return 0


def export_function(args: argparse.Namespace, iree_flags: list[str]) -> int:
    try:
        fn = load_function(args.input)
        example = example_args(fn, args.example_args, args.arg_shape)
        if args.emit_mlir:
            return write_text(python_mlir(fn, example, args.target, args.pipeline), args.output)
        out = Path(args.output or Path(args.input.rpartition(":")[0]).with_suffix(".vmfb"))
        out.parent.mkdir(parents=True, exist_ok=True)
        params = [p for p in args.params.split(",") if p]
        done = export(fn, *example, path=out, target=args.target, params=params, extra_flags=iree_flags)
        write_example_inputs(done, fn, example)
    except (CompileError, NotConvertible, ValueError) as e:
        print(f"janus-compile: {args.input}: {e}", file=sys.stderr)
        return 1
    except OSError as e:
        print(f"janus-compile: {e.filename}: {e.strerror}", file=sys.stderr)
        return 1
    print(f"wrote {done.vmfb} and {done.manifest}; run it with: {shlex.join(runnable_anywhere(done))}")
    return 0


def runnable_anywhere(done: Exported) -> list[str]:
    """The manifest's command (which runs in the .vmfb's folder) with absolute file paths."""
    folder = done.vmfb.parent.resolve()
    out = []
    for arg in done.command:
        for prefix in ("--module=", "--input=@"):
            if arg.startswith(prefix):
                arg = prefix + str(folder / arg[len(prefix):])
        out.append(arg)
    return out


def write_example_inputs(done: Exported, fn: Callable, example: tuple) -> None:
    """Save the example value of each input the command reads from ``<name>.npy`` (those
    not saved as parameters), so the printed command runs as printed."""
    by_name = dict(zip(inspect.signature(fn).parameters, example))
    for entry in done.info["inputs"]:
        if "file" not in entry:
            np.save(done.vmfb.parent / f"{entry['name']}.npy", leaf(by_name, entry["name"]))


def python_mlir(fn: Callable, example: tuple, target: str, pipeline: str | None) -> str:
    """The lowered module iree-compile would get for ``fn`` specialized to ``example``."""
    profile = Profile()
    run_profiled(fn, example, {}, profile)
    graph = generate(fn, example, profile)
    return lower(graph.text, graph.pipeline(pipeline or TARGETS[target].pipeline)).operation.get_asm()


def entry() -> None:
    """Console-script entry point."""
    sys.exit(main())


if __name__ == "__main__":
    entry()
