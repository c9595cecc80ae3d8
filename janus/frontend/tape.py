"""The eager reverse-mode tape behind ``janus.grad`` when a function runs in Python.

The differentiated arguments are wrapped in ``Traced`` arrays. NumPy hands every ufunc
and array function called on one to ``__array_ufunc__`` / ``__array_function__``
(operators and methods go through the same path), where the op is looked up in the
frontend op table: its ``eager`` result (NumPy's own) is computed on the unwrapped
values and, for float results, recorded on the tape with the op's bound arguments.
``backward`` walks the tape in reverse, calling each op's ``vjp`` rule. Results that are
not floats (comparisons, int arithmetic) are plain NumPy values, so Python control flow
on them works as usual. An op outside the table, or one without a rule, is an error
naming it, and a traced value never silently turns into a constant: ``float()`` and
``np.asarray`` on one raise. ``y *= 2`` updates the traced array itself, as NumPy updates
the array every alias sees (``Traced.update``); where NumPy's update would reach values the
tape keeps apart (a view, the caller's argument) and for item assignment, it raises.

``np.array`` dispatches to nothing (it converts each item with ``__array__``), so while a
tape records (``with tape:``) ``numpy.array`` is a wrapper that records a flat list of
traced values as the op table's ``array`` (a stack) and calls NumPy's own for all else.
"""

from __future__ import annotations

import threading
import weakref
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

import numpy as np

from janus.frontend.ops import registry
from janus.frontend.ops.advanced import is_advanced
from janus.frontend.ops.masks import is_mask
from janus.frontend.ops.registry import Op
from janus.frontend.values import NotConvertible


class TapeError(TypeError):
    """An operation the eager tape cannot differentiate (named in the message)."""


@dataclass
class Node:
    """One recorded op: its result and, per traced operand, where it sits in ``args``."""

    op: Op | None  # None for an input
    out: Any
    args: dict[str, Any] = field(default_factory=dict)
    parents: list[tuple[tuple, int]] = field(default_factory=list)  # (path in args, node index)


class Tape:
    """The nodes of one differentiated call, in execution order; ``with tape:`` while the
    differentiated function runs (``np.array`` of traced values is then recorded)."""

    def __init__(self) -> None:
        self.nodes: list[Node] = []

    def __enter__(self) -> "Tape":
        _ARRAY_DISPATCH.enter()
        return self

    def __exit__(self, *exc: Any) -> None:
        _ARRAY_DISPATCH.exit()

    def input(self, value: Any) -> "Traced":
        self.nodes.append(Node(None, value))
        return Traced(value, self, len(self.nodes) - 1)

    def apply(self, op: Op | None, name: str, eager: Callable[..., Any], args: tuple, kwargs: dict,
              bind: Callable[..., dict] | None = None) -> Any:
        """Run ``eager`` on the unwrapped arguments; record it if the result is a float (each
        piece of a list or tuple result, as ``np.split``'s or ``np.meshgrid``'s, on its own, with
        its position as ``piece``)."""
        if op is None:
            raise TapeError(f"janus.grad: {name} is not in the op table, so it has no VJP rule")
        out = eager(*unwrap(args), **unwrap(kwargs))
        if isinstance(out, (list, tuple)):
            return type(out)(self.record(op, piece, args, kwargs, bind, {"piece": i}) for i, piece in enumerate(out))
        return self.record(op, out, args, kwargs, bind, {})

    def record(self, op: Op, out: Any, args: tuple, kwargs: dict, bind: Callable[..., dict] | None, extra: dict) -> Any:
        """``out`` of ``op`` as a node of the tape, if it is a float result of traced operands."""
        if np.result_type(out).kind != "f":
            return out
        if op.vjp is None:
            raise TapeError(f"janus.grad: op {op.name} has no VJP rule")
        try:
            bound = (bind or op.bind)(*args, **kwargs)
        except TypeError as e:
            raise TapeError(f"janus.grad: op {op.name}: unsupported arguments ({e})") from None
        parents = [(path, t.index) for path, t in traced_leaves(bound) if self.owns(t)]
        if not parents:
            return out
        self.nodes.append(Node(op, out, {**unwrap(bound), **extra}, parents))
        result = Traced(out, self, len(self.nodes) - 1)
        base = bound.get("a") if op.name in registry.VIEW_OPS else None
        if isinstance(base, Traced) and isinstance(out, np.ndarray) and np.may_share_memory(out, base.value):
            # NumPy's result shares the operand's memory: in-place updates must know
            result.base = base if base.base is None else base.base
            result.base.views.append(weakref.ref(result))
        return result

    def owns(self, t: "Traced") -> bool:
        if t.tape is not self:
            raise TapeError("janus.grad: values of another (outer) janus.grad call; nested gradients are not supported")
        return True

    def backward(self, out: "Traced", inputs: list["Traced"]) -> list[Any]:
        """Cotangents of ``inputs`` for a seed of ones on the scalar ``out``."""
        cot: dict[int, Any] = {out.index: np.ones_like(out.value)}
        for index in range(out.index, -1, -1):
            node = self.nodes[index]
            if node.op is None or index not in cot:
                continue  # an input keeps its cotangent
            g = cot.pop(index)
            try:
                grads = node.op.vjp(g, node.out, node.args)
            except NotImplementedError as e:
                raise TapeError(f"janus.grad: op {node.op.name}: {e}") from None
            for path, parent in node.parents:
                d = lookup(grads, path)
                if d is not None:
                    d = np.asarray(d, np.result_type(self.nodes[parent].out))
                    cot[parent] = d if parent not in cot else cot[parent] + d
        return [cot.get(t.index, np.zeros_like(t.value)) for t in inputs]


