"""Python object trees as index arrays, so one compiled graph serves every tree.

An argument that is a tree is *linearized* at call time. A tree is an object of a user
class whose attributes reach objects of its own class (a node: ``left``/``right``, or a
``children`` list for n-ary nodes, ``None`` where a child is missing), or a *wrapper*: an
object that holds such nodes in its attributes (``tree.root``, ``tree.label``), alone or in
a list or tuple. Every object reached is numbered breadth-first within its class (the
argument is row 0 of class 0). A list or tuple argument of trees of one class is one
*forest* (``is_forest``): numbered breadth-first from all its roots at once (the roots are
the first rows of class 0), so a recursion over every tree of the call sees one set of
arrays and runs one level loop over all of them (``janus-batch-tree-recursion``); each attribute of a class becomes arrays over that class's
rows: child ids (-1 for ``None``), a children list as a padded id matrix (width a power of two when the lengths differ) and a count,
ints, floats and bools as int64/float64 columns, arrays of one shape stacked, plus a
presence column for scalar attributes that are ``None`` on some rows. An object reached
twice (a shared subtree: a DAG) is one row, as in Python it is one object. The entry key
holds only the *structure kind* (the classes and each attribute's kind, a children list's
width), never the tree's size or shape, so every tree of that kind hits the same
compiled version (Cortex and TF Fold linearize trees the same way).

While tracing, a node is a ``SymNode``: a 0-d int64 id into its class's arrays of its
``SymTree``. ``node.left`` extracts a child id, ``node.children`` gives a ``SymChildren``
(``len``, truth, ``== []``, indexing; a ``for`` loop over it is an ``scf.for`` over the
node's count, leaves included: a child-sum recursion; a comprehension unrolls when every
non-empty list has one length),
``node.word`` a ``Weak`` int, ``node.is_leaf`` a ``Weak`` bool, ``node is None`` compares
the id with -1. Methods and properties of the class are inlined with the ``SymNode`` as
``self``. Every read is guarded on the node not being ``None`` (Python would raise
``AttributeError``), and an optional attribute on being present, so a tree the profile
did not foresee falls back instead of reading outside the arrays.
"""

from __future__ import annotations

import inspect
import re
import types
from dataclasses import dataclass, field as dataclass_field, replace
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
SEQUENCES = {"list": list, "tuple": tuple}


@dataclass(frozen=True)
class Field:
    """One attribute of a class's objects: ``kind`` is child (an object of class ``target``
    or None), children (a list or tuple of them: ``container``; ``shape`` is the padded
    width, ``arity`` the one length of every non-empty list, 0 when they differ), empty
    (always an empty list or tuple), none (always None), int, float, bool, array or opaque
    (not linearized: reading it is not convertible)."""

    name: str
    kind: str
    optional: bool = False  # None on some rows: a presence column guards each read
    partial: bool = False  # missing on some rows (set there by an earlier call): an exists column guards each read
    dtype: str = "int64"
    shape: tuple[int, ...] = ()
    target: int = -1
    container: str = ""
    arity: int = 0

    def columns(self) -> list[tuple[str, np.dtype, tuple[int, ...]]]:
        """(role, dtype, per-row shape) of the arrays this field contributes."""
        if self.kind == "opaque":
            return []
        exists = [("exists", I64, ())] if self.partial else []
        if self.kind in ("none", "empty"):
            return exists
        value = [("value", np.dtype(self.dtype), self.shape)]
        if self.kind == "children":
            return value + [("count", I64, ())] + exists
        return value + [("present", I64, ())] * self.optional + exists


@dataclass(frozen=True)
class Layout:
    """The fields of one class of the objects a tree argument reaches."""

    cls: type
    fields: tuple[Field, ...]

    def field(self, name: str) -> Field | None:
        return next((f for f in self.fields if f.name == name), None)


