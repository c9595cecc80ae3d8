"""Janus passes by name, named pipelines, and pass managers that mix them with upstream.

A janus pass is a class, as in xDSL: a name, a summary, its options as dataclass fields
(``janus.passes.options``) and one ``apply`` over the module operation. Pipeline text
builds one instance per occurrence from ``name{key=value ...}``, as mlir-opt does, so a
test or a target asks for a smaller stack in the text instead of patching a constant.
Passes report user-facing problems by raising ``PassError``; the adapter turns each into
an MLIR diagnostic at the offending op, so ``janus-opt`` prints located errors and
``--verify-diagnostics`` can check them like any upstream diagnostic.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, ClassVar, Iterable, TypeVar, dataclass_transform

from iree.compiler import passmanager

from janus.ir import ir
from janus.passes.options import OptionSpec, option, option_specs
from janus.passes.pipeline_text import Element, OptionText, elements


class PassError(Exception):
    """A pass failed on user input; ``problems`` are (location, message) pairs."""

    def __init__(self, problems: list[tuple[ir.Location, str]]) -> None:
        super().__init__("; ".join(m for _, m in problems))
        self.problems = problems


@dataclass(frozen=True)
class ModulePass:
    """A module pass: ``apply(module_op)`` transforms in place or raises ``PassError``."""

    name: ClassVar[str]
    summary: ClassVar[str]

    def __post_init__(self) -> None:
        for spec in self.options().values():
            spec.check(getattr(self, spec.attr))

    @classmethod
    def options(cls) -> dict[str, OptionSpec]:
        return option_specs(cls)

    def apply(self, module_op: ir.Operation) -> None:
        raise NotImplementedError

    def as_external(self) -> Callable[[ir.Operation, object], None]:
        """The callable ``PassManager.add`` expects, with errors turned into diagnostics."""

        def external(op: ir.Operation, pass_: passmanager.ExternalPass) -> None:
            try:
                self.apply(op)
            except PassError as e:
                for loc, message in e.problems:
                    loc.emit_error(message)
                pass_.signal_pass_failure()

        external.__name__ = self.name
        return external


@dataclass(frozen=True)
class Pipeline:
    """A named sequence of pipeline elements (janus passes, with options or not, or upstream text)."""

    name: str
    summary: str
    elements: tuple[str, ...] = field(default_factory=tuple)


PASSES: dict[str, type[ModulePass]] = {}
PIPELINES: dict[str, Pipeline] = {}

PassClass = TypeVar("PassClass", bound=type[ModulePass])


def _claim(name: str) -> None:
    if name in PASSES or name in PIPELINES:
        raise ValueError(f"pass or pipeline '{name}' registered twice")


@dataclass_transform(frozen_default=True, field_specifiers=(option,))
def register_pass(cls: PassClass) -> PassClass:
    """Class decorator: make the ``ModulePass`` subclass ``cls`` a frozen dataclass (its
    options are its fields) and register it under ``cls.name``."""
    cls = dataclass(frozen=True)(cls)
    _claim(cls.name)
    for spec in cls.options().values():
        spec.check(spec.default)
    PASSES[cls.name] = cls
    return cls


def register_pipeline(name: str, summary: str, elements: list[str]) -> Pipeline:
    _claim(name)
    PIPELINES[name] = Pipeline(name, summary, tuple(elements))
    return PIPELINES[name]


def pipeline_options(name: str) -> dict[str, list[str]]:
    """The options ``name{...}`` accepts, each with the janus passes it is forwarded to."""
    out: dict[str, list[str]] = {}
    for e in elements(",".join(PIPELINES[name].elements)):
        if e.name in PASSES:
            forwarded = {o: [e.name] for o in PASSES[e.name].options()}
        elif e.name in PIPELINES:
            forwarded = pipeline_options(e.name)
        else:
            continue
        for o, passes in forwarded.items():
            out.setdefault(o, []).extend(passes)
    return {o: list(dict.fromkeys(passes)) for o, passes in out.items()}


def _unknown(owner: str, key: str, known: Iterable[str]) -> str:
    listed = ", ".join(sorted(known))
    return f"{owner} has no option '{key}'" + (f" (options: {listed})" if listed else " (it takes none)")


def _build(cls: type[ModulePass], element: Element, forwarded: tuple[OptionText, ...]) -> ModulePass:
    """The pass ``element`` names, with its own options and those forwarded to it."""
    specs = cls.options()
    given = {o.key: o for o in element.options()}
    given.update({o.key: o for o in forwarded if o.key in specs})
    values = {}
    for key, text in given.items():
        if key not in specs:
            raise text.key_error(_unknown(f"pass '{cls.name}'", key, specs))
        try:
            values[specs[key].attr] = specs[key].parse(text.value)
        except ValueError as e:
            raise text.value_error(f"pass '{cls.name}': {e}") from None
    return cls(**values)


def _expand(element: Element, forwarded: tuple[OptionText, ...]) -> list[ModulePass | str]:
    """Janus passes built, pipelines expanded (their options forwarded), upstream text kept."""
    if element.name in PASSES:
        return [_build(PASSES[element.name], element, forwarded)]
    if element.name not in PIPELINES:
        return [element.text]
    own = element.options()
    known = pipeline_options(element.name)
    for o in own:
        if o.key not in known:
            raise o.key_error(_unknown(f"pipeline '{element.name}'", o.key, known))
    inner = own + forwarded  # the outer pipeline's text wins
    return [s for e in elements(",".join(PIPELINES[element.name].elements)) for s in _expand(e, inner)]


def build_pass_manager(pipeline: str, ctx: ir.Context) -> passmanager.PassManager:
    """A pass manager on ``builtin.module`` running ``pipeline``.

    Janus passes run where they stand; runs of upstream elements between them are handed
    to MLIR's own pipeline parser. Raises ``ValueError`` for an unknown pass name, and its
    subclass ``PipelineError`` for bad janus options or malformed text.
    """
    pm = passmanager.PassManager("builtin.module", ctx)
    upstream: list[str] = []

    def flush() -> None:
        if upstream:
            pm.add(",".join(upstream))
            upstream.clear()

    for step in (s for e in elements(pipeline) for s in _expand(e, ())):
        if isinstance(step, ModulePass):
            flush()
            # named like upstream passes (``IR Dump After CSEPass: cse``): class, then argument
            pm.add(step.as_external(), type(step).__name__, argument=step.name, description=step.summary)
        else:
            upstream.append(step)
    flush()
    return pm


def run_pipeline(module: ir.Module, pipeline: str) -> None:
    """Run ``pipeline`` over ``module`` in place; raises ``ir.MLIRError`` on failure."""
    build_pass_manager(pipeline, module.context).run(module.operation)
