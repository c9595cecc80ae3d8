"""Python scalars as graph values, and Python scalars taken from graph values.

A Python ``int`` argument whose value varies is relaxed (JANUS: value -> type) to a graph
input: a 0-d ``i64`` tensor wrapped as a ``PyScalar``, which remembers that it stands for a
Python int. That matters twice: NumPy promotes Python scalars weakly (``x32 * n`` stays
float32, ``x32 * np.int64(n)`` would not), and a returned value must come back as an ``int``.
Python operators (``+ - *``, comparisons, unary ``-``, ``abs``) on ``PyScalar``s and Python
scalars give ``PyScalar``s again; anything whose Python semantics int64 cannot match
exactly (``/`` by zero, ``//`` and ``%`` rounding) is ``NotConvertible``. (Known limit:
int64 wraps where Python ints grow; values come from trip counts and sizes.)

The other direction: ``float(t)``, ``int(t)``, ``t.item()`` of a graph value. The profiler
records the Python value stored by the ``STORE_FAST`` right after such a call; a value
that was always the same becomes that constant plus a ``janus.guard`` (kind ``value``)
checking it, and a value that varied is ``NotConvertible``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

import numpy as np

from janus.frontend import op_table
from janus.frontend.emitter import Emitter
from janus.frontend.values import NotConvertible, Tensor

if TYPE_CHECKING:
    from janus.frontend.graph import Frame, Tracer

#: Python scalar types a ``PyScalar`` may stand for
PY_SCALARS = (bool, int, float)
#: operators whose int64/f64 result is exactly Python's on these operands
EXACT_OPERATORS = {"+", "-", "*", "<", "<=", ">", ">=", "==", "!="}


class PyScalar(Tensor):
    """A 0-d graph value standing for a Python scalar of type ``pytype``."""

    __slots__ = ("pytype",)

    def __init__(self, name: str, dtype: np.dtype, pytype: type) -> None:
        super().__init__(name, (), dtype)
        self.pytype = pytype

    @classmethod
    def of(cls, t: Tensor, pytype: type) -> "PyScalar":
        return cls(t.name, t.dtype, pytype)


def involved(*values: Any) -> bool:
    """Whether a Python operator on ``values`` is one on symbolic Python scalars only."""
    return any(isinstance(v, PyScalar) for v in values) and all(
        isinstance(v, PyScalar) or type(v) in PY_SCALARS for v in values)


def operator(em: Emitter, symbol: str, args: list[Any]) -> PyScalar:
    """``a <symbol> b`` (or unary ``-a``, ``abs(a)``) with Python's result type."""
    if symbol not in EXACT_OPERATORS | {"neg", "abs"}:
        raise NotConvertible(f"operator {symbol} on a relaxed Python scalar (int64 semantics differ from Python's)")
    samples = [v.pytype(1) if isinstance(v, PyScalar) else v for v in args]
    name = {"+": "add", "-": "subtract", "*": "multiply", "<": "less", "<=": "less_equal", ">": "greater",
            ">=": "greater_equal", "==": "equal", "!=": "not_equal", "neg": "negative", "abs": "absolute"}[symbol]
    pytype = type(PY_EVAL[symbol](*samples))
    return PyScalar.of(op_table.apply(em, op_table.OPS[name], args, {}), pytype)


PY_EVAL: dict[str, Callable[..., Any]] = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b, "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b, "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b, "neg": lambda a: -a, "abs": abs,
}


def from_index(em: Emitter, index: str) -> PyScalar:
    """The Python int held in the ``index`` SSA value ``index`` (a loop's induction variable)."""
    i64 = em.fresh()
    em.lines.append(f"{i64} = arith.index_cast {index} : index to i64")
    t = em.emit(f"tensor.from_elements {i64} : tensor<i64>", (), np.dtype(np.int64))
    return PyScalar.of(t, int)


def to_index(em: Emitter, value: Any) -> str:
    """An ``index`` SSA value holding the Python int ``value`` (static, or a 0-d int graph value)."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return em.index_constant(int(value))
    if isinstance(value, Tensor) and value.ndim == 0 and value.dtype == np.int64:
        element, index = em.fresh(), em.fresh()
        em.lines.append(f"{element} = tensor.extract {value.name}[] : {value.type}")
        em.lines.append(f"{index} = arith.index_cast {element} : i64 to index")
        return index
    raise NotConvertible(f"{value!r} is not an int (a loop bound or index must be an int64 value)")


# ---- graph values to Python scalars: value guards ----------------------------------------
#: conversions of a graph value to a Python scalar: callable -> result type (None: by dtype)
CONVERSIONS: dict[Any, type | None] = {int: int, float: float, "item": None}


def to_python(tracer: "Tracer", frame: "Frame", call: Any, how: Any, t: Tensor) -> Any:
    """``int(t)``, ``float(t)`` or ``t.item()`` at the CALL instruction ``call``: the
    constant the profile always saw there, under a value guard; NotConvertible if it varied."""
    offset = call.offset
    if t.size != 1:
        raise NotConvertible(f"conversion of an array of shape {t.shape} to a Python scalar")
    pytype = CONVERSIONS[how] or {"f": float, "i": int, "b": bool}[t.dtype.kind]
    what = f"{how.__name__}(...)" if isinstance(how, type) else f".{how}()"
    if isinstance(t, PyScalar):
        return t if t.pytype is pytype else PyScalar.of(op_table.cast(tracer.em, t, np.dtype(_DTYPES[pytype])), pytype)
    bc = frame.bc
    store = bc.at(bc.next_offset(offset))
    source = bc.source(offset)
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


_DTYPES = {int: np.int64, float: np.float64, bool: np.bool_}


def _holds(em: Emitter, t: Tensor, pytype: type, value: Any) -> Tensor:
    """A bool graph value: converting ``t`` to ``pytype`` gives ``value`` (false for NaN)."""
    def apply(name: str, *args: Any) -> Tensor:
        return op_table.apply(em, op_table.OPS[name], list(args), {})

    if pytype is int and t.dtype.kind == "f":  # int() truncates: value is the integer part
        x = op_table.cast(em, t, np.dtype(np.float64))
        low = apply("greater", x, float(value) - 1) if value <= 0 else apply("greater_equal", x, float(value))
        high = apply("less", x, float(value) + 1) if value >= 0 else apply("less_equal", x, float(value))
        return apply("where", low, high, False)
    compare_in = np.dtype(np.float64) if t.dtype.kind == "f" or pytype is float else np.dtype(_DTYPES[pytype])
    return apply("equal", op_table.cast(em, t, compare_in), np.asarray(value, compare_in))
