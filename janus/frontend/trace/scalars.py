"""Python scalars held by the graph (``Weak`` 0-d tensors), and Python scalars taken from
graph values.

Python ints, floats and bools become ``Weak`` graph values where they cannot be constants:
parameters of recursive functions (traced once for every call level), int arguments
relaxed from value to type (JANUS), loop induction variables and lengths of relaxed lists.
Arithmetic between Python scalars must still mean what Python means, so each operator
result is checked here: bools are ints in arithmetic (``True + True == 2``), an int result
that leaves the i64 range fails a guard (Python ints do not wrap), and a Python division
by zero (which raises) fails a guard instead of producing inf.

The other direction: ``float(t)``, ``int(t)``, ``t.item()`` of a graph value. The profiler
records the Python value stored by the ``STORE_FAST`` right after such a call; a value
that was always the same becomes that constant plus a ``janus.guard`` (kind ``value``)
checking it. A Python float that varied (a loss logged or returned each step) takes
JANUS's value -> type step: the graph holds it as a ``Weak`` float64 (exact: every float32,
float64, int64 or bool element converts to a Python float as ``float()`` does), as it holds
a float argument that varied; an int that varied is ``NotConvertible`` (``int()`` of a
float raises on NaN and inf, and Python ints do not wrap).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from janus.frontend.ops import op_table
from janus.frontend.ops import registry
from janus.frontend.emitter import Emitter
from janus.frontend.trace import math_calls
from janus.frontend.values import Length, NotConvertible, Tensor, Weak

if TYPE_CHECKING:
    from janus.frontend.trace.frame import Frame
    from janus.frontend.trace.interpreter import Tracer

PYTHON_DTYPES = {bool: np.dtype(bool), int: np.dtype(np.int64), float: np.dtype(np.float64)}
ARITHMETIC = ("+", "-", "*", "/")
I64 = np.iinfo(np.int64)


def is_python_scalar(x: Any) -> bool:
    return isinstance(x, Weak) or type(x) in PYTHON_DTYPES


def weak_literal(em: Emitter, value: Any) -> Weak:
    """A Python scalar constant as a ``Weak`` value."""
    if type(value) not in PYTHON_DTYPES:
        raise NotConvertible(f"a {type(value).__name__} is not a Python scalar")
    if type(value) is int and not I64.min <= value <= I64.max:
        raise NotConvertible(f"the int {value} does not fit in 64 bits")
    t = em.literal(np.asarray(value, PYTHON_DTYPES[type(value)]))
    return Weak(t.name, (), t.dtype)


def as_int(em: Emitter, x: Any) -> Any:
    """Bools as the ints Python arithmetic sees."""
    if type(x) is bool:
        return int(x)
    if isinstance(x, Weak) and x.dtype.kind == "b":
        return em.elementwise([x], (), np.dtype(np.int64), lambda b, a: b.cast(a[0], x.dtype, np.dtype(np.int64)))
    return x


def operands(em: Emitter, symbol: str, a: Any, b: Any) -> tuple[Any, Any]:
    """The operands NumPy must see for Python's ``a symbol b`` on Python scalars."""
    if symbol in ARITHMETIC and is_python_scalar(a) and is_python_scalar(b):
        return as_int(em, a), as_int(em, b)
    return a, b


def result(tracer: "Tracer", symbol: str, a: Any, b: Any, value: Tensor) -> Tensor:
    """``value`` (NumPy's ``a symbol b``) as Python's: ``Weak`` and guarded when both
    operands are Python scalars; unchanged otherwise."""
    if not (is_python_scalar(a) and is_python_scalar(b)):
        return value
    em = tracer.em
    if symbol in ("+", "-", "*") and value.dtype.kind == "i":
        ok = no_overflow(em, symbol, _scalar(em, a), _scalar(em, b), em.scalar(value))
        tracer.guard(ok, "type", f"Python int {symbol} stays within 64 bits")
    if symbol == "/":
        divisor = _scalar(em, b)
        dtype = PYTHON_DTYPES[type(b)] if not isinstance(b, Tensor) else b.dtype
        body = em.scalars()
        nonzero = body.cmp(dtype, ("une", "ne", "ne"), divisor, body.constant(0, dtype))
        tracer.guard(nonzero, "raise", "Python division by zero (ZeroDivisionError)")
    if symbol == "**" and value.dtype.kind == "f":
        _guard_float_power(tracer, a, b, value)
    return Weak(value.name, value.shape, value.dtype)