@dataclass(frozen=True)
class Column:
    """One array of a linearized tree: field ``field`` of class ``layout`` (an index)."""

    layout: int
    field: Field
    role: str
    dtype: np.dtype
    shape: tuple[int, ...]

    @property
    def key(self) -> tuple[int, str, str]:
        return (self.layout, self.field.name, self.role)


@dataclass(frozen=True)
class TreeKind:
    """What a compiled version assumes about a tree argument (part of the entry key):
    the layout of each class it reaches, the argument's own class first."""

    layouts: tuple[Layout, ...]

    @property
    def cls(self) -> type:
        return self.layouts[0].cls

    def columns(self) -> list[Column]:
        return [Column(i, f, role, dtype, shape) for i, layout in enumerate(self.layouts)
                for f in layout.fields for role, dtype, shape in f.columns()]

    def shapes(self, prefix: str) -> list[tuple]:
        """The shapes of the arrays, a symbol ``prefix.<class>`` for each class's row count."""
        return [(f"{prefix}.{c.layout}", *c.shape) for c in self.columns()]

    def describe(self) -> str:
        return f"{self.cls.__qualname__} tree"


#: classes seen holding an object of their own class (nodes); a one-node tree is a tree too
_NODE_CLASSES: set[type] = set()
_ANNOTATED: dict[type, bool] = {}


def _user_object(value: Any) -> bool:
    return type(value).__module__ != "builtins" and isinstance(getattr(value, "__dict__", None), dict) \
        and not isinstance(value, type)


def _annotated_recursive(cls: type) -> bool:
    """Whether an attribute annotation of ``cls`` names ``cls`` (``left: "Tree | None"``)."""
    if cls not in _ANNOTATED:
        word = re.compile(rf"\b{re.escape(cls.__name__)}\b")
        annotations = [a for klass in cls.__mro__ for a in vars(klass).get("__annotations__", {}).values()]
        _ANNOTATED[cls] = any(word.search(a if isinstance(a, str) else repr(a)) for a in annotations)
    return _ANNOTATED[cls]


def is_node(value: Any) -> bool:
    """Whether ``value`` is a node: its class holds objects of itself (an attribute, or the
    first item of a list or tuple attribute), seen now or before, or says so in annotations."""
    cls = type(value)
    if cls in _NODE_CLASSES:
        return True
    if not _user_object(value):
        return False
    for v in vars(value).values():
        if type(v) is cls or type(v) in (list, tuple) and v and type(v[0]) is cls:
            _NODE_CLASSES.add(cls)
            return True
    return _annotated_recursive(cls)


def is_tree(value: Any) -> bool:
    """Whether ``value`` is linearized: a node, or a wrapper holding nodes in its attributes
    (directly, or as the items of a list or tuple)."""
    if is_node(value):
        return True
    if not _user_object(value):
        return False
    return any(is_node(v) or type(v) in (list, tuple) and v and all(map(is_node, v)) for v in vars(value).values())


#: attribute value types that are never nodes, wrappers or lists of nodes (``is_node`` and
#: ``is_tree`` see a builtin or an array as a leaf value)
_PLAIN_ATTRIBUTES = frozenset({int, float, bool, complex, str, bytes, type(None), dict, set, frozenset, np.ndarray})


def plainly_not_tree(value: Any) -> bool:
    """A cheap sufficient test for ``not is_tree(value)`` (an entry guard runs it on every
    call; False means only that ``is_tree`` must decide): an object of a class not known
    as a node class whose attributes all hold builtin values, arrays, lists or tuples whose
    first item is one (not all nodes: a trajectory log), or objects of immutable classes
    without a ``__dict__`` (a ``Generator``: ``is_node`` sees no user object)."""
    attributes = getattr(value, "__dict__", None)
    cls = type(value)
    if type(attributes) is not dict or cls in _NODE_CLASSES or _annotated_recursive(cls):
        return False
    for v in attributes.values():  # a loop: half the time of ``issuperset(map(type, ...))``
        kind = type(v)
        if kind in _PLAIN_ATTRIBUTES:
            continue
        if kind is list or kind is tuple:
            if v and type(v[0]) not in _PLAIN_ATTRIBUTES:
                return False
        elif not _dictless(kind):
            return False
    return True