class ArrayDispatch:
    """``numpy.array`` replaced by ``recording_array`` while any tape records (nested and
    concurrent tapes share one count); NumPy's own function is put back after the last."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.depth = 0
        self.numpy_array = np.array

    def enter(self) -> None:
        with self.lock:
            if self.depth == 0:
                np.array = recording_array
            self.depth += 1

    def exit(self) -> None:
        with self.lock:
            self.depth -= 1
            if self.depth == 0:
                np.array = self.numpy_array


def recording_array(object: Any, *args: Any, **kwargs: Any) -> Any:
    """``np.array``: a flat list or tuple holding traced values is the ``array`` op, recorded
    on their tape; anything else (a nested list of traced values included, which then
    raises in ``__array__``) is NumPy's own call."""
    numpy_array = _ARRAY_DISPATCH.numpy_array
    traced = [x for x in object if isinstance(x, Traced)] if type(object) in (list, tuple) else []
    if not traced:
        return numpy_array(object, *args, **kwargs)
    op = registry.OPS["array"]
    try:
        op.bind(object, *args, **kwargs)
    except (NotConvertible, TypeError) as e:  # a form the op does not take
        raise TapeError(f"janus.grad: np.array of traced values: {e}") from None
    return traced[0].tape.apply(op, "np.array", numpy_array, (object, *args), kwargs)


def lookup(grads: dict[str, Any], path: tuple) -> Any:
    value: Any = grads.get(path[0])
    for i in path[1:]:
        if value is None:
            return None
        value = value[i]
    return value


def traced_leaves(value: Any, path: tuple = ()) -> Iterator[tuple[tuple, "Traced"]]:
    """(path, traced value) for each traced leaf of bound arguments (dicts, lists, tuples)."""
    if isinstance(value, Traced):
        yield path, value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from traced_leaves(v, path + (k,))
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            yield from traced_leaves(v, path + (i,))


def unwrap(value: Any) -> Any:
    """``value`` with every traced array replaced by its NumPy value."""
    if isinstance(value, Traced):
        return value.value
    if isinstance(value, dict):
        return {k: unwrap(v) for k, v in value.items()}
    if type(value) in (list, tuple):
        return type(value)(unwrap(v) for v in value)
    return value


def _method(name: str) -> Callable[..., Any]:
    def method(self: "Traced", *args: Any, **kwargs: Any) -> Any:
        op, bind = registry.METHODS[name]
        eager = lambda receiver, *a, **k: getattr(receiver, name)(*a, **k)  # noqa: E731  (NumPy's own method)
        return self.tape.apply(op, f"ndarray.{name}", eager, (self, *args), kwargs, bind)

    method.__name__ = name
    return method


