"""Python values <-> IREE VM values, one converter per MLIR type of a function signature.

Converters are built at compile time from each function's MLIR types (``compiler.value_type``),
stored in the manifest in their JSON form (no MLIR context needed at run time), and then
only push and pull values. They are strict on
purpose: IREE does not check tensor element types at the call boundary, and a silently
cast argument would be a wrong answer, so a mismatch is a ``TypeError`` here.
"""

from __future__ import annotations

import ctypes
import threading
import weakref
from dataclasses import dataclass
from typing import Any, ClassVar, Mapping

import numpy as np
from iree import runtime as rt

_ARG_MEMORY = rt.MemoryType.DEVICE_LOCAL
_ARG_USAGE = rt.BufferUsage.DEFAULT
_IMPORT_MEMORY = rt.MemoryType.DEVICE_LOCAL | rt.MemoryType.HOST_VISIBLE
_STAGE_USAGE = rt.BufferUsage.DEFAULT | rt.BufferUsage.MAPPING
#: IREE's CPU kernels assume their buffers start at a multiple of this (bindings are
#: declared ``alignment(64)``) unless compiled with another ``--iree-stream-resource-min-offset-alignment``
#: (``targets.import_alignment``): an imported array that does not crashes the dispatch
ALIGNMENT = 64
#: arrays below this size are copied both ways rather than shared: importing an array
#: (reading its address included) costs ~0.9 us and wrapping a result buffer ~1.1 us more
#: than copying it out; a heap array's round trip (a result out, the next call's argument
#: in) costs the same shared or copied at 32 KiB (2.7 us) and 1.0 us more shared at 512 bytes
SHARE_MIN_BYTES = 16 * 1024


@dataclass(slots=True)
class Traffic:
    """Bytes moved between Python and one compiled function over its calls: ``copied``
    (arguments staged into device buffers, results copied out) and ``shared`` (arrays
    passed to or returned from compiled code without a copy)."""

    calls: int = 0
    copied: int = 0
    shared: int = 0

    def describe(self) -> str:
        if not self.calls:
            return "no calls yet"
        return (f"per call: {self.copied / self.calls:.0f} bytes copied, "
                f"{self.shared / self.calls:.0f} bytes shared without a copy")


class Stage:
    """A mapped device buffer one input slot of one function keeps between calls: an
    argument that must be copied is copied into it, not into a buffer allocated (and
    freed) per call."""

    __slots__ = ("shape", "view", "array", "start", "end")

    def __init__(self, device: rt.HalDevice, shape: tuple[int, ...], kind: "TensorType") -> None:
        nbytes = int(np.prod(shape)) * kind.dtype.itemsize
        buffer = device.allocator.allocate_buffer(_IMPORT_MEMORY, _STAGE_USAGE, nbytes)
        self.shape, self.view = shape, rt.HalBufferView(buffer, shape, kind.hal_element)
        self.array = self.view.map().asarray(shape, kind.dtype)
        self.start = address(self.array)
        self.end = self.start + nbytes


class Transfer:
    """One call's conversions on one device: ``host`` when device memory is the host's (the
    CPU drivers), where arrays are shared instead of copied; ``pinned`` holds the address
    ranges of user arrays and stages the call passes, so that no result aliases them;
    ``stages`` the function's stages per input slot (None: this call allocates, as while
    another thread's call uses them)."""

    __slots__ = ("device", "host", "traffic", "pinned", "stages", "share", "outputs", "alignment")

    def __init__(self, device: rt.HalDevice, host: bool, traffic: Traffic, stages: list[Stage | None] | None = None,
                 share: bool = True, outputs: "tuple[TensorType, ...]" = (), alignment: int = ALIGNMENT) -> None:
        self.device, self.host, self.traffic, self.stages = device, host, traffic, stages
        #: the byte alignment the compiled code assumes of its argument buffers: an array imported in place starts there
        self.alignment = alignment
        self.pinned: list[tuple[int, int]] = []
        #: arguments may be passed without a copy (host memory, and code that never writes them)
        self.share = host and share
        #: the storage IREE writes the function's small results into (``result_storage``), in argument order
        self.outputs = [Stage(device, kind.shape, kind) for kind in outputs]


