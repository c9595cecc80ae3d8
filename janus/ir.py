"""One place that knows how Janus talks to the MLIR Python bindings shipped in IREE.

The bindings live in ``iree.compiler.ir``; janus ops are unregistered-dialect ops (the
bindings expose no IRDL), so every context Janus creates allows unregistered dialects.
"""

from __future__ import annotations

from iree.compiler import ir

__all__ = ["ir", "make_context", "parse_module", "OBJ_TYPE_ASM"]

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


def obj_type(ctx: ir.Context | None = None) -> ir.Type:
    """The ``!janus.obj`` type in ``ctx`` (or the current context)."""
    return ir.Type.parse(OBJ_TYPE_ASM, ctx)