class Traced:
    """A float array (or scalar) whose operations are recorded on a tape."""

    __slots__ = ("value", "tape", "index", "base", "views", "__weakref__")
    __array_priority__ = 1000

    def __init__(self, value: Any, tape: Tape, index: int) -> None:
        self.value, self.tape, self.index = value, tape, index
        self.base: Traced | None = None  # the array this one is a view of (``registry.VIEW_OPS``)
        self.views: list[weakref.ref[Traced]] = []  # views of this one (live while their ref resolves)

    # ---- NumPy dispatch ----------------------------------------------------------------
    def __array_ufunc__(self, ufunc: np.ufunc, method: str, *inputs: Any, **kwargs: Any) -> Any:
        name = f"np.{ufunc.__name__}" + ("" if method == "__call__" else f".{method}")
        function = getattr(ufunc, method)  # a method (``np.add.reduce``) is an entry of its own
        op = registry.BY_FUNCTION.get(ufunc if method == "__call__" else function) if "out" not in kwargs else None
        return self.tape.apply(op, name, function, inputs, kwargs)

    def __array_function__(self, func: Callable, types: tuple, args: tuple, kwargs: dict) -> Any:
        name = f"np.{getattr(func, '__name__', func)}"
        return self.tape.apply(registry.BY_FUNCTION.get(func), name, func, args, kwargs)

    def __array__(self, *args: Any, **kwargs: Any) -> Any:
        raise TapeError("janus.grad: converting a traced array to a NumPy array (np.asarray) would drop its gradient")

    # ---- array protocol ----------------------------------------------------------------
    shape = property(lambda self: np.shape(self.value))
    ndim = property(lambda self: np.ndim(self.value))
    size = property(lambda self: np.size(self.value))
    dtype = property(lambda self: np.result_type(self.value))
    T = property(lambda self: np.transpose(self))

    def __len__(self) -> int:
        return len(self.value)

    def __iter__(self) -> Iterator[Any]:
        return (self[i] for i in range(len(self)))

    def __bool__(self) -> bool:
        return bool(self.value)

    def __float__(self) -> float:
        raise TapeError("janus.grad: float() of a traced value would drop its gradient")

    __int__ = __index__ = __complex__ = __float__

    def __getitem__(self, key: Any) -> Any:
        """Basic indexing is ``getitem``, a boolean mask ``mask_read``, other advanced indexing
        ``gather``: the ops a traced call lowers to."""
        key = unwrap(key)
        op = registry.OPS["mask_read" if is_mask(key) else "gather" if is_advanced(key) else "getitem"]
        return self.tape.apply(op, op.name, lambda a, k: a[k], (self, key), {})

    def __setitem__(self, key: Any, value: Any) -> None:
        raise TapeError("janus.grad: item assignment into a traced array is not differentiated on the tape "
                        "(build the array with np.where, np.concatenate or np.stack instead)")

    def update(self, ufunc: np.ufunc, other: Any) -> "Traced":
        """``self op= other``: NumPy updates the array in place, so every name bound to it sees the
        new value (``z = y; y *= 2`` doubles ``z``). The result is recorded as usual and this very
        object then stands for it. Refused where the update would reach values the tape keeps
        apart: the caller's argument array, or an array that shares memory with another (a view)."""
        if not isinstance(self.value, np.ndarray):  # a NumPy scalar is immutable: Python rebinds the name
            return ufunc(self, other)
        what = f"janus.grad: in-place {ufunc.__name__}"
        if self.tape.nodes[self.index].op is None:
            raise TapeError(f"{what} of a differentiated argument (it would change the caller's array)")
        if self.base is not None or any(view() is not None for view in self.views):
            raise TapeError(f"{what} of a traced array that shares memory with another (a view of it, or its base)")
        result = ufunc(self, other)
        if not isinstance(result, Traced) or np.shape(result.value) != np.shape(self.value):
            raise TapeError(f"{what}: the result does not keep the array's shape")
        self.value, self.index = result.value, result.index
        return self

    def __repr__(self) -> str:
        return f"Traced({self.value!r})"

    __hash__ = None  # type: ignore[assignment]

    def __getattr__(self, name: str) -> Any:
        """ndarray methods, from the op table's ``METHODS`` (every method a traced call
        lowers is recorded the same way here); another ndarray method is a ``TapeError``."""
        if hasattr(Traced, name):  # a property of this class that failed (e.g. before __init__ set the value)
            raise AttributeError(name)
        if name in registry.METHODS:
            return _method(name).__get__(self)
        if not name.startswith("_") and hasattr(np.ndarray, name):
            raise TapeError(f"janus.grad: ndarray.{name}() is not in the op table (no gradient rule on the tape)")
        raise AttributeError(name)

    # ---- operators: the ufuncs, so they dispatch like np.add(...) ------------------------
    __add__ = lambda a, b: np.add(a, b)  # noqa: E731
    __radd__ = lambda a, b: np.add(b, a)  # noqa: E731
    __sub__ = lambda a, b: np.subtract(a, b)  # noqa: E731
    __rsub__ = lambda a, b: np.subtract(b, a)  # noqa: E731
    __mul__ = lambda a, b: np.multiply(a, b)  # noqa: E731
    __rmul__ = lambda a, b: np.multiply(b, a)  # noqa: E731
    __truediv__ = lambda a, b: np.divide(a, b)  # noqa: E731
    __rtruediv__ = lambda a, b: np.divide(b, a)  # noqa: E731
    __matmul__ = lambda a, b: np.matmul(a, b)  # noqa: E731
    __rmatmul__ = lambda a, b: np.matmul(b, a)  # noqa: E731
    __pow__ = lambda a, b: np.power(a, b)  # noqa: E731
    __rpow__ = lambda a, b: np.power(b, a)  # noqa: E731
    __lt__ = lambda a, b: np.less(a, b)  # noqa: E731
    __le__ = lambda a, b: np.less_equal(a, b)  # noqa: E731
    __gt__ = lambda a, b: np.greater(a, b)  # noqa: E731
    __ge__ = lambda a, b: np.greater_equal(a, b)  # noqa: E731
    __eq__ = lambda a, b: np.equal(a, b)  # type: ignore[assignment]  # noqa: E731
    __ne__ = lambda a, b: np.not_equal(a, b)  # type: ignore[assignment]  # noqa: E731
    __neg__ = lambda a: np.negative(a)  # noqa: E731
    __pos__ = lambda a: a  # noqa: E731
    __abs__ = lambda a: np.absolute(a)  # noqa: E731
    __iadd__ = lambda a, b: a.update(np.add, b)  # noqa: E731
    __isub__ = lambda a, b: a.update(np.subtract, b)  # noqa: E731
    __imul__ = lambda a, b: a.update(np.multiply, b)  # noqa: E731
    __itruediv__ = lambda a, b: a.update(np.divide, b)  # noqa: E731
    __ipow__ = lambda a, b: a.update(np.power, b)  # noqa: E731


_ARRAY_DISPATCH = ArrayDispatch()