class Scratch:
    """What the calls of one function on one driver reuse, one call at a time (a ``Turn``
    says whose): the stages and the ``Transfer`` (on CPU drivers), the argument
    list of the last call, passed again when a call pushes the same items (the same stage
    views, handed views and scalars: a call whose arguments are all staged rebuilds
    nothing), and the result list (IREE empties it at each invoke)."""

    __slots__ = ("transfer", "items", "arguments", "results")

    def __init__(self, device: rt.HalDevice, host: bool, traffic: Traffic, inputs: int, results: int,
                 share: bool = True, outputs: "tuple[TensorType, ...]" = (), alignment: int = ALIGNMENT) -> None:
        self.transfer = Transfer(device, host, traffic, [None] * inputs if host else None, share, outputs, alignment)
        self.items: list[Any] | None = None
        self.arguments = rt.VmVariantList(inputs)
        self.results = rt.VmVariantList(results)


class Turn:
    """Whose turn it is to use a runner's scratch: one call at a time. ``try_take()`` takes
    the turn or says it is busy (the caller goes on without the scratch), ``give()`` hands it
    back. A module with state across calls (``waits``) keeps a ``threading.Lock``: its calls
    wait for the turn. Otherwise no call waits, so the turn is the one item of a list
    (``tokens``): ``list.pop`` and ``list.append`` are atomic (one C call each, under the
    GIL) and cost ~65 ns less per call than ``Lock.acquire(False)`` and ``release``, which
    a generated steady call (``fast_path``) pays on every call."""

    __slots__ = ("waits", "lock", "tokens")

    def __init__(self, waits: bool) -> None:
        self.waits, self.lock, self.tokens = waits, threading.Lock(), [True]

    def try_take(self) -> bool:
        """Take the turn, waiting for it only in a module that ``waits``; False: busy."""
        if self.waits:
            return self.lock.acquire()
        try:
            self.tokens.pop()
        except IndexError:
            return False
        return True

    def give(self) -> None:
        if self.waits:
            self.lock.release()
        else:
            self.tokens.append(True)


class _Handed(weakref.ref):
    """A result array handed out over its IREE buffer (weakly), with that buffer's view:
    passing the array back passes the view (no import, no copy) while the array is alive
    and still has the view's shape and element type (``a.shape = ...`` and ``a.dtype = ...``
    change an array in place)."""

    __slots__ = ("key", "view", "device", "shape", "element", "start", "end")


#: id(array) -> its ``_Handed``; an entry leaves with its array
_HANDED: dict[int, _Handed] = {}


def _forget(ref: _Handed) -> None:
    if _HANDED.get(ref.key) is ref:
        _HANDED.pop(ref.key, None)


def address(array: np.ndarray) -> int:
    """The address of a non-empty C-contiguous writable array's first byte (cheaper than
    ``array.ctypes.data``)."""
    return ctypes.addressof(ctypes.c_char.from_buffer(array))


@dataclass(frozen=True, slots=True)
class BoolType:
    """i1 as a scalar: a Python (or NumPy) bool, nothing else."""

    text = "i1"
    push: ClassVar = staticmethod(rt.VmVariantList.push_int)

    def arg(self, value: Any, transfer: Transfer, slot: int) -> int:
        if not isinstance(value, (bool, np.bool_)):
            raise TypeError(f"expected a bool for i1, got {value!r}")
        return int(value)

    def pull(self, values: rt.VmVariantList, index: int, transfer: Transfer) -> bool:
        return bool(values.get_variant(index))


@dataclass(frozen=True, slots=True)
class IntType:
    """A signless integer or index as a scalar: a Python (or NumPy) int in its range."""

    text: str
    low: int
    high: int
    push: ClassVar = staticmethod(rt.VmVariantList.push_int)

    def arg(self, value: Any, transfer: Transfer, slot: int) -> int:
        if type(value) is not int:
            if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
                raise TypeError(f"expected an int for {self.text}, got {value!r}")
            value = int(value)
        if not self.low <= value <= self.high:
            raise OverflowError(f"{value} does not fit in {self.text}")
        return value

    def pull(self, values: rt.VmVariantList, index: int, transfer: Transfer) -> int:
        return values.get_variant(index)


