"""Janus passes by name, named pipelines, and pass managers that mix them with upstream.

A janus pass is a named object with one job: a function over the module operation.
Passes report user-facing problems by raising ``PassError``; the adapter turns each into
an MLIR diagnostic at the offending op, so ``janus-opt`` prints located errors and
``--verify-diagnostics`` can check them like any upstream diagnostic.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from iree.compiler import passmanager

from janus.ir import ir


class PassError(Exception):
    """A pass failed on user input; ``problems`` are (location, message) pairs."""

    def __init__(self, problems: list[tuple[ir.Location, str]]) -> None:
        super().__init__("; ".join(m for _, m in problems))
        self.problems = problems


@dataclass(frozen=True)
class Pass:
    """A module pass: ``run(module_op)`` transforms in place or raises ``PassError``."""

    name: str
    summary: str
    run: Callable[[ir.Operation], None]

    def as_external(self) -> Callable[[ir.Operation, object], None]:
        """The callable ``PassManager.add`` expects, with errors turned into diagnostics."""

        def external(op: ir.Operation, pass_: passmanager.ExternalPass) -> None:
            try:
                self.run(op)
            except PassError as e:
                for loc, message in e.problems:
                    loc.emit_error(message)
                pass_.signal_pass_failure()

        external.__name__ = self.name
        return external


@dataclass(frozen=True)
class Pipeline:
    """A named sequence of pipeline elements (janus pass names or upstream pass text)."""

    name: str
    summary: str
    elements: tuple[str, ...] = field(default_factory=tuple)


PASSES: dict[str, Pass] = {}
PIPELINES: dict[str, Pipeline] = {}


def register_pass(name: str, summary: str) -> Callable[[Callable[[ir.Operation], None]], Pass]:
    """Decorator: register ``fn(module_op)`` as the janus pass ``name``."""

    def wrap(fn: Callable[[ir.Operation], None]) -> Pass:
        if name in PASSES or name in PIPELINES:
            raise ValueError(f"pass or pipeline '{name}' registered twice")
        PASSES[name] = Pass(name, summary, fn)
        return PASSES[name]

    return wrap


def register_pipeline(name: str, summary: str, elements: list[str]) -> Pipeline:
    if name in PASSES or name in PIPELINES:
        raise ValueError(f"pass or pipeline '{name}' registered twice")
    PIPELINES[name] = Pipeline(name, summary, tuple(elements))
    return PIPELINES[name]


def split_top_level(text: str) -> list[str]:
    """Split ``a,b{x=1,y=2},func.func(c,d)`` at commas outside brackets."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "({[":
            depth += 1
        elif ch in ")}]":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    parts.append(text[start:].strip())
    return [p for p in parts if p]


def module_elements(pipeline: str) -> list[str]:
    """The elements of ``builtin.module(...)`` (or of a bare comma list), pipelines expanded."""
    text = pipeline.strip()
    if text.startswith("builtin.module(") and text.endswith(")"):
        text = text[len("builtin.module(") : -1]
    out: list[str] = []
    for element in split_top_level(text):
        if element in PIPELINES:
            out.extend(module_elements(",".join(PIPELINES[element].elements)))
        else:
            out.append(element)
    return out


def build_pass_manager(pipeline: str, ctx: ir.Context) -> passmanager.PassManager:
    """A pass manager on ``builtin.module`` running ``pipeline``.

    Janus passes run where they stand; runs of upstream elements between them are handed
    to MLIR's own pipeline parser. Raises ``ValueError`` for an unknown pass name.
    """
    pm = passmanager.PassManager("builtin.module", ctx)
    upstream: list[str] = []

    def flush() -> None:
        if upstream:
            pm.add(",".join(upstream))
            upstream.clear()

    for element in module_elements(pipeline):
        if element in PASSES:
            flush()
            pm.add(PASSES[element].as_external(), PASSES[element].name)
        else:
            upstream.append(element)
    flush()
    return pm


def run_pipeline(module: ir.Module, pipeline: str) -> None:
    """Run ``pipeline`` over ``module`` in place; raises ``ir.MLIRError`` on failure."""
    build_pass_manager(pipeline, module.context).run(module.operation)