def _guard_float_power(tracer: "Tracer", a: Any, b: Any, value: Tensor) -> None:
    """Where C's ``pow`` gives an infinity or a NaN from finite operands, Python's float ``**``
    raises (``OverflowError``: ``1.7 ** 2000``; ``ZeroDivisionError``: ``0.0 ** -1``) or
    returns a complex (``(-8.0) ** (1 / 3)``): such a call runs in Python. (A Python
    operand that is an infinity or a NaN itself: any result may be Python's.)"""
    if any(not isinstance(x, Tensor) and not math.isfinite(x) for x in (a, b)):
        return
    floats = [x for x in (a, b) if isinstance(x, Tensor) and x.dtype.kind == "f"]
    ok = tracer.em.scalar_condition(math_calls.no_new_specials(tracer, floats, value))
    tracer.guard(ok, "raise", "Python float ** gives no NaN or infinity its operands do not hold "
                 "(else OverflowError, ZeroDivisionError or a complex result)")


def _scalar(em: Emitter, x: Any) -> str:
    return em.scalar(x if isinstance(x, Tensor) else weak_literal(em, x))


def no_overflow(em: Emitter, symbol: str, a: str, b: str, r: str) -> str:
    """An ``i1`` that is true when the i64 ``r = a symbol b`` did not wrap."""
    s = em.scalars()
    if symbol == "*":  # b == 0, or b == -1 and a != MIN, or else a in [MIN / b, MAX / b] (ordered by b's sign)
        zero, minus_one, one = s.constant(0, "i64"), s.constant(-1, "i64"), s.constant(1, "i64")
        low, high = s.constant(I64.min, "i64"), s.constant(I64.max, "i64")
        b_zero, b_minus_one = s.cmp("i64", "eq", b, zero), s.cmp("i64", "eq", b, minus_one)
        divisor = s.select(s.op("arith.ori", [b_zero, b_minus_one], "i1"), one, b, "i64")
        low_q, high_q = s.op("arith.divsi", [low, divisor], "i64"), s.op("arith.divsi", [high, divisor], "i64")
        positive = s.cmp("i64", "sgt", b, zero)
        lower = s.select(positive, low_q, high_q, "i64")
        upper = s.select(positive, high_q, low_q, "i64")
        inside = s.op("arith.andi", [s.cmp("i64", "sge", a, lower), s.cmp("i64", "sle", a, upper)], "i1")
        a_not_min = s.cmp("i64", "ne", a, low)
        ok = s.select(b_zero, s.constant(True, np.dtype(bool)), s.select(b_minus_one, a_not_min, inside, "i1"), "i1")
    else:
        # add: a and b have the same sign and r another; sub: a and b differ in sign and r differs from a
        first = s.op("arith.xori", [a, r] if symbol == "+" else [a, b], "i64")
        second = s.op("arith.xori", [b, r] if symbol == "+" else [a, r], "i64")
        both = s.op("arith.andi", [first, second], "i64")
        ok = s.cmp("i64", "sge", both, s.constant(0, "i64"))
    return ok