def not_tree_condition(cls: type, var: str, bind: Callable[[Any], str]) -> str:
    """``plainly_not_tree(var) or not is_tree(var)`` as generated code for an object of
    exactly ``cls`` (an entry guard's, run on every call; ``bind`` names a constant), its
    common case first without a call or a Python loop: ``cls`` not a node class and every
    attribute's value of a type in ``_PLAIN_ATTRIBUTES`` (one C-level set test), which is
    ``plainly_not_tree``'s answer without its list and dictless cases. Otherwise, or for
    a class whose annotations name itself (never plain), the two tests as they are."""
    full = f"{bind(plainly_not_tree)}({var}) or not {bind(is_tree)}({var})"
    if _annotated_recursive(cls):
        return full
    attributes = f"w{var}"
    return (f"{bind(cls)} not in {bind(_NODE_CLASSES)} and type({attributes} := getattr({var}, '__dict__', None)) is dict"
            f" and {bind(_PLAIN_ATTRIBUTES)}.issuperset(map(type, {attributes}.values())) or {full}")


#: classes by whether their instances never have a ``__dict__`` (``_dictless``)
_DICTLESS: dict[type, bool] = {}
_IMMUTABLE_TYPE = 1 << 8  # Py_TPFLAGS_IMMUTABLETYPE


def _dictless(cls: type) -> bool:
    """Whether ``getattr(obj, "__dict__", None)`` is None for every instance of ``cls``: an
    immutable class (its answer cannot change) without a dict slot, ``__dict__`` descriptor,
    ``__getattr__`` or own ``__getattribute__``."""
    known = _DICTLESS.get(cls)
    if known is None:
        known = _DICTLESS[cls] = bool(cls.__flags__ & _IMMUTABLE_TYPE) and cls.__dictoffset__ == 0 \
            and cls.__getattribute__ is object.__getattribute__ \
            and not any("__dict__" in vars(k) or "__getattr__" in vars(k) for k in cls.__mro__)
    return known


def is_forest(value: Any) -> bool:
    """Whether ``value`` is a list or tuple of trees of one class: linearized as ONE forest
    (every tree's nodes numbered breadth-first from all the roots at once), so a recursion
    over each tree of the call runs one level loop over all of them (issue #15)."""
    if type(value) not in (list, tuple) or not value:
        return False
    cls = type(value[0])
    return all(type(v) is cls for v in value) and is_tree(value[0])


def _roots(value: Any) -> list[Any]:
    """The roots of a tree (itself) or of a forest (its items)."""
    return list(value) if type(value) in (list, tuple) else [value]


def _reach(roots: list[Any]) -> tuple[dict[type, list[Any]], dict[int, int]]:
    """The objects of each class the trees at ``roots`` (one class) reach, rows breadth-first
    from all the roots at once (the roots first; an object reached twice is one row), and
    each object's row (by ``id``)."""
    table0: list[Any] = []
    rows: dict[type, list[Any]] = {type(roots[0]): table0}
    ids: dict[int, int] = {}
    for root in roots:
        if id(root) not in ids:
            ids[id(root)] = len(table0)
            table0.append(root)
    queue = list(table0)
    leaves, found, enqueue = _LEAVES, rows.get, queue.append  # bound once: the loop runs per node, per call
    for obj in queue:  # grows while iterating: breadth-first
        for v in obj.__dict__.values():
            typ = type(v)
            if typ in leaves:
                continue
            for item in v if typ is list or typ is tuple else (v,):
                key = id(item)
                if key in ids:
                    continue
                table = found(type(item))
                if table is None:
                    if not is_node(item):
                        continue
                    table = rows[type(item)] = []
                ids[key] = len(table)
                table.append(item)
                enqueue(item)
    return rows, ids


