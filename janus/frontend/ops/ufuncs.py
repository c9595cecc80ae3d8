"""NumPy ufuncs beyond arithmetic: math functions, rounding, predicates, integer division,
bitwise and logical ops, and the Python operators that map to them.

Each entry is one ``op_table.elementwise`` record with a scalar body. Bodies reproduce
NumPy's corner cases exactly (integer division and modulo by zero give 0, shifts past the
width saturate, ``floor_divide`` of floats follows ``npy_divmod``) so no guard is needed.
Math functions without a janus-autodiff rule (``passes/autodiff/rules.py``) say so.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from janus.frontend.emitter import Body, Emitter
from janus.frontend.ops import vjp_numpy as v
from janus.frontend.ops.op_table import BOOL_RESULT, ScalarFn, by_kind, cast, elementwise, f32_only as _f32_only
from janus.frontend.ops.registry import BY_FUNCTION, METHODS, OPERATORS, OPS, UNARY_OPERATORS, Args, Op, Spec, register
from janus.frontend.values import NotConvertible, Tensor, check_dtype

BOOL = np.dtype(bool)
INT_ONLY = "integer and bool operands only"


def _f(predicate: str) -> tuple[str, str, str]:
    """A float-only ``arith.cmpf`` predicate for ``Body.cmp``."""
    return predicate, predicate, predicate


def _operand_dtype(samples: list[Any], out: np.dtype) -> list[np.dtype]:
    """Compute in the operands' promoted dtype (predicates: the result is bool)."""
    return [check_dtype(np.result_type(*samples))] * len(samples)


def _as_bool(samples: list[Any], out: np.dtype) -> list[np.dtype]:
    return [BOOL] * len(samples)


def _odd(opname: str, infinite: bool = False) -> ScalarFn:
    """An odd function with f(0) = 0: ``x`` itself at ±0.0 (IREE's approximations lose the
    sign of -0.0 there, which NumPy keeps), and at ±inf where ``infinite`` (f(±inf) = ±inf)."""

    def body(b: Body, t: np.dtype, xs: list[str]) -> str:
        value = by_kind(opname, None)(b, t, xs)
        fixed = b.cmp(t, _f("oeq"), xs[0], b.constant(0, t))
        if infinite:
            fixed = b.op("arith.ori", [fixed, _abs_compare("oeq", False)(b, t, xs)], "i1")
        return b.select(fixed, xs[0], value, t)

    return body


def _atan2(b: Body, t: np.dtype, xs: list[str]) -> str:
    """``atan2`` with the sign of ``y`` (IREE's drops it at y = -0.0) and C's value at
    y = ±0, x = ±0 (0 or π by the sign of x; IREE's gives NaN)."""
    y, x = xs
    zero = b.constant(0, t)
    both_zero = b.op("arith.andi", [b.cmp(t, _f("oeq"), y, zero), b.cmp(t, _f("oeq"), x, zero)], "i1")
    at_zeros = b.select(_signbit(b, t, [x]), b.constant(np.pi, t), zero, t)
    value = b.select(both_zero, at_zeros, by_kind("math.atan2", None)(b, t, xs), t)
    return b.op("math.copysign", [value, y], t)


def math_fn(name: str, eager: Any, body: ScalarFn, vjp: v.VJP) -> Any:
    """A float math function lowered to a ``math`` op (ints are cast to float first)."""
    return elementwise(name, eager, body, 1, vjp=vjp)


# ---- scalar bodies ------------------------------------------------------------------------
def _square(b: Body, t: np.dtype, xs: list[str]) -> str:
    return b.op({"f": "arith.mulf", "i": "arith.muli", "u": "arith.muli", "b": "arith.andi"}[t.kind], [xs[0], xs[0]], t)


def _reciprocal(b: Body, t: np.dtype, xs: list[str]) -> str:
    return by_kind("arith.divf", None)(b, t, [b.constant(1, t), xs[0]])


def _scaled(numerator: float, denominator: float) -> ScalarFn:
    """``x * (numerator / denominator)``, the factor divided in the compute dtype, as
    NumPy's ``deg2rad``/``rad2deg`` loops do (``180.0f / NPY_PIf`` for float32)."""
    return lambda b, t, xs: b.op("arith.mulf", [xs[0], b.constant(t.type(numerator) / t.type(denominator), t)], t)


