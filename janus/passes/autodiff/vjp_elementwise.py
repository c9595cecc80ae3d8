"""VJP rules of elementwise ``arith`` and ``math`` ops.

Each rule emits ops with the forward op's own types, so one rule serves scalars (inside a
``linalg.generic`` body) and tensors alike.
"""

from __future__ import annotations

from janus.ir import ir
from janus.passes.autodiff.builder import GradBuilder

Pairs = list[tuple[ir.Value, str]]


def _bin(b: GradBuilder, opname: str, x: str, y: str, t: ir.Type) -> str:
    return b.op(f"{opname} {x}, {y} : {t}")


def _mul(b: GradBuilder, x: str, y: str, t: ir.Type) -> str:
    return _bin(b, "arith.mulf", x, y, t)


def _div(b: GradBuilder, x: str, y: str, t: ir.Type) -> str:
    return _bin(b, "arith.divf", x, y, t)


def _neg(b: GradBuilder, x: str, t: ir.Type) -> str:
    return b.op(f"arith.negf {x} : {t}")


def _select(b: GradBuilder, cond: ir.Value | str, cond_type: ir.Type, on_true: str, on_false: str, t: ir.Type) -> str:
    c = cond if isinstance(cond, str) else b.name(cond)
    return b.op(f"arith.select {c}, {on_true}, {on_false} : {cond_type}, {t}")


def _operands(op: ir.OpView) -> tuple[ir.Value, ...]:
    return tuple(op.operands)


def add(b: GradBuilder, op: ir.OpView, gs: list) -> Pairs:
    x, y = _operands(op)
    return [(x, gs[0]), (y, gs[0])]


def sub(b: GradBuilder, op: ir.OpView, gs: list) -> Pairs:
    x, y = _operands(op)
    return [(x, gs[0]), (y, _neg(b, gs[0], y.type))]


def mul(b: GradBuilder, op: ir.OpView, gs: list) -> Pairs:
    x, y = _operands(op)
    t = op.results[0].type
    return [(x, _mul(b, gs[0], b.name(y), t)), (y, _mul(b, gs[0], b.name(x), t))]


def div(b: GradBuilder, op: ir.OpView, gs: list) -> Pairs:
    """d(x/y) = g/y dx - g*(x/y)/y dy."""
    x, y = _operands(op)
    t = op.results[0].type
    gx = _div(b, gs[0], b.name(y), t)
    return [(x, gx), (y, _neg(b, _mul(b, gx, b.name(op.results[0]), t), t))]


def neg(b: GradBuilder, op: ir.OpView, gs: list) -> Pairs:
    return [(op.operands[0], _neg(b, gs[0], op.results[0].type))]


def extremum(predicate: str):
    """max/min: the gradient goes to the operand that was chosen (``x`` on ties)."""

    def rule(b: GradBuilder, op: ir.OpView, gs: list) -> Pairs:
        x, y = _operands(op)
        t = op.results[0].type
        pick_x = b.op(f"arith.cmpf {predicate}, {b.name(x)}, {b.name(y)} : {t}")
        cond_type = _i1_like(t)
        zero = b.zeros(op.results[0])
        return [(x, _select(b, pick_x, cond_type, gs[0], zero, t)), (y, _select(b, pick_x, cond_type, zero, gs[0], t))]

    return rule


def _i1_like(t: ir.Type) -> ir.Type:
    i1 = ir.IntegerType.get_signless(1)
    if isinstance(t, ir.RankedTensorType):
        return ir.RankedTensorType.get(ir.RankedTensorType(t).shape, i1)
    return i1


def select(b: GradBuilder, op: ir.OpView, gs: list) -> Pairs:
    cond, x, y = _operands(op)
    t = op.results[0].type
    zero = b.zeros(op.results[0])
    return [(x, _select(b, cond, cond.type, gs[0], zero, t)), (y, _select(b, cond, cond.type, zero, gs[0], t))]


def convert(opname: str):
    """extf/truncf: the adjoint converts back to the operand's type."""

    def rule(b: GradBuilder, op: ir.OpView, gs: list) -> Pairs:
        x = op.operands[0]
        return [(x, b.op(f"{opname} {gs[0]} : {op.results[0].type} to {x.type}"))]

    return rule


def unary(derivative):
    """A unary math op: ``derivative(b, x, y, t)`` names dy/dx; the adjoint is g * dy/dx."""

    def rule(b: GradBuilder, op: ir.OpView, gs: list) -> Pairs:
        x = op.operands[0]
        t = op.results[0].type
        return [(x, _mul(b, gs[0], derivative(b, b.name(x), b.name(op.results[0]), op), t))]

    return rule


def _math(b: GradBuilder, name: str, x: str, t: ir.Type) -> str:
    return b.op(f"math.{name} {x} : {t}")


def d_tanh(b: GradBuilder, x: str, y: str, op: ir.OpView) -> str:
    t = op.results[0].type
    return _bin(b, "arith.subf", b.full(op.results[0], 1.0), _mul(b, y, y, t), t)


def d_log(b: GradBuilder, x: str, y: str, op: ir.OpView) -> str:
    return _div(b, b.full(op.results[0], 1.0), x, op.results[0].type)


def d_sqrt(b: GradBuilder, x: str, y: str, op: ir.OpView) -> str:
    return _div(b, b.full(op.results[0], 0.5), y, op.results[0].type)


def d_absf(b: GradBuilder, x: str, y: str, op: ir.OpView) -> str:
    t = op.results[0].type
    return b.op(f"math.copysign {b.full(op.results[0], 1.0)}, {x} : {t}")


def d_sin(b: GradBuilder, x: str, y: str, op: ir.OpView) -> str:
    return _math(b, "cos", x, op.results[0].type)


def d_cos(b: GradBuilder, x: str, y: str, op: ir.OpView) -> str:
    return _neg(b, _math(b, "sin", x, op.results[0].type), op.results[0].type)


def d_rsqrt(b: GradBuilder, x: str, y: str, op: ir.OpView) -> str:
    """d x^(-1/2) = -y / (2x)."""
    t = op.results[0].type
    return _div(b, _mul(b, b.full(op.results[0], -0.5), y, t), x, t)


def d_exp(b: GradBuilder, x: str, y: str, op: ir.OpView) -> str:
    return y


def powf(b: GradBuilder, op: ir.OpView, gs: list) -> Pairs:
    """d x^p = p x^(p-1) dx + x^p log(x) dp."""
    x, p = _operands(op)
    t = op.results[0].type
    p_minus_1 = _bin(b, "arith.subf", b.name(p), b.full(op.results[0], 1.0), t)
    dx = _mul(b, b.name(p), _bin(b, "math.powf", b.name(x), p_minus_1, t), t)
    dp = _mul(b, b.name(op.results[0]), _math(b, "log", b.name(x), t), t)
    return [(x, _mul(b, gs[0], dx, t)), (p, _mul(b, gs[0], dp, t))]


