"""VJP rules of elementwise ``arith`` and ``math`` ops.

Each rule builds ops whose types follow the forward op's operands, so one rule serves
scalars (inside a ``linalg.generic`` body) and tensors alike.
"""

from __future__ import annotations

from typing import Callable

from iree.compiler.dialects import arith, math

from janus.ir import ir
from janus.passes.autodiff.builder import Adjoint, GradBuilder, Rule

Pairs = list[tuple[ir.Value, ir.Value]]
#: dy/dx of a unary op from (builder, x copy, y copy, forward op).
Derivative = Callable[[GradBuilder, ir.Value, ir.Value, ir.OpView], ir.Value]


def _operands(op: ir.OpView) -> tuple[ir.Value, ...]:
    return tuple(op.operands)


def add(b: GradBuilder, op: ir.OpView, gs: list[Adjoint]) -> Pairs:
    x, y = _operands(op)
    return [(x, gs[0]), (y, gs[0])]


def sub(b: GradBuilder, op: ir.OpView, gs: list[Adjoint]) -> Pairs:
    x, y = _operands(op)
    return [(x, gs[0]), (y, arith.negf(gs[0]))]


def mul(b: GradBuilder, op: ir.OpView, gs: list[Adjoint]) -> Pairs:
    x, y = _operands(op)
    return [(x, arith.mulf(gs[0], b.copy_of(y))), (y, arith.mulf(gs[0], b.copy_of(x)))]


def div(b: GradBuilder, op: ir.OpView, gs: list[Adjoint]) -> Pairs:
    """d(x/y) = g/y dx - g*(x/y)/y dy."""
    x, y = _operands(op)
    gx = arith.divf(gs[0], b.copy_of(y))
    return [(x, gx), (y, arith.negf(arith.mulf(gx, b.copy_of(op.results[0]))))]


def neg(b: GradBuilder, op: ir.OpView, gs: list[Adjoint]) -> Pairs:
    return [(op.operands[0], arith.negf(gs[0]))]


def extremum(predicate: str) -> Rule:
    """max/min: the gradient goes to the operand that was chosen (``x`` on ties)."""
    cmp = getattr(arith.CmpFPredicate, predicate.upper())

    def rule(b: GradBuilder, op: ir.OpView, gs: list[Adjoint]) -> Pairs:
        x, y = _operands(op)
        pick_x = arith.cmpf(cmp, b.copy_of(x), b.copy_of(y))
        zero = b.zeros(op.results[0])
        return [(x, arith.select(pick_x, gs[0], zero)), (y, arith.select(pick_x, zero, gs[0]))]

    return rule


def select(b: GradBuilder, op: ir.OpView, gs: list[Adjoint]) -> Pairs:
    cond, x, y = _operands(op)
    zero = b.zeros(op.results[0])
    c = b.copy_of(cond)
    return [(x, arith.select(c, gs[0], zero)), (y, arith.select(c, zero, gs[0]))]


def convert(opname: str) -> Rule:
    """extf/truncf: the adjoint converts back to the operand's type (with ``opname``)."""

    def rule(b: GradBuilder, op: ir.OpView, gs: list[Adjoint]) -> Pairs:
        x = op.operands[0]
        return [(x, ir.Operation.create(opname, results=[x.type], operands=[gs[0]]).result)]

    return rule


def unary(derivative: Derivative) -> Rule:
    """A unary math op: ``derivative`` gives dy/dx; the adjoint is g * dy/dx."""

    def rule(b: GradBuilder, op: ir.OpView, gs: list[Adjoint]) -> Pairs:
        x = op.operands[0]
        return [(x, arith.mulf(gs[0], derivative(b, b.copy_of(x), b.copy_of(op.results[0]), op)))]

    return rule


def d_tanh(b: GradBuilder, x: ir.Value, y: ir.Value, op: ir.OpView) -> ir.Value:
    return arith.subf(b.full(op.results[0], 1.0), arith.mulf(y, y))


def d_log(b: GradBuilder, x: ir.Value, y: ir.Value, op: ir.OpView) -> ir.Value:
    return arith.divf(b.full(op.results[0], 1.0), x)


def d_sqrt(b: GradBuilder, x: ir.Value, y: ir.Value, op: ir.OpView) -> ir.Value:
    return arith.divf(b.full(op.results[0], 0.5), y)


def d_absf(b: GradBuilder, x: ir.Value, y: ir.Value, op: ir.OpView) -> ir.Value:
    return math.copysign(b.full(op.results[0], 1.0), x)


def d_sin(b: GradBuilder, x: ir.Value, y: ir.Value, op: ir.OpView) -> ir.Value:
    return math.cos(x)


def d_cos(b: GradBuilder, x: ir.Value, y: ir.Value, op: ir.OpView) -> ir.Value:
    return arith.negf(math.sin(x))


def d_rsqrt(b: GradBuilder, x: ir.Value, y: ir.Value, op: ir.OpView) -> ir.Value:
    """d x^(-1/2) = -y / (2x)."""
    return arith.divf(arith.mulf(b.full(op.results[0], -0.5), y), x)


def d_exp(b: GradBuilder, x: ir.Value, y: ir.Value, op: ir.OpView) -> ir.Value:
    return y


def powf(b: GradBuilder, op: ir.OpView, gs: list[Adjoint]) -> Pairs:
    """d x^p = p x^(p-1) dx + x^p log(x) dp."""
    x, p = _operands(op)
    p_minus_1 = arith.subf(b.copy_of(p), b.full(op.results[0], 1.0))
    dx = arith.mulf(b.copy_of(p), math.powf(b.copy_of(x), p_minus_1))
    dp = arith.mulf(b.copy_of(op.results[0]), math.log(b.copy_of(x)))
    return [(x, arith.mulf(gs[0], dx)), (p, arith.mulf(gs[0], dp))]