def _positive(b: Body, t: np.dtype, xs: list[str]) -> str:
    return xs[0]


def _sign(b: Body, t: np.dtype, xs: list[str]) -> str:
    """1, -1 or 0 (+0.0 for ±0.0); NaN stays NaN."""
    x, zero = xs[0], b.constant(0, t)
    inner = b.select(b.cmp(t, ("oeq", "eq", "eq"), x, zero), zero, x, t)
    inner = b.select(b.cmp(t, ("olt", "slt", "ult"), x, zero), b.constant(-1, t), inner, t)
    return b.select(b.cmp(t, ("ogt", "sgt", "ugt"), x, zero), b.constant(1, t), inner, t)


def _log10(b: Body, t: np.dtype, xs: list[str]) -> str:
    """``log(x) / log(10)``: IREE links no ``log10`` (within an ulp or two of libm's)."""
    return b.op("arith.divf", [by_kind("math.log", None)(b, t, xs), b.constant(np.log(10.0), t)], t)


def _rounding(opname: str) -> ScalarFn:
    """floor/ceil/rint/trunc: math on floats; NumPy returns ints (and bools) unchanged."""
    return lambda b, t, xs: b.op(opname, xs, t) if t.kind == "f" else xs[0]


def _isnan(b: Body, t: np.dtype, xs: list[str]) -> str:
    return b.cmp(t, _f("uno"), xs[0], xs[0]) if t.kind == "f" else b.constant(False, BOOL)


def _abs_compare(predicate: str, int_value: bool) -> ScalarFn:
    """isinf (``|x| == inf``) / isfinite (``|x| < inf``, false on NaN); ints are finite."""

    def body(b: Body, t: np.dtype, xs: list[str]) -> str:
        if t.kind != "f":
            return b.constant(int_value, BOOL)
        return b.op("arith.cmpf", [b.op("math.absf", xs, t), b.constant(np.inf, t)], t, f"{predicate}, ", result="i1")

    return body


def _signbit(b: Body, t: np.dtype, xs: list[str]) -> str:
    """The sign bit (set on -0.0 and negative NaNs): the float's bits as a signed int < 0."""
    if t.kind in "bu":
        return b.constant(False, BOOL)
    bits = b.bitcast(xs[0], t, f"i{t.itemsize * 8}") if t.kind == "f" else xs[0]
    width = f"i{t.itemsize * 8}"
    return b.cmp(width, "slt", bits, b.constant(0, width))


def _safe_divisor(b: Body, t: np.dtype, d: str) -> tuple[str, str, str]:
    """(divisor with 0 and -1 replaced by 1, d == 0, d == -1): LLVM's sdiv/srem are
    undefined there; NumPy gives 0 (``x // 0``, ``x % 0``) and wraps ``MIN // -1``."""
    zero, one, minus_one = b.constant(0, t), b.constant(1, t), b.constant(-1, t)
    is_zero, is_minus_one = b.cmp(t, "eq", d, zero), b.cmp(t, "eq", d, minus_one)
    return b.select(b.op("arith.ori", [is_zero, is_minus_one], "i1"), one, d, t), is_zero, is_minus_one


def _float_divmod(b: Body, t: np.dtype, x: str, y: str) -> tuple[str, str]:
    """NumPy's ``npy_divmod`` for floats: (floor quotient, modulo with the divisor's sign)."""
    zero, one = b.constant(0, t), b.constant(1, t)
    mod = b.op("arith.remf", [x, y], t)
    div = b.op("arith.divf", [b.op("arith.subf", [x, mod], t), y], t)
    mod_nonzero = b.cmp(t, _f("une"), mod, zero)
    signs_differ = b.op("arith.xori", [b.cmp(t, _f("olt"), y, zero), b.cmp(t, _f("olt"), mod, zero)], "i1")
    adjust = b.op("arith.andi", [mod_nonzero, signs_differ], "i1")
    mod = b.select(adjust, b.op("arith.addf", [mod, y], t), mod, t)
    div = b.select(adjust, b.op("arith.subf", [div, one], t), div, t)
    mod = b.select(mod_nonzero, mod, b.op("math.copysign", [zero, y], t), t)
    floor = b.op("math.floor", [div], t)
    up = b.cmp(t, _f("ogt"), b.op("arith.subf", [div, floor], t), b.constant(0.5, t))
    floor = b.select(up, b.op("arith.addf", [floor, one], t), floor, t)
    quotient = b.op("arith.divf", [x, y], t)
    floordiv = b.select(b.cmp(t, _f("une"), div, zero), floor, b.op("math.copysign", [zero, quotient], t), t)
    y_zero = b.cmp(t, _f("oeq"), y, zero)
    return b.select(y_zero, quotient, floordiv, t), b.select(y_zero, b.op("arith.remf", [x, y], t), mod, t)


