"""The values symbolic execution moves around, and the error that ends a conversion.

A graph value is a ``Tensor`` (an SSA value of ``tensor<...>`` type). Its shape holds
ints and, for dimensions relaxed to ``?``, symbols (strings): two dims with the same
symbol are known to be equal at run time, which is what makes broadcasting safe.
Everything else the generator handles is a plain Python object (ints, slices, lists of
tensors, the numpy module, functions): Python itself then gives those their semantics.
``Tensor`` refuses every Python protocol (truth, iteration, comparison, conversion) so
that no Python code can silently treat a graph value as a Python object.
"""

from __future__ import annotations

from typing import Any

import numpy as np

#: NumPy dtypes the graph generator handles, and their MLIR element types. Unsigned ints
#: are signless in MLIR like the signed ones; their ops differ (``divui``, ``cmpi ult``,
#: ``extui``), chosen by the NumPy dtype each ``Tensor`` keeps, and the entry function
#: declares them ``ui8``... at its boundary so that the runtime passes ``uint8`` arrays.
ELEMENT_TYPES = {
    "float16": "f16", "float32": "f32", "float64": "f64", "bool": "i1",
    **{f"{sign}int{bits}": f"i{bits}" for bits in (8, 16, 32, 64) for sign in ("", "u")},
}


class NotConvertible(Exception):
    """The function cannot be converted; the reason is shown by ``janus.explain``.

    ``any_signature``: the raise site is certain the failure holds for every argument
    signature (see ``certain``), so ``janus.jit`` stops keying calls; left False when unsure.
    """

    def __init__(self, message: str, *, any_signature: bool = False) -> None:
        super().__init__(message)
        self.any_signature = any_signature


class EmissionError(NotConvertible):
    """An op emitted with an operand it cannot take (an unknown SSA value, another type, a
    wrong rank): a frontend bug, raised when the op is emitted so that the tracer names
    the Python line being traced."""


def check_dtype(dtype: np.dtype) -> np.dtype:
    dtype = np.dtype(dtype)
    if dtype.name not in ELEMENT_TYPES:
        raise NotConvertible(f"dtype {dtype.name} is not supported")
    return dtype


Dim = int | str  # a static size, or the symbol of a dynamic (``?``) one
Shape = tuple[Dim, ...]


def is_static(shape: Shape) -> bool:
    return all(type(d) is not str for d in shape)


def tensor_type(shape: Shape, dtype: np.dtype) -> str:
    dims = "".join(f"{'?' if isinstance(d, str) else d}x" for d in shape)
    return f"tensor<{dims}{ELEMENT_TYPES[np.dtype(dtype).name]}>"


class Tensor:
    """An SSA value ``name`` of type ``tensor<shape x dtype>``."""

    __slots__ = ("name", "shape", "dtype")

    def __init__(self, name: str, shape: Shape, dtype: np.dtype) -> None:
        self.name = name
        self.shape = tuple(d if isinstance(d, str) else int(d) for d in shape)
        self.dtype = check_dtype(dtype)

    @property
    def type(self) -> str:
        return tensor_type(self.shape, self.dtype)

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def static(self) -> bool:
        return is_static(self.shape)

    def static_shape(self) -> tuple[int, ...]:
        """The shape as Python ints; NotConvertible when a dim is only known at run time."""
        if not self.static:
            raise NotConvertible(f"the shape {self.type} is used as a Python value but has ? dims")
        return self.shape  # type: ignore[return-value]

    @property
    def size(self) -> int:
        return int(np.prod(self.static_shape(), dtype=np.int64))

    def __repr__(self) -> str:
        return f"Tensor({self.name}: {self.type})"

    def _refuse(self, *args: Any) -> Any:
        raise NotConvertible("an array value is used as a Python object (truth, iteration or conversion)")

    __bool__ = __iter__ = __len__ = __index__ = __int__ = __float__ = _refuse
    __eq__ = __ne__ = __lt__ = __le__ = __gt__ = __ge__ = __contains__ = _refuse
    __hash__ = object.__hash__


class Weak(Tensor):
    """A Python scalar (int, float or bool) the graph holds as a 0-d tensor: NumPy
    promotion treats it as weakly typed, and it goes back to Python as that type."""

    __slots__ = ()

    PYTHON_TYPES = {"int64": int, "float64": float, "bool": bool}

    @property
    def python_type(self) -> type:
        return self.PYTHON_TYPES[self.dtype.name]


class Length(Weak):
    """A Python int known to equal the ``?`` dim ``symbol``: ``len(x)`` of an array whose
    first dim is ``?`` (``np.arange`` of it has that dim, so it meets ``x`` in broadcasts
    and indexing). ``symbol`` None: only an int (a join of two lengths, ``branches``)."""

    __slots__ = ("symbol",)

    def __init__(self, name: str, shape: Shape, dtype: np.dtype, symbol: str | None = None) -> None:
        super().__init__(name, shape, dtype)
        self.symbol = symbol


class Symbolic:
    """A graph value that is not a tensor (a tree node): never a plain Python object."""

    __slots__ = ()


def contains_tensor(value: Any) -> bool:
    """Whether ``value`` is, or (in a list, tuple or dict) holds, a graph value."""
    if isinstance(value, (Tensor, Symbolic)):
        return True
    if isinstance(value, (list, tuple)):
        return any(contains_tensor(v) for v in value)
    if isinstance(value, dict):
        return any(contains_tensor(v) for v in value.values())
    return False


def hashable(value: Any) -> bool:
    """Whether ``value`` can be looked up in a dict or set (a function, a builtin, a key)."""
    try:
        hash(value)
        return True
    except TypeError:
        return False
