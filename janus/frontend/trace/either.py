"""A Python scalar on one side of a data-dependent branch, a graph array on the other.

``running_add = 0`` on the side where a reward was scored and ``running_add * gamma + r[t]``
(a NumPy float64) on the other: after the ``scf.if`` the variable is one or the other, and
NumPy would treat the two differently (a Python ``int`` is weakly typed, ``0 * gamma`` is a
Python float). The join keeps both as an ``Either``: the static scalar, the graph value, and
an ``i1`` flag (an ``scf.if`` result) saying which one the run holds. An operator applied to
it is traced once per alternative; where the two results have one graph type, ``np.where`` on
the flag makes them one value again, so the rest of the function sees an ordinary value.
Where they do not, the result is another ``Either``; a conditional jump takes its truth the
same way. Any other use (a call, a store, a return, printing) is ``NotConvertible``: the graph never guesses which type Python has.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

import numpy as np

from janus.frontend.ops import op_table, registry
from janus.frontend.trace.scalars import weak, weak_literal
from janus.frontend.values import NotConvertible, Tensor, Weak

if TYPE_CHECKING:
    from janus.frontend.emitter import Emitter

#: the Python scalars an ``Either`` holds on its static side
STATIC_SCALARS = (bool, int, float)


def _refuse(self: "Either", *args: Any, **kwargs: Any) -> Any:
    raise NotConvertible(f"a value that is {self.describe()} depending on array values is used "
                         "other than in an operator (only operators on it are converted)")


class Either:
    """``static`` where ``flag`` (a 0-d ``tensor<i1>``) holds, else ``tensor``. A plain class,
    not a dataclass: the trace would take a dataclass for a record of the program's and read,
    store or return its fields."""

    __slots__ = ("static", "tensor", "flag")

    def __init__(self, static: bool | int | float, tensor: Tensor, flag: Tensor) -> None:
        self.static, self.tensor, self.flag = static, tensor, flag

    def describe(self) -> str:
        return f"a Python {type(self.static).__name__} or a {self.tensor.type}"

    # Python and NumPy must not read it as an object of their own: each use is refused
    __bool__ = __index__ = __int__ = __float__ = __complex__ = __str__ = __repr__ = __format__ = _refuse
    __array__ = __iter__ = __len__ = __getitem__ = __hash__ = __call__ = _refuse


def mixes(a: Any, b: Any) -> bool:
    """Whether the two sides of a join make an ``Either``: one already is one, or a Python
    scalar meets a graph value that cannot hold it as the same Python type."""
    if isinstance(a, Either) or isinstance(b, Either):
        return True
    static, traced = (a, b) if isinstance(b, Tensor) else (b, a)
    if type(static) not in STATIC_SCALARS or not isinstance(traced, Tensor):
        return False
    return not (isinstance(traced, Weak) and traced.python_type is type(static)) and traced.shape == ()


def join(em: "Emitter", a: Any, b: Any, pair: Callable[[Any, Any], Any]) -> Either:
    """The ``Either`` of the then-side ``a`` and else-side ``b``; ``pair`` joins two graph
    values of one type into an ``scf.if`` result."""
    mixed = a if isinstance(a, Either) else b if isinstance(b, Either) else None
    static = mixed.static if mixed is not None else a if type(a) in STATIC_SCALARS else b
    tensor = mixed.tensor if mixed is not None else b if static is a else a
    then, other = _side(em, a, static, tensor), _side(em, b, static, tensor)
    if then is None or other is None:
        raise NotConvertible(f"a value differs between the two sides of a branch in a way the graph cannot hold "
                             f"({_describe(a)} vs {_describe(b)})")
    return Either(static, pair(then.tensor, other.tensor), pair(then.flag, other.flag))


def _side(em: "Emitter", v: Any, static: Any, tensor: Tensor) -> Either | None:
    """One side's value as an ``Either`` of ``static`` and a graph value like ``tensor``: the
    scalar itself (flag true, a filler on the graph side), a graph value (flag false); None
    where it is neither."""
    if isinstance(v, Either):
        return v if type(v.static) is type(static) and v.static == static and _like(v.tensor, tensor) else None
    if type(v) is type(static) and v == static:
        filler = em.literal(np.zeros(tensor.shape, tensor.dtype))
        return Either(static, weak(filler) if isinstance(tensor, Weak) else filler, em.literal(np.bool_(True)))
    return Either(static, v, em.literal(np.bool_(False))) if isinstance(v, Tensor) and _like(v, tensor) else None


def _like(a: Tensor, b: Tensor) -> bool:
    return type(a) is type(b) and a.type == b.type


def lift(apply: Callable[[Any, Any], Any], em: "Emitter", a: Any, b: Any) -> Any:
    """``apply(a, b)`` (an operator) where an operand is an ``Either``: traced for each alternative, then merged."""
    flags = {id(v.flag): v.flag for v in (a, b) if isinstance(v, Either)}
    if len(flags) != 1:
        raise NotConvertible("an operator on two values that each depend on a different array-valued branch")
    flag = next(iter(flags.values()))
    try:
        on_static = apply(*(v.static if isinstance(v, Either) else v for v in (a, b)))
    except NotConvertible:
        raise
    except Exception as e:  # Python raises on the static side (1 / 0): the graph cannot say whether it runs
        raise NotConvertible(f"an operator on a value that may be a Python scalar raises for it ({type(e).__name__})") from None
    on_tensor = apply(*(v.tensor if isinstance(v, Either) else v for v in (a, b)))
    return merge(em, flag, on_static, on_tensor)


def merge(em: "Emitter", flag: Tensor, on_static: Any, on_tensor: Any) -> Any:
    """One value where the two alternatives' results have one graph type, else an ``Either``."""
    if type(on_static) in STATIC_SCALARS and isinstance(on_tensor, Weak) and on_tensor.python_type is type(on_static):
        on_static = weak_literal(em, on_static)
    if type(on_static) in STATIC_SCALARS and isinstance(on_tensor, Tensor) and on_tensor.shape == ():
        return Either(on_static, on_tensor, flag)
    if not (isinstance(on_static, Tensor) and type(on_static) is type(on_tensor) and on_static.type == on_tensor.type):
        raise NotConvertible(f"an operator on a value that may be a Python scalar gives values of two kinds "
                             f"({_describe(on_static)} vs {_describe(on_tensor)})")
    chosen = registry.apply(em, registry.BY_FUNCTION[np.where], [flag, on_static, on_tensor], {})
    return weak(chosen) if isinstance(on_tensor, Weak) else chosen


def truth(em: "Emitter", v: Either) -> Tensor:
    """Python's truth of ``v`` as a 0-d bool graph value (a conditional jump on it): that of
    the static scalar or of the graph value, as the flag says."""
    on_tensor = op_table.cast(em, v.tensor, np.dtype(bool))
    return registry.apply(em, registry.BY_FUNCTION[np.where], [v.flag, em.literal(np.bool_(bool(v.static))), on_tensor], {})


def _describe(v: Any) -> str:
    if isinstance(v, Either):
        return v.describe()
    return v.type if isinstance(v, Tensor) else type(v).__name__