def _unsigned_by_nonzero(b: Body, t: np.dtype, opname: str, x: str, y: str) -> str:
    """``divui``/``remui`` (floor and modulo agree for unsigned ints) with 0 where ``y`` is 0, as NumPy."""
    zero, one = b.constant(0, t), b.constant(1, t)
    is_zero = b.cmp(t, "eq", y, zero)
    return b.select(is_zero, zero, b.op(opname, [x, b.select(is_zero, one, y, t)], t), t)


def _floor_divide(b: Body, t: np.dtype, xs: list[str]) -> str:
    x, y = xs
    if t.kind == "f":
        return _float_divmod(b, t, x, y)[0]
    if t.kind == "b":
        return b.op("arith.andi", [x, y], t)  # NumPy has no bool floor_divide: the rule already refused it
    if t.kind == "u":
        return _unsigned_by_nonzero(b, t, "arith.divui", x, y)
    safe, is_zero, is_minus_one = _safe_divisor(b, t, y)
    q = b.op("arith.floordivsi", [x, safe], t)
    q = b.select(is_minus_one, b.op("arith.subi", [b.constant(0, t), x], t), q, t)
    return b.select(is_zero, b.constant(0, t), q, t)


def _remainder(b: Body, t: np.dtype, xs: list[str]) -> str:
    """Python's modulo: the divisor's sign."""
    x, y = xs
    if t.kind == "f":
        return _float_divmod(b, t, x, y)[1]
    if t.kind == "u":
        return _unsigned_by_nonzero(b, t, "arith.remui", x, y)
    safe, is_zero, _ = _safe_divisor(b, t, y)
    r = b.op("arith.remsi", [x, safe], t)
    zero = b.constant(0, t)
    differ = b.op("arith.xori", [b.cmp(t, "slt", r, zero), b.cmp(t, "slt", y, zero)], "i1")
    fix = b.op("arith.andi", [b.cmp(t, "ne", r, zero), differ], "i1")
    r = b.select(fix, b.op("arith.addi", [r, y], t), r, t)
    return b.select(is_zero, zero, r, t)


def _fmod(b: Body, t: np.dtype, xs: list[str]) -> str:
    """C's fmod: the dividend's sign."""
    if t.kind == "f":
        return b.op("arith.remf", xs, t)
    if t.kind == "u":
        return _unsigned_by_nonzero(b, t, "arith.remui", *xs)
    safe, is_zero, _ = _safe_divisor(b, t, xs[1])
    return b.select(is_zero, b.constant(0, t), b.op("arith.remsi", [xs[0], safe], t), t)


def _heaviside(b: Body, t: np.dtype, xs: list[str]) -> str:
    x, h = xs
    zero = b.constant(0, t)
    out = b.select(b.cmp(t, _f("oeq"), x, zero), h, x, t)  # NaN stays NaN
    out = b.select(b.cmp(t, _f("olt"), x, zero), zero, out, t)
    return b.select(b.cmp(t, _f("ogt"), x, zero), b.constant(1, t), out, t)


def _logical(opname: str) -> ScalarFn:
    return lambda b, t, xs: b.op(opname, xs, BOOL)


def _logical_not(b: Body, t: np.dtype, xs: list[str]) -> str:
    return b.op("arith.xori", [xs[0], b.constant(True, BOOL)], BOOL)


def _invert(b: Body, t: np.dtype, xs: list[str]) -> str:
    return b.op("arith.xori", [xs[0], b.constant(True if t.kind == "b" else -1, t)], t)