#: attribute values that are never objects of a tree (skipped without a look)
_LEAVES = frozenset({int, float, bool, str, type(None), np.ndarray})


def objects(root: Any) -> list[list[Any]]:
    """The objects of each class of the tree (or forest) at ``root``, by row (``TreeKind.layouts`` order)."""
    return list(_reach(_roots(root))[0].values())


def snapshot(values: Any) -> list[tuple[Any, dict]]:
    """The attributes of every object of the trees in ``values`` (arguments, lists, tuples)."""
    if type(values) in (list, tuple):
        return [saved for v in values for saved in snapshot(v)]
    if not is_tree(values):
        return []
    return [(obj, dict(vars(obj))) for table in _reach([values])[0].values() for obj in table]


def restore(saved: list[tuple[Any, dict]]) -> None:
    """Give each object the attributes ``snapshot`` saw (the same ``__dict__``, refilled)."""
    for obj, attributes in saved:
        vars(obj).clear()
        vars(obj).update(attributes)


def linearize(root: Any) -> tuple[TreeKind, list[np.ndarray]]:
    """The structure kind and the arrays of the tree at ``root``, or of the forest ``root``
    (``is_forest``), rows breadth-first per class."""
    rows, ids = _reach(_roots(root))
    classes = list(rows)
    layouts, arrays = [], []
    for cls, table in rows.items():
        if hasattr(cls, "__bool__") or hasattr(cls, "__len__"):
            raise NotConvertible(f"{cls.__qualname__} defines its own truth value")
        dicts = [o.__dict__ for o in table]
        columns = _uniform_columns(dicts)
        names = dicts[0] if columns is not None else dict.fromkeys(name for d in dicts for name in d)  # in order of first appearance
        fields = []
        for position, name in enumerate(names):
            if columns is not None:
                field, values = _classify(name, columns[position], classes, ids, True)
            else:
                column = [d.get(name, _MISSING) for d in dicts]
                exists = [v is not _MISSING for v in column]
                nones = any(v is None for v in column)
                field, values = _classify(name, [None if v is _MISSING else v for v in column], classes, ids, all(exists), nones)
                if field.kind != "opaque" and not all(exists):
                    field, values = replace(field, partial=True), [*values, np.array(exists, np.int64)]
            fields.append(field)
            arrays.extend(values)
        layouts.append(Layout(cls, tuple(fields)))
    return TreeKind(tuple(layouts)), arrays


#: an attribute an object does not have (others of its class have it)
_MISSING = object()


def _uniform_columns(dicts: list[dict[str, Any]]) -> list[list[Any]] | None:
    """Each attribute's column (in the first object's order) when every object has the same
    attributes, else None. Every object holding the first one's names, with as many names in
    all as that many objects of the first one's, is the same test as comparing every key set,
    at a third of the cost (linearizing runs on every call)."""
    names = list(dicts[0])
    if sum(map(len, dicts)) != len(names) * len(dicts):
        return None
    try:
        return [[d[name] for d in dicts] for name in names]
    except KeyError:
        return None


