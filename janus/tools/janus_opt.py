"""``janus-opt``: the mlir-opt of Janus.

Reads MLIR (a file or stdin), verifies janus ops, runs a pass pipeline that mixes janus
passes with any upstream or IREE pass, and prints the result. Errors are printed as
located diagnostics with exit code 1, never as a Python traceback.
"""

from __future__ import annotations

import argparse
import re
import sys
from typing import TextIO

from janus.dialects import verify_module
from janus.ir import ir, make_context
from janus.passes import PASSES, PIPELINES, build_pass_manager
from janus.passes.registry import pipeline_options
from janus.diagnostics import (
    Diagnostic,
    check_expectations,
    expectations,
    from_mlir_error,
    located,
)
from janus.tools.cli import add_version

#: The chunk separator; only blanks may follow it on its line (a newline must not be
#: swallowed, or the line numbers of the next chunk would shift).
SPLIT_MARKER = re.compile(r"^// -----[ \t]*$", re.MULTILINE)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="janus-opt",
        description="Run janus and upstream MLIR passes over a module.",
    )
    add_version(p)
    p.add_argument("input", nargs="?", default="-", help="input .mlir file ('-' for stdin)")
    p.add_argument("-o", "--output", default="-", help="output file ('-' for stdout)")
    p.add_argument(
        "-p",
        "--pass-pipeline",
        default="",
        help="e.g. 'builtin.module(janus-verify,janus-eliminate-recursion{max-stack-entries=64},cse)'; "
        "janus passes (with options in braces), named pipelines and upstream/IREE passes mix freely",
    )
    p.add_argument("--split-input-file", action="store_true", help="process each '// -----' chunk separately")
    p.add_argument(
        "--verify-diagnostics",
        action="store_true",
        help="check diagnostics against '// expected-error {{...}}' comments",
    )
    p.add_argument("--mlir-print-ir-after-all", action="store_true", help="print IR after every pass (stderr)")
    p.add_argument("--mlir-print-op-generic", action="store_true", help="print ops in generic form")
    p.add_argument("--no-verify", action="store_true", help="skip janus verification after parsing and at the end")
    p.add_argument("--list-passes", action="store_true", help="list janus passes and pipelines, then exit")
    return p.parse_args(argv)


def list_passes(out: TextIO) -> None:
    """Passes with their options (``name{option=value ...}``), then pipelines with the
    options they forward."""
    out.write("Janus passes:\n")
    for p in sorted(PASSES.values(), key=lambda p: p.name):
        out.write(f"  {p.name:28s} {p.summary}\n")
        for spec in p.options().values():
            out.write(f"      {spec.describe()}\n")
    out.write("Janus pipelines:\n")
    for p in sorted(PIPELINES.values(), key=lambda p: p.name):
        out.write(f"  {p.name:28s} {p.summary}\n    = {','.join(p.elements)}\n")
        for name, passes in pipeline_options(p.name).items():
            out.write(f"      {name}=<int>: forwarded to {', '.join(passes)}\n")
    out.write("Any upstream MLIR or IREE pass is accepted too (e.g. canonicalize, cse, inline).\n")
    out.write("Options go in braces: -p 'builtin.module(janus-to-iree-cpu{max-stack-entries=64})'.\n")


def process_chunk(text: str, args: argparse.Namespace, filename: str) -> tuple[str | None, list[Diagnostic]]:
    """Parse, verify and transform one chunk; returns (printed IR or None, diagnostics)."""
    ctx = make_context()
    try:
        module = ir.Module.parse(text, ctx)
    except ir.MLIRError as e:
        return None, from_mlir_error(e, filename)
    with ctx:
        if not args.no_verify:
            problems = verify_module(module.operation)
            if problems:
                return None, [located("error", p.location, p.text(), filename) for p in problems]
        try:
            pm = build_pass_manager(args.pass_pipeline, ctx) if args.pass_pipeline else None
        except ValueError as e:
            return None, [Diagnostic("error", filename, 0, 0, f"invalid pass pipeline: {e}")]
        if pm is not None:
            if args.mlir_print_ir_after_all:
                pm.enable_ir_printing(print_after_all=True)
            try:
                pm.run(module.operation)
            except ir.MLIRError as e:
                return None, from_mlir_error(e, filename)
        if not args.no_verify:
            problems = verify_module(module.operation)
            if problems:
                return None, [located("error", p.location, p.text(), filename) for p in problems]
        printed = module.operation.get_asm(print_generic_op_form=args.mlir_print_op_generic)
    return printed, []


def chunks(text: str, split: bool) -> list[str]:
    """The chunks to process; each is padded so line numbers match the whole file."""
    if not split:
        return [text]
    out, line = [], 0
    pieces = SPLIT_MARKER.split(text)
    for piece in pieces:
        out.append("\n" * line + piece)
        line += piece.count("\n")
    return out


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.list_passes:
        list_passes(sys.stdout)
        return 0
    filename = "<stdin>" if args.input == "-" else args.input
    try:
        text = sys.stdin.read() if args.input == "-" else open(args.input, encoding="utf-8").read()
    except OSError as e:
        print(f"janus-opt: cannot read {filename}: {e.strerror}", file=sys.stderr)
        return 1
    outputs, failed = [], False
    for chunk in chunks(text, args.split_input_file):
        printed, diagnostics = process_chunk(chunk, args, filename)
        if args.verify_diagnostics:
            failures = check_expectations(expectations(chunk), diagnostics, filename)
            for f in failures:
                print(f, file=sys.stderr)
            failed |= bool(failures)
        else:
            for d in diagnostics:
                print(d.format(), file=sys.stderr)
            failed |= bool(diagnostics)
        if printed is not None:
            outputs.append(printed)
    result = "// -----\n".join(outputs)
    if args.output == "-":
        sys.stdout.write(result)
    else:
        try:
            with open(args.output, "w", encoding="utf-8") as f:
                f.write(result)
        except OSError as e:
            print(f"janus-opt: cannot write {args.output}: {e.strerror}", file=sys.stderr)
            return 1
    return 1 if failed else 0


def entry() -> None:
    """Console-script entry point."""
    sys.exit(main())


if __name__ == "__main__":
    entry()