def _shift(left: bool) -> ScalarFn:
    """``npy_lshift``/``npy_rshift``: a shift by a negative or ≥ 64 count gives 0 (``>>`` of a
    negative value: -1); LLVM leaves those undefined, so the count is clamped first."""

    def body(b: Body, t: np.dtype, xs: list[str]) -> str:
        x, n = xs
        if t.kind not in "iu":
            raise NotConvertible(f"{'left' if left else 'right'}_shift of {t.name}")
        bits = b.constant(t.itemsize * 8, t)
        ok = b.cmp(t, "ult", n, bits)
        right = "arith.shrsi" if t.kind == "i" else "arith.shrui"
        shifted = b.op("arith.shli" if left else right, [x, b.select(ok, n, b.constant(0, t), t)], t)
        zero = b.constant(0, t)
        overflow = zero if left or t.kind == "u" else b.select(b.cmp(t, "slt", x, zero), b.constant(-1, t), zero, t)
        return b.select(ok, shifted, overflow, t)

    return body


def _maxnum(float_op: str, int_op: str) -> ScalarFn:
    return by_kind(float_op, int_op, "arith.ori" if "max" in int_op else "arith.andi")


def _float_only(opname: str) -> ScalarFn:
    return by_kind(opname, None)


def _int_power(b: Body, t: np.dtype, x: str, n: int) -> str:
    """``x ** n`` for a static ``n >= 0`` by squaring (wrapping as NumPy's integer power)."""
    result, base = b.constant(1, t), x
    while n:
        if n & 1:
            result = b.op("arith.muli", [result, base], t)
        n >>= 1
        if n:
            base = b.op("arith.muli", [base, base], t)
    return result


#: static float exponents NumPy computes without ``pow`` (its scalar fast path: sqrt, square...)
EXACT_POWERS: dict[float, ScalarFn] = {
    0: lambda b, t, xs: b.constant(1, t),
    0.5: by_kind("math.sqrt", None),
    1: _positive,
    2: _square,
    -1: _reciprocal,
}
def _powf(b: Body, t: np.dtype, xs: list[str]) -> str:
    """C's ``pow`` from ``math.powf`` (which IREE computes as exp(y log x)): a negative base
    to an integer power takes the power of ``|x|`` and the sign of ``x`` for odd ``y``
    (NaN for a non-integer ``y`` and finite ``x``); x ** ±0 = 1 and 1 ** y = 1, NaN included."""
    x, y = xs
    zero, one, two = b.constant(0, t), b.constant(1, t), b.constant(2, t)
    magnitude = b.op("math.powf", [b.op("math.absf", [x], t), y], t)
    integer = b.cmp(t, _f("oeq"), b.op("math.floor", [y], t), y)
    half = b.op("math.floor", [b.op("arith.divf", [y, two], t)], t)
    odd = b.cmp(t, _f("one"), b.op("arith.mulf", [half, two], t), y)
    signed = b.select(odd, b.op("arith.negf", [magnitude], t), magnitude, t)
    # a non-integer power of -0.0 or -inf is that of its magnitude; of other negatives, NaN
    finite_negative = b.op("arith.andi", [b.cmp(t, _f("olt"), x, zero), _abs_compare("olt", True)(b, t, [x])], "i1")
    fractional = b.select(finite_negative, b.constant(np.nan, t), magnitude, t)
    negative_base = b.select(integer, signed, fractional, t)
    value = b.select(_signbit(b, t, [x]), negative_base, magnitude, t)
    exact = b.op("arith.ori", [b.cmp(t, _f("oeq"), y, zero), b.cmp(t, _f("oeq"), x, one)], "i1")
    return b.select(exact, one, value, t)


def _large(opname: str, positive_only: bool) -> ScalarFn:
    """asinh/acosh where IREE's log(x + sqrt(x² ± 1)) overflows: log(2|x|) past |x| = 1e8
    (exact to rounding there), and acosh's NaN below 1."""

    def body(b: Body, t: np.dtype, xs: list[str]) -> str:
        x = xs[0]
        size = b.op("math.absf", [x], t)
        far = b.op("arith.addf", [b.op("math.log", [size], t), b.constant(np.log(2.0), t)], t)
        far = far if positive_only else b.op("math.copysign", [far, x], t)
        value = b.select(b.cmp(t, _f("ogt"), size, b.constant(1e8, t)), far, (_odd(opname) if not positive_only else by_kind(opname, None))(b, t, xs), t)
        if positive_only:
            value = b.select(b.cmp(t, _f("olt"), x, b.constant(1, t)), b.constant(np.nan, t), value, t)
        return value

    return body