def _classify(name: str, column: list[Any], classes: list[type], ids: dict[int, int],
              everywhere: bool, nones: bool | None = None) -> tuple[Field, list[np.ndarray]]:
    """The field and arrays of one attribute: ``None`` where an object lacks it (unless
    ``everywhere``) or holds None (``nones``; when not given, every None is one)."""
    kinds = {type(v) for v in column}
    optional = type(None) in kinds
    nones = optional if nones is None else nones
    kinds.discard(type(None))
    if not kinds:
        return Field(name, "none"), []
    if len(kinds) == 1 and (typ := next(iter(kinds))) in classes:
        return Field(name, "child", target=classes.index(typ)), [np.array([-1 if v is None else ids[id(v)] for v in column], np.int64)]
    if everywhere and not optional and len(kinds) == 1 and (typ := next(iter(kinds))) in (list, tuple):
        return _children(name, typ.__name__, column, classes, ids)
    present = [v is not None for v in column]
    if len(kinds) == 1 and (kind := _KIND_OF_TYPE.get(kinds.pop())) is not None:
        _, storage, _ = SCALAR_KINDS[kind]
        try:
            values = np.array([0 if v is None else v for v in column], storage)
        except OverflowError:
            return Field(name, "opaque"), []
        masks = [np.array(present, np.int64)] if optional else []
        return Field(name, kind, optional, dtype=storage.name), [values, *masks]
    held = [v for v in column if v is not None]
    first = held[0]
    if not nones and type(first) is np.ndarray and first.dtype.name in ELEMENT_TYPES and all(
        type(v) is np.ndarray and v.dtype == first.dtype and v.shape == first.shape for v in held
    ):  # missing rows (not None: absent) hold zeros, never read (the exists column guards)
        filler = np.zeros_like(first)
        return Field(name, "array", dtype=first.dtype.name, shape=first.shape), [np.stack([filler if v is None else v for v in column])]
    return Field(name, "opaque"), []


def _children(name: str, container: str, column: list[Any], classes: list[type], ids: dict[int, int]) -> tuple[Field, list[np.ndarray]]:
    """A list (or tuple) attribute whose items are all objects of one linearized class."""
    items = {type(item) for v in column for item in v}
    if not items:
        return Field(name, "empty", container=container), []
    typ = items.pop()
    if items or typ not in classes:
        return Field(name, "opaque"), []
    counts = np.array([len(v) for v in column], np.int64)
    lengths = set(counts.tolist()) - {0}
    arity = lengths.pop() if len(lengths) == 1 else 0
    width = int(counts.max())
    if not arity:  # the width is in the entry key: a power of two, so few trees need a version of their own
        width = 1 << (width - 1).bit_length()
    matrix = np.full((len(column), width), -1, np.int64)
    for row, v in enumerate(column):
        matrix[row, : len(v)] = [ids[id(item)] for item in v]
    field = Field(name, "children", shape=(width,), target=classes.index(typ), container=container, arity=arity)
    return field, [matrix, counts]


# ---- tracing ------------------------------------------------------------------------------
@dataclass(eq=False)
class SymTree:
    """A linearized tree in the function being traced: its arrays, by ``Column.key``."""

    kind: TreeKind
    arrays: dict[tuple[int, str, str], Tensor]
    #: node attributes the program writes: (class index, name) -> ``node_writes.Written``
    written: dict[tuple[int, str], Any] = dataclass_field(default_factory=dict)


def bind_tree(em: Any, kind: TreeKind, names: list[str], prefix: str) -> SymTree:
    """The ``SymTree`` whose arrays are the SSA values ``names`` (in ``kind.columns()`` order),
    each class's row count a ``?`` dim named ``prefix.<class>``."""
    arrays = {}
    for name, column, shape in zip(names, kind.columns(), kind.shapes(prefix)):
        arrays[column.key] = tensor = Tensor(name, shape, column.dtype)
        em.bind_dim(shape[0], tensor, 0)
    return SymTree(kind, arrays)


@dataclass(eq=False)
class SymNode(Symbolic):
    """A node (or ``None``, id -1) of class ``layout`` of a ``SymTree`` while tracing."""

    tree: SymTree
    id: Tensor  # 0-d int64
    layout: int = 0

    @property
    def fields(self) -> Layout:
        return self.tree.kind.layouts[self.layout]

    def __eq__(self, other: Any) -> bool:
        raise NotConvertible("== on tree nodes (compare with `is`)")

    __hash__ = object.__hash__


@dataclass(eq=False)
class SymChildren(Symbolic):
    """``node.children`` (a list or tuple of nodes) while tracing: the node's row of the
    padded id matrix and its item count (``index`` and i64 SSA values)."""

    node: SymNode
    field: Field
    row: str
    count: str

    def __eq__(self, other: Any) -> bool:
        raise NotConvertible("== on a list of tree nodes")

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
    field = node.fields.field(name)
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