@dataclass(frozen=True, slots=True)
class FloatType:
    """f32 or f64 as a scalar: a Python (or NumPy) real number, not a bool."""

    text: str
    push: ClassVar = staticmethod(rt.VmVariantList.push_float)

    def arg(self, value: Any, transfer: Transfer, slot: int) -> float:
        if type(value) is not float:
            if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer, np.floating)):
                raise TypeError(f"expected a real number for {self.text}, got {value!r}")
            value = float(value)
        return value

    def pull(self, values: rt.VmVariantList, index: int, transfer: Transfer) -> float:
        return float(values.get_variant(index))


@dataclass(frozen=True, slots=True)
class TensorType:
    """A ranked tensor (NumPy array of exactly its dtype; ``None`` marks a dynamic dim)."""

    shape: tuple[int | None, ...]
    #: the MLIR element type (``f32``)
    element: str
    dtype: np.dtype
    hal_element: rt.HalElementType
    push: ClassVar = staticmethod(rt.VmVariantList.push_ref)

    @property
    def text(self) -> str:
        return _tensor_text(self.shape, self.element)

    def arg(self, value: Any, transfer: Transfer, slot: int) -> rt.HalBufferView:
        """Pass ``value``'s memory itself where IREE can read it (a result array handed out
        on this device, or a large writable C-contiguous one on a CPU driver, aligned as the
        compiled code assumes: ``Transfer.alignment``), else
        a C-contiguous copy (into the slot's stage where the call has one). Code that may
        write its arguments gets copies (``Transfer.share``); a misaligned, read-only or
        strided array is never read in place. A Python scalar for a 0-d tensor (a heap
        location holding a Python int or float, read as a graph input) becomes a 0-d array."""
        if type(value) in (int, float, bool) and not self.shape:
            value = np.asarray(value, self.dtype)
        if type(value) is not np.ndarray or value.dtype is not self.dtype or value.shape != self.shape:
            self._check(value)  # NumPy's native dtypes are singletons: the fast test is exact for them
        nbytes = value.nbytes
        if nbytes >= SHARE_MIN_BYTES and transfer.share:
            handed = _HANDED.get(id(value))
            if (handed is not None and handed() is value and handed.device is transfer.device
                    and value.shape == handed.shape and handed.element == self.hal_element):
                transfer.pinned.append((handed.start, handed.end))
                transfer.traffic.shared += nbytes
                return handed.view
            if value.flags.c_contiguous and value.flags.writeable and (start := address(value)) % transfer.alignment == 0:
                buffer = transfer.device.allocator.import_host_allocation(value, _IMPORT_MEMORY, _ARG_USAGE)
                transfer.pinned.append((start, start + nbytes))
                transfer.traffic.shared += nbytes
                return rt.HalBufferView(buffer, value.shape, self.hal_element)
        stages = transfer.stages
        transfer.traffic.copied += nbytes
        if stages is not None and nbytes:
            stage = stages[slot]
            if stage is None or stage.shape != value.shape:
                stage = stages[slot] = Stage(transfer.device, value.shape, self)
            stage.array[...] = value  # any layout; the dtype is the stage's
            if nbytes >= SHARE_MIN_BYTES:  # a result within a smaller stage is small: copied anyway
                transfer.pinned.append((stage.start, stage.end))
            return stage.view
        if not value.flags.c_contiguous:
            value = np.ascontiguousarray(value)
        return transfer.device.allocator.allocate_buffer_copy(
            memory_type=_ARG_MEMORY, allowed_usage=_ARG_USAGE, device=transfer.device, buffer=value,
            element_type=self.hal_element)

    def _check(self, value: Any) -> None:
        """``TypeError`` unless ``value`` is an array (or NumPy scalar) of this dtype and shape."""
        if not isinstance(value, (np.ndarray, np.generic)):
            raise TypeError(f"expected a NumPy array for {self.text}, got {type(value).__name__}")
        if value.dtype != self.dtype:
            raise TypeError(f"expected dtype {self.dtype} for {self.text}, got {value.dtype}")
        if value.shape != self.shape and not self._fits(value.shape):
            raise TypeError(f"expected shape {_shape_text(self.shape)} for {self.text}, got {value.shape}")

    def _fits(self, shape: tuple[int, ...]) -> bool:
        return len(shape) == len(self.shape) and all(d is None or d == n for d, n in zip(self.shape, shape))

    def pull(self, values: rt.VmVariantList, index: int, transfer: Transfer) -> np.ndarray:
        """A large result as an array over its IREE buffer on a CPU driver (the array keeps
        the buffer alive; IREE allocates each call's results afresh), copied when it would
        alias an array the caller holds (compiled code may return an argument's buffer, or
        one buffer for two results); a small one copied, and any copied to the host elsewhere."""
        view = values.get_as_object(index, rt.HalBufferView)
        if not transfer.host:
            array = rt.DeviceArray(transfer.device, view, implicit_host_transfer=True, override_dtype=self.dtype).to_host()
            transfer.traffic.copied += array.nbytes
            return array
        nbytes = view.byte_length  # CPU driver buffers map (one that did not would raise, not misread)
        if nbytes < SHARE_MIN_BYTES:
            transfer.traffic.copied += nbytes
            return np.ndarray(view.shape, self.dtype, view.map()).copy()
        shape = tuple(view.shape)
        array = np.ndarray(shape, self.dtype, view.map())  # its base is the mapping, which keeps the buffer
        start = address(array)
        end = start + nbytes
        pinned = transfer.pinned
        if any(start < e and s < end for s, e in pinned):
            transfer.traffic.copied += nbytes
            return array.copy()
        pinned.append((start, end))
        handed = _Handed(array, _forget)
        handed.key, handed.view, handed.device = id(array), view, transfer.device
        handed.shape, handed.element, handed.start, handed.end = shape, self.hal_element, start, end
        _HANDED[handed.key] = handed
        transfer.traffic.shared += nbytes
        return array