def _powf_scalar_exponent(b: Body, t: np.dtype, xs: list[str]) -> str:
    """``_powf`` by a 0-d exponent, where NumPy takes ``sqrt`` for 0.5 (-0.0 and -inf differ)."""
    half = b.cmp(t, _f("oeq"), xs[1], b.constant(0.5, t))
    return b.select(half, b.op("math.sqrt", [xs[0]], t), _powf(b, t, xs), t)


def _hypot(b: Body, t: np.dtype, xs: list[str]) -> str:
    """C's ``hypot`` without overflow: big·sqrt(1 + (small/big)²); 0 at (0, 0), inf when
    either side is infinite (NaN included, as C's), NaN otherwise propagating."""
    big_small = [b.op("math.absf", [x], t) for x in xs]
    big, small = b.op("arith.maximumf", big_small, t), b.op("arith.minimumf", big_small, t)
    one, zero = b.constant(1, t), b.constant(0, t)
    ratio = b.op("arith.divf", [small, big], t)
    value = b.op("arith.mulf", [big, b.op("math.sqrt", [b.op("arith.addf", [one, b.op("arith.mulf", [ratio, ratio], t)], t)], t)], t)
    value = b.select(b.cmp(t, _f("oeq"), big, zero), zero, value, t)
    infinite = b.op("arith.ori", [_abs_compare("oeq", False)(b, t, [x]) for x in xs], "i1")
    return b.select(infinite, b.constant(np.inf, t), value, t)


def _logaddexp(base2: bool) -> ScalarFn:
    """NumPy's ``npy_logaddexp(2)``: x + log(2) (1 in base 2) where x == y (infinities
    included), else max(x, y) + log1p(b**-|x - y|) (in base 2, over ln 2); NaN propagates."""

    def body(b: Body, t: np.dtype, xs: list[str]) -> str:
        x, y = xs
        gap = b.op("arith.negf", [b.op("math.absf", [b.op("arith.subf", [x, y], t)], t)], t)
        term = b.op("math.log1p", [b.op("math.exp2" if base2 else "math.exp", [gap], t)], t)
        if base2:
            term = b.op("arith.divf", [term, b.constant(np.log(2.0), t)], t)
        value = b.op("arith.addf", [b.op("arith.maximumf", [x, y], t), term], t)
        equal = b.op("arith.addf", [x, b.constant(1.0 if base2 else np.log(2.0), t)], t)
        return b.select(b.cmp(t, _f("oeq"), x, y), equal, value, t)

    return body


POWF = elementwise("power", np.power, _powf, 2, vjp=v.power)
POWF_SCALAR_EXPONENT = elementwise("power", np.power, _powf_scalar_exponent, 2, vjp=v.power)


def _power_lower(em: Emitter, args: Args, spec: Spec) -> Tensor:
    """``math.powf`` for floats; a static exponent of 0, ±1 or 2 as exact arithmetic; an
    integer power only by a static exponent >= 0 (NumPy raises on a negative one)."""
    x, e = args["xs"]
    if any(isinstance(v, Tensor) and v.dtype.kind == "b" for v in (x, e)):
        raise NotConvertible("power of bools (`x ** 2` is NumPy's int8 square, np.power(x, 2) an int64)")
    static = not isinstance(e, Tensor) and np.ndim(e) == 0 and isinstance(x, Tensor)
    if spec[1].kind == "f" and not (static and float(e) in EXACT_POWERS):
        zero_d = isinstance(e, Tensor) and e.ndim == 0 and isinstance(x, Tensor) and x.ndim > 0
        return (POWF_SCALAR_EXPONENT if zero_d else POWF).lower(em, args, spec)
    if not static or spec[1].kind != "f" and (float(e) != int(e) or int(e) < 0):
        raise NotConvertible("integer power by an array or negative exponent (NumPy raises on a negative one)")
    x = cast(em, x, spec[1])
    if spec[1].kind == "f":
        body = EXACT_POWERS[float(e)]
        return em.elementwise([x], spec[0], spec[1], lambda b, a: body(b, spec[1], a[:1]))
    return em.elementwise([x], spec[0], spec[1], lambda b, a: _int_power(b, spec[1], a[0], int(e)))


