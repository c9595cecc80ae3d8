"""The text builder behind ``janus-autodiff``: SSA names, recomputation, adjoint maps.

A gradient function is written as MLIR text and parsed once. Every value it defines gets
a fresh name (``%vN``), so the forward ops of a function can be re-emitted (recomputed)
as often as the backward pass needs — inside a backward ``scf.if`` branch, in each
iteration of a reversed loop — without clashing with earlier copies. ``env`` maps each
forward value to the name of its newest copy. Ops are re-emitted in MLIR's generic form,
built from the op itself (not from printed text, whose SSA names repeat across sibling
regions), keeping their locations.
"""

from __future__ import annotations

from typing import Callable, Iterable, Sequence

from janus.ir import ir
from janus.passes.registry import PassError

#: Ops left out of recomputed forward code: a gradient function runs only after the forward
#: call it belongs to, which checked these guards; a copy would repeat the guard's id.
NOT_RECOMPUTED = frozenset({"janus.guard"})

#: A rule: (builder, op, adjoint name or None per result) -> (value, adjoint) pairs.
Rule = Callable[["GradBuilder", ir.OpView, list], Iterable[tuple[ir.Value, str]]]


def fail(op: ir.OpView | ir.Operation, message: str) -> PassError:
    """A located ``janus-autodiff`` error at ``op``."""
    return PassError([(op.location, f"janus-autodiff: {message}")])


def is_float(t: ir.Type) -> bool:
    """Differentiable: a float scalar or a tensor of floats."""
    if isinstance(t, ir.RankedTensorType):
        t = ir.RankedTensorType(t).element_type
    return isinstance(t, ir.FloatType)


def nested_ops(op: ir.OpView | ir.Operation) -> Iterable[ir.Operation]:
    """Every op inside ``op``'s regions, at any depth."""
    for region in op.regions:
        for block in region.blocks:
            for inner in block.operations:
                yield inner.operation
                yield from nested_ops(inner)


def defined_in(op: ir.OpView | ir.Operation) -> list[ir.Value]:
    """Values ``op`` defines: its results, and results and block arguments inside it."""
    out: list[ir.Value] = list(op.results)
    for region in op.regions:
        for block in region.blocks:
            out.extend(block.arguments)
            for inner in block.operations:
                out.extend(defined_in(inner))
    return out


def free_floats(op: ir.OpView | ir.Operation) -> list[ir.Value]:
    """Float values used inside ``op``'s regions but defined outside ``op``."""
    inner = set(defined_in(op))
    out: dict[ir.Value, None] = {}
    for nested in nested_ops(op):
        for v in nested.operands:
            if v not in inner and is_float(v.type):
                out[v] = None
    return list(out)


def body_ops(block: ir.Block) -> tuple[list[ir.OpView], ir.OpView]:
    """A block's ops without its terminator, and the terminator."""
    ops = list(block.operations)
    return ops[:-1], ops[-1]


def float_literal(value: float) -> str:
    return f"{value:.17e}"


class Adjoints:
    """Adjoint names of forward values; a second contribution is added with ``arith.addf``."""

    def __init__(self, b: "GradBuilder") -> None:
        self.b = b
        self.names: dict[ir.Value, str] = {}

    def add(self, v: ir.Value, g: str | None) -> None:
        if g is None or not is_float(v.type):
            return
        old = self.names.get(v)
        self.names[v] = g if old is None else self.b.op(f"arith.addf {old}, {g} : {v.type}")

    def get(self, v: ir.Value) -> str | None:
        return self.names.get(v)


