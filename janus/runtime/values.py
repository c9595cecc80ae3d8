"""Python values <-> IREE VM values, one converter per MLIR type of a function signature.

Converters are built at compile time from each function's MLIR types (``compiler.value_type``),
stored in the manifest in their JSON form (no MLIR context needed at run time), and then
only push and pull values. They are strict on
purpose: IREE does not check tensor element types at the call boundary, and a silently
cast argument would be a wrong answer, so a mismatch is a ``TypeError`` here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np
from iree import runtime as rt

_HOST_VISIBLE = int(rt.MemoryType.HOST_VISIBLE)
_ARG_MEMORY = rt.MemoryType.DEVICE_LOCAL
_ARG_USAGE = rt.BufferUsage.DEFAULT


@dataclass(frozen=True, slots=True)
class BoolType:
    """i1 as a scalar: a Python (or NumPy) bool, nothing else."""

    text = "i1"

    def push(self, values: rt.VmVariantList, value: Any, device: rt.HalDevice) -> None:
        if not isinstance(value, (bool, np.bool_)):
            raise TypeError(f"expected a bool for i1, got {value!r}")
        values.push_int(int(value))

    def pull(self, values: rt.VmVariantList, index: int, device: rt.HalDevice) -> bool:
        return bool(values.get_variant(index))


@dataclass(frozen=True, slots=True)
class IntType:
    """A signless integer or index as a scalar: a Python (or NumPy) int in its range."""

    text: str
    low: int
    high: int

    def push(self, values: rt.VmVariantList, value: Any, device: rt.HalDevice) -> None:
        if type(value) is not int:
            if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
                raise TypeError(f"expected an int for {self.text}, got {value!r}")
            value = int(value)
        if not self.low <= value <= self.high:
            raise OverflowError(f"{value} does not fit in {self.text}")
        values.push_int(value)

    def pull(self, values: rt.VmVariantList, index: int, device: rt.HalDevice) -> int:
        return values.get_variant(index)


@dataclass(frozen=True, slots=True)
class FloatType:
    """f32 or f64 as a scalar: a Python (or NumPy) real number, not a bool."""

    text: str

    def push(self, values: rt.VmVariantList, value: Any, device: rt.HalDevice) -> None:
        if type(value) is not float:
            if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer, np.floating)):
                raise TypeError(f"expected a real number for {self.text}, got {value!r}")
            value = float(value)
        values.push_float(value)

    def pull(self, values: rt.VmVariantList, index: int, device: rt.HalDevice) -> float:
        return float(values.get_variant(index))


@dataclass(frozen=True, slots=True)
class TensorType:
    """A ranked tensor (NumPy array of exactly its dtype; ``None`` marks a dynamic dim)."""

    shape: tuple[int | None, ...]
    #: the MLIR element type (``f32``)
    element: str
    dtype: np.dtype
    hal_element: rt.HalElementType

    @property
    def text(self) -> str:
        return _tensor_text(self.shape, self.element)

    def push(self, values: rt.VmVariantList, value: Any, device: rt.HalDevice) -> None:
        if not isinstance(value, (np.ndarray, np.generic)):
            raise TypeError(f"expected a NumPy array for {self.text}, got {type(value).__name__}")
        if value.dtype != self.dtype:
            raise TypeError(f"expected dtype {self.dtype} for {self.text}, got {value.dtype}")
        if value.shape != self.shape and not self._fits(value.shape):
            raise TypeError(f"expected shape {_shape_text(self.shape)} for {self.text}, got {value.shape}")
        if not value.flags.c_contiguous:
            value = np.ascontiguousarray(value)
        view = device.allocator.allocate_buffer_copy(
            memory_type=_ARG_MEMORY, allowed_usage=_ARG_USAGE, device=device, buffer=value, element_type=self.hal_element
        )
        values.push_ref(view)

    def _fits(self, shape: tuple[int, ...]) -> bool:
        return len(shape) == len(self.shape) and all(d is None or d == n for d, n in zip(self.shape, shape))

    def pull(self, values: rt.VmVariantList, index: int, device: rt.HalDevice) -> np.ndarray:
        view = values.get_as_object(index, rt.HalBufferView)
        if view.get_buffer().memory_type() & _HOST_VISIBLE:
            # Copy: the buffer may be IREE's own (a constant pool), and callers mutate arrays.
            return np.frombuffer(view.map(), self.dtype).reshape(view.shape).copy()
        return rt.DeviceArray(device, view, implicit_host_transfer=True, override_dtype=self.dtype).to_host()


@dataclass(frozen=True, slots=True)
class IndexArrayType:
    """``!util.buffer`` (see ``janus-host-index-arrays``): a 1-D int64 array the compiled
    code reads on the host, copied into a VM buffer."""

    text = "!util.buffer"

    def push(self, values: rt.VmVariantList, value: Any, device: rt.HalDevice) -> None:
        if not isinstance(value, np.ndarray) or value.dtype != np.int64 or value.ndim != 1:
            raise TypeError(f"expected a 1-D int64 NumPy array for {self.text}, got {value!r}")
        buffer = rt.VmBuffer(value.nbytes)
        np.frombuffer(memoryview(buffer), np.int64)[:] = value
        values.push_ref(buffer.ref)

    def pull(self, values: rt.VmVariantList, index: int, device: rt.HalDevice) -> np.ndarray:
        raise TypeError(f"compiled code does not return {self.text}")


@dataclass(frozen=True, slots=True)
class UnsupportedType:
    """A type no Python value converts to or from; a function using it cannot be called."""

    text: str

    def problem(self) -> str:
        return f"values of type {self.text} cannot be passed between Python and compiled code"

    def push(self, values: rt.VmVariantList, value: Any, device: rt.HalDevice) -> None:
        raise TypeError(self.problem())

    def pull(self, values: rt.VmVariantList, index: int, device: rt.HalDevice) -> Any:
        raise TypeError(self.problem())


ValueType = BoolType | IntType | FloatType | TensorType | IndexArrayType | UnsupportedType


def _tensor_text(shape: tuple[int | None, ...], element: str) -> str:
    return "tensor<" + "".join(f"{'?' if d is None else d}x" for d in shape) + f"{element}>"


def _shape_text(shape: tuple[int | None, ...]) -> str:
    return "(" + ", ".join("?" if d is None else str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"


_SCALARS: dict[str, ValueType] = {
    "i1": BoolType(),
    **{f"i{b}": IntType(f"i{b}", -(1 << (b - 1)), (1 << (b - 1)) - 1) for b in (8, 16, 32, 64)},
    "index": IntType("index", -(1 << 63), (1 << 63) - 1),
    "f32": FloatType("f32"),
    "f64": FloatType("f64"),
}

#: MLIR element type -> (NumPy dtype, HAL element type) of tensor buffers.
_ELEMENTS: dict[str, tuple[np.dtype, rt.HalElementType]] = {
    "i1": (np.dtype(np.bool_), rt.HalElementType.BOOL_8),
    "i8": (np.dtype(np.int8), rt.HalElementType.SINT_8),
    "i16": (np.dtype(np.int16), rt.HalElementType.SINT_16),
    "i32": (np.dtype(np.int32), rt.HalElementType.SINT_32),
    "i64": (np.dtype(np.int64), rt.HalElementType.SINT_64),
    "f16": (np.dtype(np.float16), rt.HalElementType.FLOAT_16),
    "f32": (np.dtype(np.float32), rt.HalElementType.FLOAT_32),
    "f64": (np.dtype(np.float64), rt.HalElementType.FLOAT_64),
}

INDEX_ARRAY = IndexArrayType()


def scalar_type(name: str) -> ValueType:
    """The converter of the MLIR scalar type ``name`` (``i64``, ``index``, ``f32``...)."""
    return _SCALARS.get(name) or UnsupportedType(name)


def tensor_type(shape: tuple[int | None, ...], element: str) -> ValueType:
    """The converter of a ranked tensor of ``shape`` (``None``: a dynamic dim) and MLIR ``element``."""
    if element not in _ELEMENTS:
        return UnsupportedType(_tensor_text(shape, element))
    return TensorType(tuple(shape), element, *_ELEMENTS[element])


def to_json(kind: ValueType) -> dict[str, Any]:
    """The manifest's form of a signature type: ``{"tensor": [dims, null for ?], "element": "f32"}``,
    ``{"scalar": "i64"}``, ``{"buffer": "util"}`` or ``{"unsupported": "<MLIR type>"}``."""
    if isinstance(kind, TensorType):
        return {"tensor": list(kind.shape), "element": kind.element}
    if isinstance(kind, IndexArrayType):
        return {"buffer": "util"}
    if isinstance(kind, UnsupportedType):
        return {"unsupported": kind.text}
    return {"scalar": kind.text}


def from_json(data: Mapping[str, Any]) -> ValueType:
    """The converter ``to_json`` described; ``ValueError`` for anything else."""
    match data:
        case {"tensor": list(dims), "element": str(element)} if all(d is None or type(d) is int for d in dims):
            return tensor_type(tuple(dims), element)
        case {"scalar": str(name)}:
            return scalar_type(name)
        case {"buffer": "util"}:
            return INDEX_ARRAY
        case {"unsupported": str(text)}:
            return UnsupportedType(text)
    raise ValueError(f"not a signature type: {data!r}")