POWER = Op("power", np.power, POWF.bind, POWF.rule, _power_lower, dynamic=True, vjp=v.power)


def _clip(b: Body, t: np.dtype, xs: list[str]) -> str:
    """NumPy's clip: max with ``lo`` then min with ``hi``, NaN propagating and ties keeping
    ``x`` (``clip(-0.0, 0, 1)`` is -0.0, which ``maximumf`` would not give)."""
    x, lo, hi = xs
    nan = _f("uno")
    keep_x = b.cmp(t, ("oge", "sge", "uge"), x, lo)
    if t.kind == "f":
        keep_x = b.op("arith.ori", [keep_x, b.cmp(t, nan, x, x)], "i1")
    m = b.select(keep_x, x, lo, t)
    keep_m = b.cmp(t, ("ole", "sle", "ule"), m, hi)
    if t.kind == "f":
        keep_m = b.op("arith.ori", [keep_m, b.cmp(t, nan, m, m)], "i1")
    return b.select(keep_m, m, hi, t)


def _clip_bind(a: Any, a_min: Any = None, a_max: Any = None, out: Any = None, *, min: Any = None, max: Any = None) -> Args:
    low, high = a_min if a_min is not None else min, a_max if a_max is not None else max
    if low is None or high is None or out is not None:
        raise NotConvertible("clip needs both bounds and no out=")
    return {"xs": (a, low, high)}


def _clip_method(a: Any, min: Any = None, max: Any = None, out: Any = None) -> Args:
    return _clip_bind(a, min, max, out)


def _round_method(a: Any, decimals: Any = 0, out: Any = None) -> Args:
    if decimals != 0 or out is not None:
        raise TypeError("round with decimals or out= (only to integers)")
    return {"xs": (a,)}


CLIP = replace(elementwise("clip", np.clip, _clip, 3, vjp=v.clip), bind=_clip_bind)