@dataclass(frozen=True, slots=True)
class StoredResult:
    """A result IREE wrote into the call's storage for it (``result_storage``; the
    ``position``-th of ``Transfer.outputs``): copied out, as a small result always is."""

    position: int

    def pull(self, values: rt.VmVariantList, index: int, transfer: Transfer) -> np.ndarray:
        array = transfer.outputs[self.position].array
        transfer.traffic.copied += array.nbytes
        return array.copy()


@dataclass(frozen=True, slots=True)
class IndexArrayType:
    """``!util.buffer`` (see ``janus-host-index-arrays``): a 1-D int64 array the compiled
    code reads on the host, copied into a VM buffer."""

    text = "!util.buffer"
    push: ClassVar = staticmethod(rt.VmVariantList.push_ref)

    def arg(self, value: Any, transfer: Transfer, slot: int) -> Any:
        if not isinstance(value, np.ndarray) or value.dtype != np.int64 or value.ndim != 1:
            raise TypeError(f"expected a 1-D int64 NumPy array for {self.text}, got {value!r}")
        buffer = rt.VmBuffer(value.nbytes)
        np.frombuffer(memoryview(buffer), np.int64)[:] = value
        transfer.traffic.copied += value.nbytes
        return buffer.ref

    def pull(self, values: rt.VmVariantList, index: int, transfer: Transfer) -> np.ndarray:
        raise TypeError(f"compiled code does not return {self.text}")


@dataclass(frozen=True, slots=True)
class UnsupportedType:
    """A type no Python value converts to or from; a function using it cannot be called."""

    text: str

    def problem(self) -> str:
        return f"values of type {self.text} cannot be passed between Python and compiled code"

    push: ClassVar = staticmethod(rt.VmVariantList.push_ref)

    def arg(self, value: Any, transfer: Transfer, slot: int) -> Any:
        raise TypeError(self.problem())

    def pull(self, values: rt.VmVariantList, index: int, transfer: Transfer) -> Any:
        raise TypeError(self.problem())


ValueType = BoolType | IntType | FloatType | TensorType | IndexArrayType | UnsupportedType
#: the converters of scalars (whose ``arg`` and ``pull`` need no ``Transfer``)
SCALAR_TYPES = (BoolType, IntType, FloatType)


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
    **{f"ui{b}": (np.dtype(f"uint{b}"), getattr(rt.HalElementType, f"UINT_{b}")) for b in (8, 16, 32, 64)},
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
