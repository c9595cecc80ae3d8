"""VJP rules of elementwise ``arith`` and ``math`` ops.

Each rule builds ops whose types follow the forward op's operands, so one rule serves
scalars (inside a ``linalg.generic`` body) and tensors alike.
"""

from __future__ import annotations

from math import log as ln
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


def _sign(b: GradBuilder, v: ir.Value, op: ir.OpView) -> ir.Value:
    """±1 with the sign of ``v`` (-1 for -0.0: ``1 / v`` is -inf), in the type of ``op``'s
    result. Compares, not ``math.copysign``, which IREE 3.13's CPU backend cannot lower for
    float64 (a float64 ``power``'s gradient, through its ``absf``, failed to compile)."""
    zero = b.full(op.results[0], 0.0)
    below = arith.cmpf(arith.CmpFPredicate.OLT, v, zero)
    reciprocal_below = arith.cmpf(arith.CmpFPredicate.OLT, arith.divf(b.full(op.results[0], 1.0), v), zero)
    return arith.select(arith.ori(below, reciprocal_below), b.full(op.results[0], -1.0), b.full(op.results[0], 1.0))


def d_absf(b: GradBuilder, x: ir.Value, y: ir.Value, op: ir.OpView) -> ir.Value:
    return _sign(b, x, op)


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


def _c(b: GradBuilder, op: ir.OpView, value: float) -> ir.Value:
    """The constant ``value`` in the type of ``op``'s result."""
    return b.full(op.results[0], value)


def _inverse(b: GradBuilder, op: ir.OpView, v: ir.Value) -> ir.Value:
    return arith.divf(_c(b, op, 1.0), v)


def _square(v: ir.Value) -> ir.Value:
    return arith.mulf(v, v)


def _one_minus_square(b: GradBuilder, x: ir.Value, op: ir.OpView) -> ir.Value:
    return arith.subf(_c(b, op, 1.0), _square(x))


def d_exp2(b: GradBuilder, x: ir.Value, y: ir.Value, op: ir.OpView) -> ir.Value:
    return arith.mulf(y, _c(b, op, ln(2.0)))


def d_expm1(b: GradBuilder, x: ir.Value, y: ir.Value, op: ir.OpView) -> ir.Value:
    return arith.addf(y, _c(b, op, 1.0))


def d_log1p(b: GradBuilder, x: ir.Value, y: ir.Value, op: ir.OpView) -> ir.Value:
    return _inverse(b, op, arith.addf(x, _c(b, op, 1.0)))


def d_log2(b: GradBuilder, x: ir.Value, y: ir.Value, op: ir.OpView) -> ir.Value:
    return arith.divf(_c(b, op, 1.0 / ln(2.0)), x)


def d_cbrt(b: GradBuilder, x: ir.Value, y: ir.Value, op: ir.OpView) -> ir.Value:
    """1 / (3 cbrt(x)^2)."""
    return arith.divf(_c(b, op, 1.0 / 3.0), _square(y))


def d_tan(b: GradBuilder, x: ir.Value, y: ir.Value, op: ir.OpView) -> ir.Value:
    return arith.addf(_c(b, op, 1.0), _square(y))


def d_asin(b: GradBuilder, x: ir.Value, y: ir.Value, op: ir.OpView) -> ir.Value:
    return math.rsqrt(_one_minus_square(b, x, op))


def d_acos(b: GradBuilder, x: ir.Value, y: ir.Value, op: ir.OpView) -> ir.Value:
    return arith.negf(d_asin(b, x, y, op))


def d_atan(b: GradBuilder, x: ir.Value, y: ir.Value, op: ir.OpView) -> ir.Value:
    return _inverse(b, op, arith.addf(_square(x), _c(b, op, 1.0)))


def d_sinh(b: GradBuilder, x: ir.Value, y: ir.Value, op: ir.OpView) -> ir.Value:
    return math.cosh(x)


def d_cosh(b: GradBuilder, x: ir.Value, y: ir.Value, op: ir.OpView) -> ir.Value:
    return math.sinh(x)


def d_asinh(b: GradBuilder, x: ir.Value, y: ir.Value, op: ir.OpView) -> ir.Value:
    return math.rsqrt(arith.addf(_square(x), _c(b, op, 1.0)))


def d_acosh(b: GradBuilder, x: ir.Value, y: ir.Value, op: ir.OpView) -> ir.Value:
    return math.rsqrt(arith.subf(_square(x), _c(b, op, 1.0)))


def d_atanh(b: GradBuilder, x: ir.Value, y: ir.Value, op: ir.OpView) -> ir.Value:
    return _inverse(b, op, _one_minus_square(b, x, op))


def zero_gradient(b: GradBuilder, op: ir.OpView, gs: list[Adjoint]) -> Pairs:
    """Piecewise-constant ops (floor, ceil, ...): the operand's adjoint is zero."""
    return [(op.operands[0], b.zeros(op.results[0]))]


def atan2(b: GradBuilder, op: ir.OpView, gs: list[Adjoint]) -> Pairs:
    """d atan2(y, x) = (x dy - y dx) / (x^2 + y^2)."""
    y, x = _operands(op)
    yc, xc = b.copy_of(y), b.copy_of(x)
    scale = arith.divf(gs[0], arith.addf(_square(xc), _square(yc)))
    return [(y, arith.mulf(scale, xc)), (x, arith.negf(arith.mulf(scale, yc)))]


def copysign(b: GradBuilder, op: ir.OpView, gs: list[Adjoint]) -> Pairs:
    """copysign(x, s) = |x| sign(s): g sign(x) sign(s) to ``x``, nothing to ``s``."""
    x, s = _operands(op)
    sign = arith.mulf(_sign(b, b.copy_of(x), op), _sign(b, b.copy_of(s), op))
    return [(x, arith.mulf(gs[0], sign)), (s, b.zeros(op.results[0]))]


def remf(b: GradBuilder, op: ir.OpView, gs: list[Adjoint]) -> Pairs:
    """C's fmod, r = x - trunc(x/y) y: g to ``x``, -g trunc(x/y) to ``y``."""
    x, y = _operands(op)
    quotient = math.trunc(arith.divf(b.copy_of(x), b.copy_of(y)))
    return [(x, gs[0]), (y, arith.negf(arith.mulf(gs[0], quotient)))]
