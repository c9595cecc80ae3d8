"""Python object trees as index arrays, so one compiled graph serves every tree.

An argument that is a tree (an object of a user class whose attributes reach other
objects of exactly that class) is *linearized* at call time: its nodes are numbered
breadth-first from the root (id 0), and each attribute becomes one array over the nodes:
child ids (-1 for ``None``), ints, floats and bools as int64/float64 columns, arrays of one
shape stacked, plus a presence column for scalar attributes that are ``None`` on some
nodes. The entry key holds only the *structure kind* (the class and each attribute's
kind), never the tree's size or shape, so every tree of that kind hits the same compiled
version (Cortex and TF Fold linearize trees the same way).

While tracing, a node is a ``SymNode``: a 0-d int64 id into its ``SymTree``'s arrays.
``node.left`` extracts a child id, ``node.word`` a ``Weak`` int, ``node.is_leaf`` a
``Weak`` bool, ``node is None`` compares the id with -1. Methods and properties of the
class are inlined with the ``SymNode`` as ``self``. Every read is guarded on the node
not being ``None`` (Python would raise ``AttributeError``), and an optional attribute on
being present, so a tree the profile did not foresee falls back instead of reading
outside the arrays.
"""

from __future__ import annotations

import inspect
import types
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

import numpy as np

from janus.frontend.values import ELEMENT_TYPES, NotConvertible, Symbolic, Tensor, Weak

if TYPE_CHECKING:
    from janus.frontend.trace.interpreter import Tracer

#: attribute kind -> (Python type of its values, storage dtype, dtype as read)
SCALAR_KINDS: dict[str, tuple[type, np.dtype, np.dtype]] = {
    "int": (int, np.dtype(np.int64), np.dtype(np.int64)),
    "float": (float, np.dtype(np.float64), np.dtype(np.float64)),
    "bool": (bool, np.dtype(np.int64), np.dtype(bool)),
}
_KIND_OF_TYPE = {python: kind for kind, (python, _, _) in SCALAR_KINDS.items()}
I64 = np.dtype(np.int64)


@dataclass(frozen=True)
class Field:
    """One attribute of the tree's nodes: ``kind`` is child, none (always None), int,
    float, bool, array or opaque (not linearized: reading it is not convertible)."""

    name: str
    kind: str
    optional: bool = False  # None on some nodes: a presence column guards each read
    dtype: str = "int64"
    shape: tuple[int, ...] = ()

    def columns(self) -> list[tuple[str, np.dtype, tuple[int, ...]]]:
        """(role, dtype, per-node shape) of the arrays this field contributes."""
        if self.kind in ("none", "opaque"):
            return []
        value = [("value", np.dtype(self.dtype), self.shape)]
        return value + [("present", I64, ())] if self.optional else value


@dataclass(frozen=True)
class TreeKind:
    """What a compiled version assumes about a tree argument (part of the entry key)."""

    cls: type
    fields: tuple[Field, ...]

    def columns(self) -> list[tuple[Field, str, np.dtype, tuple[int, ...]]]:
        return [(f, role, dtype, shape) for f in self.fields for role, dtype, shape in f.columns()]

    def field(self, name: str) -> Field | None:
        return next((f for f in self.fields if f.name == name), None)

    def shapes(self, size: int | str) -> list[tuple]:
        """The shapes of the arrays of a tree of ``size`` nodes (a symbol for ``?``)."""
        return [(size, *shape) for _, _, _, shape in self.columns()]

    def describe(self) -> str:
        return f"{self.cls.__qualname__} tree"


def is_tree(value: Any) -> bool:
    """Whether ``value`` is the root of a tree: an attribute holds a node of its own class."""
    cls = type(value)
    if cls.__module__ == "builtins" or not isinstance(getattr(value, "__dict__", None), dict) or isinstance(value, type):
        return False
    return any(type(v) is cls for v in vars(value).values())


def linearize(root: Any) -> tuple[TreeKind, list[np.ndarray]]:
    """The structure kind and the arrays of the tree at ``root`` (node ids breadth-first)."""
    cls = type(root)
    if hasattr(cls, "__bool__") or hasattr(cls, "__len__"):
        raise NotConvertible(f"{cls.__qualname__} defines its own truth value")
    nodes, ids = [root], {id(root): 0}
    names = vars(root).keys()
    for node in nodes:  # grows while iterating: breadth-first
        attributes = vars(node)
        if attributes.keys() != names:
            raise NotConvertible(f"{cls.__qualname__} nodes have different attributes")
        for v in attributes.values():
            if type(v) is cls and id(v) not in ids:
                ids[id(v)] = len(nodes)
                nodes.append(v)
    fields, arrays = [], []
    for name in names:
        column = [vars(n)[name] for n in nodes]
        field, values = _classify(cls, name, column, ids)
        fields.append(field)
        arrays.extend(values)
    return TreeKind(cls, tuple(fields)), arrays