def forest_rows(items: list[Any] | tuple[Any, ...]) -> tuple[int, ...]:
    """The row of each root of the forest ``items`` (``is_forest``): 0, 1, ... but an item
    given twice has its first row."""
    first: dict[int, int] = {}
    return tuple(first.setdefault(id(v), len(first)) for v in items)


def tree_argument(em: Any, kind: TreeKind, arrays: list[Tensor], rows: tuple[int, ...] = (0,)) -> list[SymNode]:
    """The root ``SymNode`` of each row ``rows`` of the tree (or forest) whose arrays are
    ``arrays`` (in ``kind.columns()`` order): one ``SymTree`` for all of them."""
    tree = SymTree(kind, {column.key: t for column, t in zip(kind.columns(), arrays)})
    return [SymNode(tree, em.literal(np.asarray(row, np.int64))) for row in rows]


def attribute(tracer: "Tracer", node: SymNode, name: str) -> Any:
    """``node.name``: a property or method of the class, or a field read from the arrays."""
    layout = node.fields
    static = inspect.getattr_static(layout.cls, name, None)
    if isinstance(static, property) and static.fget is not None:
        return tracer.call(static.fget, [node], {})
    written = node.tree.written.get((node.layout, name))
    if written is not None:
        return _read_written(tracer, node, written)
    field = layout.field(name)
    if field is not None:
        return _read(tracer, node, field)
    if isinstance(static, types.FunctionType):
        return BoundNodeMethod(static, node)
    if isinstance(static, staticmethod):
        return static.__func__
    raise NotConvertible(f"attribute .{name} of a {layout.cls.__qualname__} tree node is not a field, method or property")


def node_row(tracer: "Tracer", node: SymNode, name: str) -> str:
    """The node's row as an ``index``, guarded on the node not being None (Python raises)."""
    em = tracer.em
    node_id = em.scalar(node.id)
    message = f"{node.fields.cls.__qualname__}.{name} read on None (AttributeError)"
    tracer.guard(_compare(em, "sge", node_id, 0), "raise", message)
    return em.scalars().index_cast(node_id, "i64", "index")


def _read(tracer: "Tracer", node: SymNode, field: Field) -> Any:
    em, cls = tracer.em, node.fields.cls.__qualname__
    if field.kind == "opaque":
        raise NotConvertible(f"{cls}.{field.name} holds values that are not linearized (mixed or unsupported types)")
    index = node_row(tracer, node, field.name)
    arrays = node.tree.arrays
    if field.partial:
        exists = _extract(em, arrays[(node.layout, field.name, "exists")], [index])
        tracer.guard(_compare(em, "ne", exists, 0), "raise", f"{cls}.{field.name} exists (AttributeError)")
    if field.kind == "none":
        return None
    if field.kind == "empty":
        return SEQUENCES[field.container]()
    if field.kind == "children":
        return SymChildren(node, field, index, _extract(em, arrays[(node.layout, field.name, "count")], [index]))
    if field.optional:
        present = _extract(em, arrays[(node.layout, field.name, "present")], [index])
        tracer.guard(_compare(em, "ne", present, 0), "type", f"{cls}.{field.name} is not None")
    column = arrays[(node.layout, field.name, "value")]
    if field.kind == "array":
        zeros = [em.index_constant(0) for _ in field.shape]
        return em.extract_slice(column, [index, *zeros], [1, *field.shape], [1] * column.ndim, field.shape)
    value = _extract(em, column, [index])
    if field.kind == "child":
        return SymNode(node.tree, em.from_scalar(value, I64), field.target)
    if field.kind == "bool":
        return em.from_scalar(_compare(em, "ne", value, 0), np.dtype(bool), Weak)
    return em.from_scalar(value, SCALAR_KINDS[field.kind][2], Weak)


