"""The IR builder behind ``janus-autodiff``: recomputation, adjoint maps, constants.

A gradient function is built in memory with the bindings' builders at the current
insertion point (``with ir.InsertionPoint(block)``), so nothing is printed or parsed.
Forward ops are recomputed by cloning them as often as the backward pass needs — inside a
backward ``scf.if`` branch, in each iteration of a reversed loop; ``env`` maps each forward
value to its newest copy, and a clone's uses of values from outside it are remapped
through ``env``. Clones keep their locations; adjoint ops get their forward op's.
"""

from __future__ import annotations

from typing import Callable, Iterable, Sequence

from iree.compiler.dialects import arith, linalg, tensor

from janus.ir import ir
from janus.passes.registry import PassError

#: Ops left out of recomputed forward code: a gradient function runs only after the forward
#: call it belongs to, which checked these guards; a copy would repeat the guard's id.
NOT_RECOMPUTED = frozenset({"janus.guard"})

#: An adjoint: a value of the gradient function, or None where no gradient flows.
Adjoint = ir.Value | None
#: A rule: (builder, op, adjoint per result) -> (value, adjoint) pairs.
Rule = Callable[["GradBuilder", ir.OpView, list[Adjoint]], Iterable[tuple[ir.Value, ir.Value]]]


def fail(op: ir.OpView | ir.Operation, message: str) -> PassError:
    """A located ``janus-autodiff`` error at ``op``."""
    return PassError([(op.location, f"janus-autodiff: {message}")])


def is_float(t: ir.Type) -> bool:
    """Differentiable: a float scalar or a tensor of floats."""
    if isinstance(t, ir.RankedTensorType):
        t = ir.RankedTensorType(t).element_type
    return isinstance(t, ir.FloatType)


def element_type(t: ir.Type) -> ir.Type:
    """A tensor's element type; a scalar type itself."""
    return ir.RankedTensorType(t).element_type if isinstance(t, ir.RankedTensorType) else t


def nested_ops(op: ir.OpView | ir.Operation) -> Iterable[ir.Operation]:
    """Every op inside ``op``'s regions, at any depth."""
    for region in op.regions:
        for block in region.blocks:
            for inner in block.operations:
                yield inner.operation
                yield from nested_ops(inner)


def defined_in(op: ir.OpView | ir.Operation) -> list[ir.Value]:
    """Values ``op`` defines: its results, and results and block arguments inside it."""
    out: list[ir.Value] = list(op.results)
    for region in op.regions:
        for block in region.blocks:
            out.extend(block.arguments)
            for inner in block.operations:
                out.extend(defined_in(inner))
    return out


def free_floats(op: ir.OpView | ir.Operation) -> list[ir.Value]:
    """Float values used inside ``op``'s regions but defined outside ``op``."""
    inner = set(defined_in(op))
    out: dict[ir.Value, None] = {}
    for nested in nested_ops(op):
        for v in nested.operands:
            if v not in inner and is_float(v.type):
                out[v] = None
    return list(out)


def body_ops(block: ir.Block) -> tuple[list[ir.OpView], ir.OpView]:
    """A block's ops without its terminator, and the terminator."""
    ops = list(block.operations)
    return ops[:-1], ops[-1]


def linalg_generic(
    result_type: ir.Type,
    ins: Sequence[ir.Value],
    outs: Sequence[ir.Value],
    maps: Sequence[ir.Attribute],
    iterators: Sequence[linalg.IteratorType],
    body: Callable[..., ir.Value],
) -> ir.Value:
    """A one-result ``linalg.generic``; ``body(*element args)`` builds the value it yields."""
    op = linalg.GenericOp([result_type], list(ins), list(outs), ir.ArrayAttr.get(list(maps)), list(iterators))
    block = op.regions[0].blocks.append(*(element_type(v.type) for v in [*ins, *outs]))
    with ir.InsertionPoint(block):
        linalg.yield_([body(*block.arguments)])
    return op.result


def static_slice(offsets: list[int], sizes: list[int], strides: list[int] | None = None) -> tuple:
    """The (dynamic offsets, sizes, strides, static offsets, sizes, strides) arguments of
    ``tensor.{extract,insert}_slice`` for a static slice (unit strides by default)."""
    return [], [], [], offsets, sizes, strides or [1] * len(sizes)