# ---- the entries ---------------------------------------------------------------------------
UFUNCS = [
    math_fn("exp2", np.exp2, by_kind("math.exp2", None), v.exp2),
    math_fn("expm1", np.expm1, _odd("math.expm1"), v.expm1),
    math_fn("log1p", np.log1p, _odd("math.log1p"), v.log1p),
    math_fn("log2", np.log2, by_kind("math.log2", None), v.log2),
    math_fn("cbrt", np.cbrt, _f32_only(_odd("math.cbrt", infinite=True), "math.cbrt"), v.cbrt),
    math_fn("tan", np.tan, _odd("math.tan"), v.tan),
    math_fn("arcsin", np.arcsin, _odd("math.asin"), v.arcsin),
    math_fn("arccos", np.arccos, by_kind("math.acos", None), v.arccos),
    math_fn("arctan", np.arctan, _odd("math.atan"), v.arctan),
    math_fn("sinh", np.sinh, _odd("math.sinh"), v.sinh),
    math_fn("cosh", np.cosh, by_kind("math.cosh", None), v.cosh),
    math_fn("arcsinh", np.arcsinh, _large("math.asinh", positive_only=False), v.arcsinh),
    math_fn("arccosh", np.arccosh, _large("math.acosh", positive_only=True), v.arccosh),
    math_fn("arctanh", np.arctanh, _odd("math.atanh"), v.arctanh),
    elementwise("log10", np.log10, _log10, 1, vjp=v.log10),
    elementwise("deg2rad", np.deg2rad, _scaled(np.pi, 180), 1, vjp=v.deg2rad),
    elementwise("rad2deg", np.rad2deg, _scaled(180, np.pi), 1, vjp=v.rad2deg),
    elementwise("sin", np.sin, _odd("math.sin"), 1, vjp=v.sin),
    elementwise("cos", np.cos, _float_only("math.cos"), 1, vjp=v.cos),
    elementwise("square", np.square, _square, 1, vjp=v.square),
    elementwise("reciprocal", np.reciprocal, _reciprocal, 1, vjp=v.reciprocal),
    elementwise("positive", np.positive, _positive, 1, vjp=v.positive),
    elementwise("fabs", np.fabs, _float_only("math.absf"), 1, vjp=v.absolute),
    elementwise("sign", np.sign, _sign, 1, vjp=v.zero),
    elementwise("floor", np.floor, _rounding("math.floor"), 1, vjp=v.zero),
    elementwise("ceil", np.ceil, _rounding("math.ceil"), 1, vjp=v.zero),
    elementwise("rint", np.rint, _rounding("math.roundeven"), 1, vjp=v.zero),
    elementwise("trunc", np.trunc, _rounding("math.trunc"), 1, vjp=v.zero),
    elementwise("isnan", np.isnan, _isnan, 1, _operand_dtype, no_grad=BOOL_RESULT),
    elementwise("isinf", np.isinf, _abs_compare("oeq", False), 1, _operand_dtype, no_grad=BOOL_RESULT),
    elementwise("isfinite", np.isfinite, _abs_compare("olt", True), 1, _operand_dtype, no_grad=BOOL_RESULT),
    elementwise("signbit", np.signbit, _signbit, 1, _operand_dtype, no_grad=BOOL_RESULT),
    POWER,
    CLIP,
    elementwise("round", np.round, _rounding("math.roundeven"), 1, vjp=v.zero),
    elementwise("float_power", np.float_power, _powf, 2, vjp=v.power),
    elementwise("arctan2", np.arctan2, _atan2, 2, vjp=v.arctan2),
    elementwise("hypot", np.hypot, _hypot, 2, vjp=v.hypot),
    elementwise("logaddexp", np.logaddexp, _logaddexp(base2=False), 2, vjp=v.logaddexp),
    elementwise("logaddexp2", np.logaddexp2, _logaddexp(base2=True), 2, vjp=v.logaddexp2),
    elementwise("copysign", np.copysign, _float_only("math.copysign"), 2, vjp=v.copysign),
    elementwise("heaviside", np.heaviside, _heaviside, 2, vjp=v.zero),
    elementwise("fmax", np.fmax, _maxnum("arith.maxnumf", "arith.maxsi"), 2, vjp=v.fmax),
    elementwise("fmin", np.fmin, _maxnum("arith.minnumf", "arith.minsi"), 2, vjp=v.fmin),
    elementwise("floor_divide", np.floor_divide, _floor_divide, 2, vjp=v.zero),
    elementwise("remainder", np.remainder, _remainder, 2, vjp=v.remainder),
    elementwise("fmod", np.fmod, _fmod, 2, vjp=v.fmod),
    elementwise("logical_and", np.logical_and, _logical("arith.andi"), 2, _as_bool, no_grad=BOOL_RESULT),
    elementwise("logical_or", np.logical_or, _logical("arith.ori"), 2, _as_bool, no_grad=BOOL_RESULT),
    elementwise("logical_xor", np.logical_xor, _logical("arith.xori"), 2, _as_bool, no_grad=BOOL_RESULT),
    elementwise("logical_not", np.logical_not, _logical_not, 1, _as_bool, no_grad=BOOL_RESULT),
    elementwise("bitwise_and", np.bitwise_and, by_kind(None, "arith.andi", "arith.andi"), 2, no_grad=INT_ONLY),
    elementwise("bitwise_or", np.bitwise_or, by_kind(None, "arith.ori", "arith.ori"), 2, no_grad=INT_ONLY),
    elementwise("bitwise_xor", np.bitwise_xor, by_kind(None, "arith.xori", "arith.xori"), 2, no_grad=INT_ONLY),
    elementwise("invert", np.invert, _invert, 1, no_grad=INT_ONLY),
    elementwise("left_shift", np.left_shift, _shift(True), 2, no_grad=INT_ONLY),
    elementwise("right_shift", np.right_shift, _shift(False), 2, no_grad=INT_ONLY),
]

register(*UFUNCS)
#: NumPy's other names for the same functions
BY_FUNCTION.update({np.radians: OPS["deg2rad"], np.degrees: OPS["rad2deg"], np.mod: OPS["remainder"], np.around: OPS["round"], np.bitwise_not: OPS["invert"]})
METHODS["clip"] = (CLIP, _clip_method)
UNARY_OPERATORS.update({"-": OPS["negative"], "~": OPS["invert"]})
METHODS["round"] = (OPS["round"], _round_method)
OPERATORS.update({
    symbol: OPS[name]
    for symbol, name in {
        "**": "power", "//": "floor_divide", "%": "remainder",
        "&": "bitwise_and", "|": "bitwise_or", "^": "bitwise_xor", "<<": "left_shift", ">>": "right_shift",
    }.items()
})
