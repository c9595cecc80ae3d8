"""One place that knows how Janus talks to the MLIR Python bindings shipped in IREE.

The bindings live in ``iree.compiler.ir``; janus ops are unregistered-dialect ops (the
bindings expose no IRDL), so every context Janus creates allows unregistered dialects.
"""

from __future__ import annotations

from typing import Sequence

from iree.compiler import ir

__all__ = [
    "OBJ_TYPE_ASM",
    "STRING_BUFFER",
    "describe_location",
    "file_line_col",
    "ir",
    "make_context",
    "copy_module",
    "obj_type",
    "parse_module",
]

#: Assembly of the opaque type of Python object references.
OBJ_TYPE_ASM = "!janus.obj"


def make_context() -> ir.Context:
    """A context that accepts janus ops next to every upstream and IREE dialect."""
    ctx = ir.Context()
    ctx.allow_unregistered_dialects = True
    return ctx


def parse_module(text: str, ctx: ir.Context | None = None) -> ir.Module:
    """Parse ``text`` into a module; raises ``ir.MLIRError`` with located diagnostics."""
    ctx = ctx or make_context()
    return ir.Module.parse(text, ctx)


def copy_module(module: ir.Module) -> ir.Module:
    """A copy of ``module`` in its context, built in memory (no print and parse)."""
    source = module.operation
    copy = ir.Module.create(source.location)
    for attr in source.attributes:
        copy.operation.attributes[attr.name] = attr.attr
    body = ir.InsertionPoint(copy.body)
    for op in module.body.operations:
        op.operation.clone(body)
    return copy


def obj_type(ctx: ir.Context | None = None) -> ir.Type:
    """The ``!janus.obj`` type in ``ctx`` (or the current context)."""
    return ir.Type.parse(OBJ_TYPE_ASM, ctx)


#: The buffer name MLIR gives a module parsed from a string.
STRING_BUFFER = "-"
#: The location classes that hold or wrap a position.
_LOCATION_KINDS = (ir.FileLineColLoc, ir.CallSiteLoc, ir.FusedLoc, ir.NameLoc)


def typed_location(loc: ir.Location) -> ir.Location:
    """``loc`` as its own location class (diagnostics hand out plain ``ir.Location``s)."""
    if isinstance(loc, _LOCATION_KINDS):
        return loc
    for kind in _LOCATION_KINDS:
        try:
            return kind(loc)
        except ValueError:
            continue
    return loc


def file_line_col(loc: ir.Location) -> tuple[str, int, int] | None:
    """The first ``(file, line, col)`` of ``loc`` (call sites: the callee first; fused and
    named locations: their parts); None for a location without one."""
    loc = typed_location(loc)
    if isinstance(loc, ir.FileLineColLoc):
        return loc.filename, loc.start_line, loc.start_col
    if isinstance(loc, ir.CallSiteLoc):
        parts = [loc.callee, loc.caller]
    elif isinstance(loc, ir.FusedLoc):
        parts = list(loc.locations)
    elif isinstance(loc, ir.NameLoc):
        parts = [loc.child_loc]
    else:
        return None
    return next(filter(None, map(file_line_col, parts)), None)


def describe_location(loc: ir.Location) -> str:
    """``loc`` for a message: ``file:line:col``, or ``line L, column C`` in a string buffer."""
    where = file_line_col(loc)
    if where is None:
        return "an unknown location"
    file, line, col = where
    return f"line {line}, column {col}" if file == STRING_BUFFER else f"{file}:{line}:{col}"


def unit_dims_reassociation(small: tuple[int, ...], kept: Sequence[int], big_rank: int) -> list[list[int]]:
    """Reassociation between a shape and the same shape with unit dims inserted.

    ``kept[j]`` is the position in the bigger shape of dim ``j`` of the smaller one; each
    inserted unit dim joins the group of a neighbouring kept dim.
    """
    if not small:
        return []
    groups: list[list[int]] = []
    start = 0
    for j, pos in enumerate(kept):
        end = big_rank if j == len(kept) - 1 else pos + 1
        groups.append(list(range(start, end)))
        start = end
    return groups