def promote(em: Emitter, a: Any, b: Any, made: dict[int, Any]) -> tuple[Any, Any]:
    """``a`` and ``b`` joined at a branch where one is ``Weak``: the other must be a Python
    scalar of the same type (``1`` on one side, an int computed on the other). Where one is
    a graph array and the other an array the trace made (``made``: ``np.zeros(shape)`` on
    one side, a row of a parameter on the other), that array becomes a constant of the graph
    (nothing else holds it, so no identity is lost). Two different Python scalars of one type
    (``1.0 if c else -1.0``) are one Python scalar either way: both become ``Weak`` constants."""
    if type(a) is type(b) and type(a) in PYTHON_DTYPES:
        return weak_literal(em, a), weak_literal(em, b)
    if not isinstance(a, Weak) and not isinstance(b, Weak):
        traced, other = (a, b) if isinstance(a, Tensor) else (b, a)
        if not (type(other) is np.ndarray and made.get(id(other)) is other and other.shape == traced.shape
                and other.dtype == traced.dtype):
            sides = (traced.type, type(other).__name__) if traced is a else (type(other).__name__, traced.type)
            raise NotConvertible(
                f"a value differs between the two sides of a branch in a way the graph cannot hold ({sides[0]} vs {sides[1]})"
            )
        literal = em.literal(other)
        return (traced, literal) if traced is a else (literal, traced)
    weak = a if isinstance(a, Weak) else b
    other = b if weak is a else a
    if type(other) is not weak.python_type:
        raise NotConvertible(
            f"a value differs between the two sides of a branch in a way the graph cannot hold "
            f"(a Python {weak.python_type.__name__} vs {type(other).__name__})"
        )
    literal = weak_literal(em, other)
    return (weak, literal) if weak is a else (literal, weak)


def weak(t: Tensor) -> Weak:
    """The 0-d graph value ``t`` as the Python scalar of its dtype."""
    return Weak(t.name, (), t.dtype)


def absolute(em: Emitter, x: Weak) -> Weak:
    """Python's ``abs`` of a graph Python scalar (same type)."""
    return weak(registry.apply(em, registry.OPS["absolute"], [as_int(em, x)], {}))


# ---- loop bounds and indices ---------------------------------------------------------------
def from_index(em: Emitter, index: str) -> Weak:
    """The Python int held in the ``index`` SSA value ``index`` (a loop's induction variable)."""
    return weak(em.from_scalar(em.scalars().index_cast(index, "index", "i64"), np.dtype(np.int64)))


def array_length(em: Emitter, x: Tensor) -> int | Length:
    """``len(x)``: an int, or for a ``?`` first dim the ``Length`` of that dim."""
    if x.ndim == 0:
        raise NotConvertible("len() of a 0-d array")
    return dim_length(em, x, 0)


def array_shape(em: Emitter, x: Tensor) -> tuple[int | Length, ...]:
    """``x.shape``: its static dims as ints, each ``?`` dim as the ``Length`` of that dim, so
    that ``T, d = x.shape`` and ``range(x.shape[0])`` follow the dim instead of fixing it."""
    return tuple(dim_length(em, x, axis) for axis in range(x.ndim))


def dim_length(em: Emitter, x: Tensor, axis: int) -> int | Length:
    """Dim ``axis`` of ``x`` as a Python int: the int, or a ``Length`` known to equal the ``?`` dim."""
    size = x.shape[axis]
    if not isinstance(size, str):
        return size
    em.bind_dim(size, x, axis)
    n = from_index(em, em.dims[size])
    return Length(n.name, (), n.dtype, size)


