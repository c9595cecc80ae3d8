"""An explicit stack of saved values kept in one IREE VM list (``!util.list<?>``).

DESIGN.md measured a VM list at ~25 ns per op against ~2.9 us for a stack kept in a
tensor, so frames live in a ``!util.list<?>`` whose size is the stack pointer. Scalars
are stored as they are; a tensor is stored as its dynamic sizes followed by a
``!hal.buffer_view`` (``util.list.set`` rejects tensors), and rebuilt on the way out.
"""

from __future__ import annotations

from typing import Callable, Sequence

from iree.compiler.dialects import arith, hal, tensor, util

from janus.ir import ir

LIST_TYPE = "!util.list<?>"
BUFFER_VIEW_TYPE = "!hal.buffer_view"
#: Scalar types a VM list stores directly (f64 is demoted to f32 by IREE, consistently).
_SCALARS = ("index", "i1", "i32", "i64", "f32", "f64")
INITIAL_CAPACITY = 64


def storable(t: ir.Type) -> bool:
    """Whether a value of type ``t`` can be saved on the stack (scalars, tensors, and
    the VM buffers of ``janus-host-index-arrays``, stored as refs)."""
    return str(t) in (*_SCALARS, "!util.buffer") or isinstance(t, ir.RankedTensorType)


def entry_count(types: Sequence[ir.Type]) -> int:
    """List entries that values of ``types`` occupy."""
    return sum(
        1 + (t.shape.count(ir.ShapedType.get_dynamic_size()) if isinstance(t, ir.RankedTensorType) else 0)
        for t in types
    )


def _index(n: int, ip: ir.InsertionPoint) -> ir.Value:
    return arith.constant(ir.IndexType.get(), n, ip=ip)


def _dynamic_dims(t: ir.RankedTensorType) -> list[int]:
    return [i for i, d in enumerate(t.shape) if d == ir.ShapedType.get_dynamic_size()]


class FrameStack:
    """Push and pop groups of SSA values on a ``!util.list<?>`` of at most ``limit`` entries."""

    def __init__(self, handle: ir.Value, limit: int) -> None:
        self.handle = handle
        self.limit = limit

    @classmethod
    def create(cls, limit: int, ip: ir.InsertionPoint) -> "FrameStack":
        """An empty stack (the list grows on demand, up to ``limit`` entries)."""
        capacity = _index(min(INITIAL_CAPACITY, limit), ip)
        return cls(util.list_create(ir.Type.parse(LIST_TYPE), initial_capacity=capacity, ip=ip), limit)

    def size(self, ip: ir.InsertionPoint) -> ir.Value:
        return util.list_size(self.handle, ip=ip)

    def push(
        self,
        values: Sequence[ir.Value],
        ip: ir.InsertionPoint,
        check: Callable[[ir.Value], object] | None = None,
    ) -> None:
        """Push ``values`` (last on top).

        ``check(fits)`` first receives the i1 "new size <= limit", so the caller can make
        a too-deep stack fail a guard before the list grows.
        """
        entries = [e for v in values for e in self._encode(v, ip)]
        base = self.size(ip)
        new_size = arith.addi(base, _index(len(entries), ip), ip=ip)
        if check is not None:
            check(arith.cmpi(arith.CmpIPredicate.ule, new_size, _index(self.limit, ip), ip=ip))
        util.list_resize(self.handle, new_size, ip=ip)
        for i, e in enumerate(entries):
            util.list_set(self.handle, arith.addi(base, _index(i, ip), ip=ip), e, ip=ip)

    def pop(self, types: Sequence[ir.Type], ip: ir.InsertionPoint) -> list[ir.Value]:
        """Pop values of ``types`` pushed by one ``push`` (same order as pushed)."""
        n = entry_count(types)
        base = arith.subi(self.size(ip), _index(n, ip), ip=ip)
        position = iter(range(n))

        def read(t: ir.Type) -> ir.Value:
            return util.list_get(t, self.handle, arith.addi(base, _index(next(position), ip), ip=ip), ip=ip)

        values = [self._decode(t, read, ip) for t in types]
        util.list_resize(self.handle, base, ip=ip)
        return values

    def top(self, t: ir.Type, ip: ir.InsertionPoint) -> ir.Value:
        """The scalar of type ``t`` on top, left in place."""
        last = arith.subi(self.size(ip), _index(1, ip), ip=ip)
        return util.list_get(t, self.handle, last, ip=ip)

    @staticmethod
    def _encode(v: ir.Value, ip: ir.InsertionPoint) -> list[ir.Value]:
        if not isinstance(v.type, ir.RankedTensorType):
            return [v]
        dims = [tensor.dim(v, _index(i, ip), ip=ip) for i in _dynamic_dims(v.type)]
        return dims + [export_tensor(v, ip, dims)]

    @staticmethod
    def _decode(t: ir.Type, read: Callable[[ir.Type], ir.Value], ip: ir.InsertionPoint) -> ir.Value:
        if not isinstance(t, ir.RankedTensorType):
            return read(t)
        dims = [read(ir.IndexType.get()) for _ in _dynamic_dims(t)]
        return import_tensor(t, read(ir.Type.parse(BUFFER_VIEW_TYPE)), ip, dims)


def export_tensor(v: ir.Value, ip: ir.InsertionPoint, dims: Sequence[ir.Value] | None = None) -> ir.Value:
    """``v`` as a ``!hal.buffer_view`` (``dims``: its dynamic sizes, read here when not given)."""
    if dims is None:
        dims = [tensor.dim(v, _index(i, ip), ip=ip) for i in _dynamic_dims(v.type)]
    return hal.tensor_export(ir.Type.parse(BUFFER_VIEW_TYPE), v, ir.TypeAttr.get(v.type), dims, ip=ip)


def import_tensor(
    t: ir.RankedTensorType, view: ir.Value, ip: ir.InsertionPoint, dims: Sequence[ir.Value] | None = None
) -> ir.Value:
    """The tensor of type ``t`` a buffer view holds (``dims``: its dynamic sizes, read
    from the view when not given)."""
    if dims is None:
        dims = [hal.buffer_view_dim(view, i, ip=ip) for i in _dynamic_dims(t)]
    return hal.tensor_import(t, view, ir.TypeAttr.get(t), dims, ip=ip)