class GradBuilder:
    """Writes one gradient function's body: forward copies, adjoint ops, regions."""

    def __init__(self, fn: ir.Operation, rules: dict[str, Rule], request_vjp: Callable[[str], str]) -> None:
        self.rules = rules
        self.request_vjp = request_vjp
        self.env: dict[ir.Value, str] = {}
        self.lines: list[str] = []
        self._count = 0

    # ---- names and lines ------------------------------------------------------------------
    def fresh(self) -> str:
        self._count += 1
        return f"%v{self._count}"

    def line(self, text: str) -> None:
        self.lines.append(text)

    def op(self, rhs: str) -> str:
        """Emit ``%new = rhs``; returns ``%new``."""
        name = self.fresh()
        self.line(f"{name} = {rhs}")
        return name

    def ops(self, rhs: str, count: int) -> list[str]:
        """Emit ``%a, %b, ... = rhs`` with ``count`` results."""
        names = [self.fresh() for _ in range(count)]
        if names:
            self.line(f"{', '.join(names)} = {rhs}")
        return names

    def name(self, v: ir.Value) -> str:
        return self.env[v]

    def bind(self, values: Sequence[ir.Value], names: Sequence[str]) -> None:
        self.env.update(zip(values, names))

    # ---- forward copies -------------------------------------------------------------------
    def forward(self, op: ir.OpView) -> None:
        """Re-emit ``op`` (regions included) with fresh names for everything it defines."""
        if op.operation.name not in NOT_RECOMPUTED:
            self.line(self._generic(op))

    def _generic(self, op: ir.OpView) -> str:
        operands = ", ".join(self.name(v) for v in op.operands)
        results = [self.fresh() for _ in op.results]
        regions = [self._region(r) for r in op.regions]
        self.bind(list(op.results), results)
        named = op.operation.attributes
        attrs = ", ".join(f"{n} = {named[n]}" for n in named)
        text = f"{', '.join(results)} = " if results else ""
        text += f'"{op.operation.name}"({operands})'
        text += f" ({', '.join(regions)})" if regions else ""
        text += f" {{{attrs}}}" if attrs else ""
        types = ", ".join(str(v.type) for v in op.operands)
        return f"{text} : ({types}) -> ({', '.join(str(r.type) for r in op.results)}) {op.location}"

    def _region(self, region: ir.Region) -> str:
        lines = []
        for block in region.blocks:
            args = [self.fresh() for _ in block.arguments]
            self.bind(list(block.arguments), args)
            lines.append(f"^bb0({', '.join(f'{a}: {v.type}' for a, v in zip(args, block.arguments))}):")
            lines.extend(self._generic(op) for op in block.operations if op.operation.name not in NOT_RECOMPUTED)
        return "{\n" + "\n".join(lines) + "\n}"

    def forward_block(self, block: ir.Block) -> tuple[list[ir.OpView], ir.OpView]:
        ops, terminator = body_ops(block)
        for op in ops:
            self.forward(op)
        return ops, terminator

    # ---- adjoints -------------------------------------------------------------------------
    def backprop(self, ops: Sequence[ir.OpView], adj: Adjoints) -> None:
        """Adjoint ops for ``ops`` (already emitted forward), last op first."""
        for op in reversed(ops):
            gs = [adj.get(r) for r in op.results]
            if all(g is None for g in gs):
                continue
            rule = self.rules.get(op.operation.name)
            if rule is None:
                raise fail(op, f"no gradient rule for '{op.operation.name}'")
            for v, g in rule(self, op, gs):
                adj.add(v, g)

    def block_vjp(
        self, block: ir.Block, seeds: Sequence[str | None], wanted: Sequence[ir.Value]
    ) -> list[str | None]:
        """Recompute ``block``, seed its terminator's operands, return adjoints of ``wanted``."""
        ops, terminator = self.forward_block(block)
        adj = Adjoints(self)
        for v, g in zip(terminator.operands, seeds):
            adj.add(v, g)
        self.backprop(ops, adj)
        return [adj.get(v) for v in wanted]

    # ---- constants ------------------------------------------------------------------------
    def full(self, like: ir.Value, value: float) -> str:
        """A value of ``like``'s type filled with ``value``."""
        t = like.type
        if not isinstance(t, ir.RankedTensorType):
            return self.op(f"arith.constant {float_literal(value)} : {t}")
        tt = ir.RankedTensorType(t)
        if tt.has_static_shape:
            return self.op(f"arith.constant dense<{float_literal(value)}> : {t}")
        dims = [
            self.op(f"tensor.dim {self.name(like)}, {self.index(i)} : {t}")
            for i in range(tt.rank)
            if tt.is_dynamic_dim(i)
        ]
        scalar = self.op(f"arith.constant {float_literal(value)} : {tt.element_type}")
        empty = self.op(f"tensor.empty({', '.join(dims)}) : {t}")
        return self.op(f"linalg.fill ins({scalar} : {tt.element_type}) outs({empty} : {t}) -> {t}")

    def zeros(self, like: ir.Value) -> str:
        return self.full(like, 0.0)

    def or_zeros(self, like: ir.Value, g: str | None) -> str:
        return self.zeros(like) if g is None else g

    def index(self, value: int) -> str:
        return self.op(f"arith.constant {value} : index")