def _read_written(tracer: "Tracer", node: SymNode, written: Any) -> Tensor:
    """``node.name`` of an attribute the program writes (``node_writes``): its row of the
    column, guarded on having been set when the attribute did not exist before the call."""
    em, spec = tracer.em, written.spec
    row = node_row(tracer, node, spec.key[1])
    if spec.guarded:
        was = _extract(em, written.mask, [row])
        tracer.guard(_compare(em, "ne", was, 0), "raise",
                     f"{node.fields.cls.__qualname__}.{spec.key[1]} set before it is read (AttributeError)")
    zeros = [em.index_constant(0) for _ in spec.shape]
    value = em.extract_slice(written.column, [row, *zeros], [1, *spec.shape], [1] * (1 + len(spec.shape)), spec.shape)
    tracer.tree_state.stored.append(value)  # the node's object in Python (``node_writes.TreeState``)
    return value


def _extract(em: Any, column: Tensor, indices: list[str]) -> str:
    return em.scalars().extract(column, indices)


def _compare(em: Any, predicate: str, scalar: str, constant: int) -> str:
    body = em.scalars()
    return body.cmp("i64", predicate, scalar, body.constant(constant, "i64"))


# ---- children lists ---------------------------------------------------------------------------
def length(tracer: "Tracer", children: SymChildren) -> Weak:
    """``len(node.children)``."""
    return tracer.em.from_scalar(children.count, I64, Weak)


def child_item(tracer: "Tracer", children: SymChildren, key: Any) -> SymNode:
    """``node.children[key]`` for an int or a traced int, guarded in range (Python raises IndexError)."""
    em = tracer.em
    body = em.scalars()
    if type(key) is int:
        position = body.constant(key, "i64")
        if key < 0:
            position = body.op("arith.addi", [children.count, position], "i64")
    elif isinstance(key, Tensor) and not key.shape and key.dtype.kind == "i":
        position = body.cast(em.scalar(key), key.dtype, I64)
    else:
        raise NotConvertible(f"indexing a list of tree nodes with a {type(key).__name__}")
    inside = body.op("arith.andi", [_compare(em, "sge", position, 0), body.cmp("i64", "slt", position, children.count)], "i1")
    tracer.guard(inside, "raise", f"{children.node.fields.cls.__qualname__}.{children.field.name} index in range (IndexError)")
    return _item(em, children, body.index_cast(position, "i64", "index"))


def children_items(tracer: "Tracer", children: SymChildren) -> list[SymNode]:
    """The nodes a comprehension, ``zip`` or unpacking of ``node.children`` sees (and a ``for``
    loop whose body cannot be a region): every non-empty list of the tree has one length (the
    kind says which), so they are known, guarded on this list having it. A ``for`` loop is
    ``children_loop`` instead."""
    field = children.field
    name = f"{children.node.fields.cls.__qualname__}.{field.name}"
    if not field.arity:
        raise NotConvertible(f"iteration over {name}: its lists have different lengths in this tree "
                             "(a comprehension or generator over them: write a for loop)")
    tracer.guard(_compare(tracer.em, "eq", children.count, field.arity), "type", f"{name} has {field.arity} items")
    return [_item(tracer.em, children, tracer.em.index_constant(j)) for j in range(field.arity)]


def compare_children(tracer: "Tracer", symbol: str, a: Any, b: Any) -> Any:
    """``node.children == []`` (or ``!=``, either side): a leaf test. Equal only to an empty
    list or tuple of the same container type (Python: ``[] == ()`` is False)."""
    children, other = (a, b) if isinstance(a, SymChildren) else (b, a)
    if symbol not in ("==", "!=") or type(other) not in (list, tuple) or other:
        raise NotConvertible(f"{symbol} between a list of tree nodes and a {type(other).__name__} (only == [] or != [])")
    if type(other) is not SEQUENCES[children.field.container]:
        return symbol == "!="
    return tracer.em.from_scalar(_compare(tracer.em, "eq" if symbol == "==" else "ne", children.count, 0), np.dtype(bool), Weak)