class Adjoints:
    """Adjoints of forward values; a second contribution is added with ``arith.addf``."""

    def __init__(self) -> None:
        self.values: dict[ir.Value, ir.Value] = {}

    def add(self, v: ir.Value, g: Adjoint) -> None:
        if g is None or not is_float(v.type):
            return
        old = self.values.get(v)
        self.values[v] = g if old is None else arith.addf(old, g)

    def get(self, v: ir.Value) -> Adjoint:
        return self.values.get(v)


class GradBuilder:
    """Builds one gradient function's body: forward copies, adjoint ops, regions."""

    def __init__(self, rules: dict[str, Rule], request_vjp: Callable[[str], str]) -> None:
        self.rules = rules
        self.request_vjp = request_vjp
        self.env: dict[ir.Value, ir.Value] = {}

    def copy_of(self, v: ir.Value) -> ir.Value:
        """The newest copy of the forward value ``v``."""
        return self.env[v]

    def bind(self, values: Sequence[ir.Value], copies: Sequence[ir.Value]) -> None:
        self.env.update(zip(values, copies))

    # ---- forward copies -------------------------------------------------------------------
    def forward(self, op: ir.OpView) -> None:
        """Clone ``op`` (regions included) and bind everything it defines to the copies."""
        if op.operation.name in NOT_RECOMPUTED:
            return
        copy = op.operation.clone()
        for guard in [o for o in nested_ops(copy) if o.name in NOT_RECOMPUTED]:
            guard.erase()
        local = defined_in(copy)
        inner = set(local)
        for o in [copy, *nested_ops(copy)]:
            for i, v in enumerate(o.operands):
                if v not in inner:
                    o.operands[i] = self.env[v]
        self.bind(defined_in(op), local)

    def forward_block(self, block: ir.Block) -> tuple[list[ir.OpView], ir.OpView]:
        ops, terminator = body_ops(block)
        for op in ops:
            self.forward(op)
        return ops, terminator

    # ---- adjoints -------------------------------------------------------------------------
    def backprop(self, ops: Sequence[ir.OpView], adj: Adjoints) -> None:
        """Adjoint ops for ``ops`` (already recomputed), last op first."""
        for op in reversed(ops):
            gs = [adj.get(r) for r in op.results]
            if all(g is None for g in gs):
                continue
            rule = self.rules.get(op.operation.name)
            if rule is None:
                raise fail(op, f"no gradient rule for '{op.operation.name}'")
            with op.location:
                for v, g in rule(self, op, gs):
                    adj.add(v, g)

    def block_vjp(self, block: ir.Block, seeds: Sequence[Adjoint], wanted: Sequence[ir.Value]) -> list[Adjoint]:
        """Recompute ``block``, seed its terminator's operands, return adjoints of ``wanted``."""
        ops, terminator = self.forward_block(block)
        adj = Adjoints()
        for v, g in zip(terminator.operands, seeds):
            adj.add(v, g)
        self.backprop(ops, adj)
        return [adj.get(v) for v in wanted]

    # ---- constants ------------------------------------------------------------------------
    def full(self, like: ir.Value, value: float) -> ir.Value:
        """A value of ``like``'s type filled with ``value``."""
        t = like.type
        if not isinstance(t, ir.RankedTensorType) or ir.RankedTensorType(t).has_static_shape:
            return constant(t, value)
        tt = ir.RankedTensorType(t)
        dims = [tensor.dim(self.copy_of(like), self.index(i)) if tt.is_dynamic_dim(i) else s for i, s in enumerate(tt.shape)]
        scalar = constant(tt.element_type, value)
        return linalg.fill(scalar, outs=[tensor.EmptyOp(dims, tt.element_type).result])

    def zeros(self, like: ir.Value) -> ir.Value:
        return self.full(like, 0.0)

    def or_zeros(self, like: ir.Value, g: Adjoint) -> ir.Value:
        return self.zeros(like) if g is None else g

    def index(self, value: int) -> ir.Value:
        return arith.constant(ir.IndexType.get(), value)


def constant(t: ir.Type, value: float) -> ir.Value:
    """An ``arith.constant`` of a float scalar or statically shaped tensor type."""
    element = element_type(t)
    attr = ir.FloatAttr.get(element, value)
    if isinstance(t, ir.RankedTensorType):
        attr = ir.DenseElementsAttr.get_splat(ir.RankedTensorType(t), attr)
    return arith.constant(t, attr)