def _classify(cls: type, name: str, column: list[Any], ids: dict[int, int]) -> tuple[Field, list[np.ndarray]]:
    kinds = {type(v) for v in column}
    optional = type(None) in kinds
    kinds.discard(type(None))
    if not kinds:
        return Field(name, "none"), []
    if kinds == {cls}:
        return Field(name, "child"), [np.array([-1 if v is None else ids[id(v)] for v in column], np.int64)]
    present = [v is not None for v in column]
    if len(kinds) == 1 and (kind := _KIND_OF_TYPE.get(kinds.pop())) is not None:
        _, storage, _ = SCALAR_KINDS[kind]
        try:
            values = np.array([0 if v is None else v for v in column], storage)
        except OverflowError:
            return Field(name, "opaque"), []
        masks = [np.array(present, np.int64)] if optional else []
        return Field(name, kind, optional, storage.name), [values, *masks]
    first = column[0]
    if not optional and type(first) is np.ndarray and first.dtype.name in ELEMENT_TYPES and all(
        type(v) is np.ndarray and v.dtype == first.dtype and v.shape == first.shape for v in column
    ):
        return Field(name, "array", False, first.dtype.name, first.shape), [np.stack(column)]
    return Field(name, "opaque"), []


# ---- tracing ------------------------------------------------------------------------------
@dataclass(eq=False)
class SymTree:
    """A linearized tree in the function being traced: its arrays, by (field, role)."""

    kind: TreeKind
    arrays: dict[tuple[str, str], Tensor]


@dataclass(eq=False)
class SymNode(Symbolic):
    """A node (or ``None``, id -1) of a ``SymTree`` while tracing."""

    tree: SymTree
    id: Tensor  # 0-d int64

    def __eq__(self, other: Any) -> bool:
        raise NotConvertible("== on tree nodes (compare with `is`)")

    __hash__ = object.__hash__


@dataclass(eq=False)
class OptionalRead(Symbolic):
    """``node.name`` of an optional scalar field read only to be tested against ``None``
    (the next instruction says so): its presence column answers, no guard needed."""

    node: SymNode
    field: Field

    def __eq__(self, other: Any) -> bool:
        raise NotConvertible("== on an optional tree field read for a None test")

    __hash__ = object.__hash__


#: opcodes that test the value just loaded against None (``x is None`` / ``x is not None``)
NONE_TESTS = frozenset({"POP_JUMP_FORWARD_IF_NONE", "POP_JUMP_FORWARD_IF_NOT_NONE",
                        "POP_JUMP_BACKWARD_IF_NONE", "POP_JUMP_BACKWARD_IF_NOT_NONE",
                        "POP_JUMP_IF_NONE", "POP_JUMP_IF_NOT_NONE"})  # 3.12+


def none_test(tracer: "Tracer", node: SymNode, name: str, bc: Any, offset: int) -> OptionalRead | None:
    """An ``OptionalRead`` when ``node.name`` is an optional scalar field whose load at
    ``offset`` is followed by a None test (jump-if-none, or ``LOAD_CONST None; IS_OP``)."""
    field = node.tree.kind.field(name)
    if field is None or not field.optional:
        return None
    following = bc.at(bc.next_offset(offset))
    if following.opname in NONE_TESTS or (
        following.opname == "LOAD_CONST" and following.argval is None
        and bc.at(bc.next_offset(following.offset)).opname == "IS_OP"
    ):
        return OptionalRead(node, field)
    return None


@dataclass
class BoundNodeMethod:
    """A method of the tree class looked up on a ``SymNode``; calls inline it."""

    function: Callable
    node: SymNode


def tree_argument(em: Any, kind: TreeKind, arrays: list[Tensor]) -> SymNode:
    """The root ``SymNode`` of a tree whose arrays are ``arrays`` (in ``kind.columns()`` order)."""
    tree = SymTree(kind, {(f.name, role): t for (f, role, _, _), t in zip(kind.columns(), arrays)})
    return SymNode(tree, em.literal(np.asarray(0, np.int64)))