def to_index(em: Emitter, value: Any) -> str:
    """An ``index`` SSA value holding the Python int ``value`` (static, or a 0-d int graph value)."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return em.index_constant(int(value))
    if isinstance(value, Tensor) and value.ndim == 0 and value.dtype == np.int64:
        return em.scalars().index_cast(em.scalar(value), "i64", "index")
    raise NotConvertible(f"{value!r} is not an int (a loop bound or index must be an int64 value)")


# ---- graph values to Python scalars: value guards ----------------------------------------
#: conversions of a graph value to a Python scalar: callable -> result type (None: by dtype)
CONVERSIONS: dict[Any, type | None] = {int: int, float: float, "item": None}


def to_python(tracer: "Tracer", frame: "Frame", call: Any, how: Any, t: Tensor) -> Any:
    """``int(t)``, ``float(t)`` or ``t.item()`` at the CALL instruction ``call``: the
    constant the profile always saw there, under a value guard; a float that varied as a
    ``Weak`` graph value; ``int`` of a float passed on without a store (so never profiled)
    truncated in the graph under an int64-range guard; NotConvertible for another value
    that varied. ``.item()`` of a one-element array of any rank converts its element."""
    offset = call.offset
    if t.size != 1:
        raise NotConvertible(f"conversion of an array of shape {t.shape} to a Python scalar")
    pytype = CONVERSIONS[how] or {"f": float, "i": int, "b": bool}[t.dtype.kind]
    what = f"{how.__name__}(...)" if isinstance(how, type) else f".{how}()"
    if isinstance(t, Weak):
        return t if t.python_type is pytype else weak(op_table.cast(tracer.em, t, PYTHON_DTYPES[pytype]))
    bc = frame.bc
    store = bc.at(bc.next_offset(offset))
    source = bc.source(offset)
    if how == "item":  # ``(y.T @ v).item()``: the one element of a (1, 1) array (``int``/``float`` need 0-d)
        t = tracer.em.reshape(t, ())
    if t.ndim == 0 and len(tracer.profile.values.get((bc.code, store.offset), ())) != 1 and _exact_in_graph(pytype, t):
        return weak(op_table.cast(tracer.em, t, PYTHON_DTYPES[pytype]))  # varied, or not recorded: the type step
    if t.ndim == 0 and store.opname != "STORE_FAST" and pytype is int and t.dtype.kind == "f":
        return _truncated(tracer, t, source)  # ``f(int(row[0]))``: never recorded
    if store.opname != "STORE_FAST":
        raise NotConvertible(f"{what} of an array value is only converted when stored in a local "
                             "(the profiler records values stored right after the call)")
    site = (bc.code, store.offset)
    seen = tracer.profile.values.get(site)
    if not seen:
        raise NotConvertible(f"no profiled value for {what} stored in {store.argval}")
    if len(seen) != 1:
        values = ", ".join(repr(v) for _, v in list(seen)[:3])
        raise NotConvertible(f"{what} stored in {store.argval} took different values when profiled ({values}): "
                             "a Python scalar taken from an array value must be constant to be speculated")
    ((kind, value),) = seen
    if kind is not pytype:
        raise NotConvertible(f"{what} stored in {store.argval} was a {kind.__name__} when profiled")
    gid = tracer.em.guard(tracer.em.scalar_condition(_holds(tracer.em, t, pytype, value)), "value", source)
    tracer.guards.append((gid, "value", source))
    tracer.guard_sites[gid] = site
    return value


def _exact_in_graph(pytype: type, t: Tensor) -> bool:
    """Whether ``pytype(t)`` is exactly a graph scalar of ``pytype``: any float; an int only
    from integers or bools that fit int64 (``int(np.argmax(p))``; ``int`` of a float may
    leave int64, where Python's int keeps growing)."""
    return pytype is float or pytype is int and (t.dtype.kind in "ib" or t.dtype.kind == "u" and t.dtype.itemsize < 8)


def _truncated(tracer: "Tracer", t: Tensor, source: str) -> Weak:
    """``int(x)`` of a float graph value: truncated toward zero as Python does, under a guard
    that ``x`` lies in int64's range (Python's int of a larger float keeps growing; of NaN or
    infinity it raises: the guard fails and the call runs in Python)."""
    em = tracer.em
    x = op_table.cast(em, t, np.dtype(np.float64))
    inside = registry.call(em, "logical_and", registry.call(em, "greater_equal", x, -(2.0**63)), registry.call(em, "less", x, 2.0**63))
    tracer.guard(em.scalar_condition(inside), "value", source)
    return weak(op_table.cast(em, x, np.dtype(np.int64)))


def _holds(em: Emitter, t: Tensor, pytype: type, value: Any) -> Tensor:
    """A bool graph value: converting ``t`` to ``pytype`` gives ``value`` (false for NaN)."""
    def apply(name: str, *args: Any) -> Tensor:
        return registry.call(em, name, *args)

    if pytype is int and t.dtype.kind == "f":  # int() truncates: value is the integer part
        x = op_table.cast(em, t, np.dtype(np.float64))
        low = apply("greater", x, float(value) - 1) if value <= 0 else apply("greater_equal", x, float(value))
        high = apply("less", x, float(value) + 1) if value >= 0 else apply("less_equal", x, float(value))
        return apply("where", low, high, False)
    compare_in = np.dtype(np.float64) if t.dtype.kind == "f" or pytype is float else PYTHON_DTYPES[pytype]
    return apply("equal", op_table.cast(em, t, compare_in), np.asarray(value, compare_in))