def children_loop(tracer: "Tracer", children: SymChildren) -> tuple[str, str, str, Callable[[str], SymNode]]:
    """Bounds of a ``for`` loop over ``node.children`` whose lists differ in length (n-ary
    trees: a child-sum TreeLSTM): ``scf.for`` from 0 to the node's count, the item of
    iteration ``%iv`` read from the padded id matrix (``loops.GraphIter``)."""
    em = tracer.em
    upper = em.scalars().index_cast(children.count, "i64", "index")
    return em.index_constant(0), upper, em.index_constant(1), lambda iv: _item(em, children, iv)


def _item(em: Any, children: SymChildren, position: str) -> SymNode:
    node = children.node
    matrix = node.tree.arrays[(node.layout, children.field.name, "value")]
    return SymNode(node.tree, em.from_scalar(_extract(em, matrix, [children.row, position]), I64), children.field.target)


def is_none(tracer: "Tracer", node: SymNode | OptionalRead, negate: bool = False) -> Weak:
    """``node is None`` (``is not`` when ``negate``) as a ``Weak`` bool; for an optional
    field read, its presence column."""
    em = tracer.em
    if isinstance(node, OptionalRead):
        row = node_row(tracer, node.node, node.field.name)
        arrays, layout, name = node.node.tree.arrays, node.node.layout, node.field.name
        if node.field.partial:
            exists = _extract(em, arrays[(layout, name, "exists")], [row])
            tracer.guard(_compare(em, "ne", exists, 0), "raise", f"{node.node.fields.cls.__qualname__}.{name} exists (AttributeError)")
        present = _extract(em, arrays[(layout, name, "present")], [row])
        return em.from_scalar(_compare(em, "ne" if negate else "eq", present, 0), np.dtype(bool), Weak)
    return em.from_scalar(_compare(em, "sge" if negate else "slt", em.scalar(node.id), 0), np.dtype(bool), Weak)


def identity(tracer: "Tracer", a: Any, b: Any, negate: bool) -> Any:
    """``a is b`` (``is not`` when ``negate``) where one side is a ``SymNode``."""
    if isinstance(a, SymNode) and isinstance(b, SymNode):
        if a.tree is not b.tree:
            raise NotConvertible("`is` between nodes of two different tree arguments")
        em = tracer.em
        if a.layout != b.layout:  # objects of two classes: the same only when both are None
            body = em.scalars()
            same = body.op("arith.andi", [_compare(em, "slt", em.scalar(a.id), 0), _compare(em, "slt", em.scalar(b.id), 0)], "i1")
            return em.from_scalar(em.negate(same) if negate else same, np.dtype(bool), Weak)
        predicates = ("une", "ne", "ne") if negate else ("oeq", "eq", "eq")
        result = em.elementwise([a.id, b.id], (), np.dtype(bool), lambda body, x: body.cmp(I64, predicates, x[0], x[1]))
        return Weak(result.name, (), result.dtype)
    node, other = (a, b) if isinstance(a, (SymNode, OptionalRead)) else (b, a)
    if isinstance(node, OptionalRead) and other is not None:
        raise NotConvertible(f"`is` between an optional tree field and a {type(other).__name__}")
    if other is None:
        return is_none(tracer, node, negate)
    if isinstance(other, (Tensor, Symbolic, list, tuple, dict)) or type(other) in (bool, int, float, str):
        return negate  # a tree node is none of these
    raise NotConvertible(f"`is` between a tree node and a {type(other).__name__}")


def condition(tracer: "Tracer", value: SymNode | SymChildren) -> Weak:
    """The truth of a node (the class defines none: true unless ``None``) or of a children
    list (true unless empty)."""
    if isinstance(value, SymChildren):
        return tracer.em.from_scalar(_compare(tracer.em, "ne", value.count, 0), np.dtype(bool), Weak)
    return is_none(tracer, value, negate=True)