def attribute(tracer: "Tracer", node: SymNode, name: str) -> Any:
    """``node.name``: a property or method of the class, or a field read from the arrays."""
    kind = node.tree.kind
    static = inspect.getattr_static(kind.cls, name, None)
    if isinstance(static, property) and static.fget is not None:
        return tracer.call(static.fget, [node], {})
    field = kind.field(name)
    if field is not None:
        return _read(tracer, node, field)
    if isinstance(static, types.FunctionType):
        return BoundNodeMethod(static, node)
    if isinstance(static, staticmethod):
        return static.__func__
    raise NotConvertible(f"attribute .{name} of a {kind.cls.__qualname__} tree node is not a field, method or property")


def _index(tracer: "Tracer", node: SymNode, field: Field) -> str:
    """The node's row as an ``index``, guarded on the node not being None (Python raises)."""
    em = tracer.em
    node_id = em.scalar(node.id)
    message = f"{node.tree.kind.cls.__qualname__}.{field.name} read on None (AttributeError)"
    tracer.guard(_compare(em, "sge", node_id, 0), "raise", message)
    return em.scalars().index_cast(node_id, "i64", "index")


def _read(tracer: "Tracer", node: SymNode, field: Field) -> Any:
    em, cls = tracer.em, node.tree.kind.cls.__qualname__
    if field.kind == "opaque":
        raise NotConvertible(f"{cls}.{field.name} holds values that are not linearized (mixed or unsupported types)")
    index = _index(tracer, node, field)
    if field.kind == "none":
        return None
    if field.optional:
        present = _extract(em, node.tree.arrays[(field.name, "present")], index)
        tracer.guard(_compare(em, "ne", present, 0), "type", f"{cls}.{field.name} is not None")
    column = node.tree.arrays[(field.name, "value")]
    if field.kind == "array":
        zeros = [em.index_constant(0) for _ in field.shape]
        return em.extract_slice(column, [index, *zeros], [1, *field.shape], [1] * column.ndim, field.shape)
    value = _extract(em, column, index)
    if field.kind == "child":
        return SymNode(node.tree, em.from_scalar(value, I64))
    if field.kind == "bool":
        return em.from_scalar(_compare(em, "ne", value, 0), np.dtype(bool), Weak)
    return em.from_scalar(value, SCALAR_KINDS[field.kind][2], Weak)


def _extract(em: Any, column: Tensor, index: str) -> str:
    return em.scalars().extract(column, [index])


def _compare(em: Any, predicate: str, scalar: str, constant: int) -> str:
    body = em.scalars()
    return body.cmp("i64", predicate, scalar, body.constant(constant, "i64"))


def is_none(tracer: "Tracer", node: SymNode | OptionalRead, negate: bool = False) -> Weak:
    """``node is None`` (``is not`` when ``negate``) as a ``Weak`` bool; for an optional
    field read, its presence column."""
    em = tracer.em
    if isinstance(node, OptionalRead):
        present = _extract(em, node.node.tree.arrays[(node.field.name, "present")], _index(tracer, node.node, node.field))
        return em.from_scalar(_compare(em, "ne" if negate else "eq", present, 0), np.dtype(bool), Weak)
    return em.from_scalar(_compare(em, "sge" if negate else "slt", em.scalar(node.id), 0), np.dtype(bool), Weak)


def identity(tracer: "Tracer", a: Any, b: Any, negate: bool) -> Any:
    """``a is b`` (``is not`` when ``negate``) where one side is a ``SymNode``."""
    if isinstance(a, SymNode) and isinstance(b, SymNode):
        if a.tree is not b.tree:
            raise NotConvertible("`is` between nodes of two different tree arguments")
        predicates = ("une", "ne", "ne") if negate else ("oeq", "eq", "eq")
        same = tracer.em.elementwise([a.id, b.id], (), np.dtype(bool), lambda body, x: body.cmp(I64, predicates, x[0], x[1]))
        return Weak(same.name, (), same.dtype)
    node, other = (a, b) if isinstance(a, (SymNode, OptionalRead)) else (b, a)
    if isinstance(node, OptionalRead) and other is not None:
        raise NotConvertible(f"`is` between an optional tree field and a {type(other).__name__}")
    if other is None:
        return is_none(tracer, node, negate)
    if isinstance(other, (Tensor, Symbolic, list, tuple, dict)) or type(other) in (bool, int, float, str):
        return negate  # a tree node is none of these
    raise NotConvertible(f"`is` between a tree node and a {type(other).__name__}")


def condition(tracer: "Tracer", node: SymNode) -> Weak:
    """The truth of ``node`` (the class defines none: true unless ``None``)."""
    return is_none(tracer, node, negate=True)
