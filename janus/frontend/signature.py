"""Entry signatures: what a compiled version assumes about its arguments.

Arrays and NumPy scalars are specialized on type, dtype and shape (they become graph
arguments); Python scalars, ``None`` and strings on their value (they are constants of
the graph: trip counts, indices and shapes are derived from them); lists and tuples on
their length and the signatures of their items; objects passed as arguments (``self``, a
dict of parameters) on their exact type only, as what the graph reads from them is
checked per location on each call (heap guards, ``guards``). The same walk gives the key
for the graph cache and the arrays to pass, in order, to the compiled function.
"""

from __future__ import annotations

from functools import lru_cache
from math import copysign
import types
from typing import Any, Callable, Hashable

import numpy as np

from janus.frontend.recursion.trees import forest_rows, is_forest, is_tree, linearize, plainly_not_tree
from janus.frontend.heap.rules import is_heap_object
from janus.frontend.values import ELEMENT_TYPES, NotConvertible

STATIC_TYPES = (bool, int, float, str, type(None))
#: functions passed as arguments (``act=np.tanh``, ``activation=relu``): constants of the graph by
#: identity, as a global function is; a Python function's closure cells are heap locations of the trace
CALLEE_TYPES = (types.FunctionType, types.BuiltinFunctionType, np.ufunc, type(np.mean))


def walk(
    value: Any,
    on_array: Callable[[Any], Any],
    on_static: Callable[[Any], Any] = lambda v: v,
    on_sequence: Callable[[type, list], Any] = lambda typ, items: typ(items),
    on_tree: Callable[[Any], Any] | None = None,
) -> Any:
    """Rebuild ``value`` with arrays, static leaves, lists/tuples and trees mapped.

    Raises ``NotConvertible`` for anything else.
    """
    if type(value) is np.ndarray or isinstance(value, np.generic):
        if value.dtype.name not in ELEMENT_TYPES:
            raise NotConvertible(f"argument dtype {value.dtype} is not supported")
        return on_array(value)
    if type(value) in STATIC_TYPES or type(value) in CALLEE_TYPES:
        return on_static(value)
    if type(value) in (list, tuple):
        return on_sequence(type(value), [walk(v, on_array, on_static, on_sequence, on_tree) for v in value])
    if is_namedtuple(value):
        return type(value)(*(walk(v, on_array, on_static, on_sequence, on_tree) for v in value))
    if on_tree is not None and is_tree(value):
        return on_tree(value)
    raise NotConvertible(f"argument of type {type(value).__name__} is not supported")


def is_namedtuple(value: Any) -> bool:
    """A NamedTuple argument: its fields are leaves, its exact type part of the key."""
    return isinstance(value, tuple) and type(value) is not tuple and type(getattr(value, "_fields", None)) is tuple


def record_node(node: tuple) -> bool:
    """Whether a key node is a NamedTuple's: ``(("namedtuple", type), items)``."""
    return type(node[0]) is tuple


def stack_items(items: list) -> tuple[tuple, np.ndarray] | None:
    """(item key node, ``np.stack(items)``) for a non-empty list of arrays of one dtype and
    shape: the form a list relaxed by ``relax`` takes; None when it cannot take it."""
    if not items or type(items[0]) is not np.ndarray:
        return None
    first = items[0]
    name = _DTYPE_NAMES.get(first.dtype)
    if name is None or any(type(v) is not np.ndarray or v.dtype != first.dtype or v.shape != first.shape for v in items):
        return None
    return ("array", "ndarray", name, first.shape), np.stack(items)


#: a relaxed int lies strictly between -RELAXED_INT_BOUND and RELAXED_INT_BOUND
RELAXED_INT_BOUND = 1 << 62


def relaxed_int(value: int) -> bool:
    """Whether a Python int can be a relaxed (int64) graph input, with room for arithmetic."""
    return -RELAXED_INT_BOUND < value < RELAXED_INT_BOUND


@lru_cache(maxsize=64)
def _has_values(dynamic: frozenset) -> bool:
    return any(isinstance(p[0], str) for p in dynamic)


#: supported dtypes by dtype object: ``dtype.name`` builds a string on every access
_DTYPE_NAMES = {np.dtype(name): name for name in ELEMENT_TYPES}


def key_and_leaves(args: tuple, dynamic: frozenset[tuple[int, int]] = frozenset()) -> tuple[Hashable, list[np.ndarray]]:
    """The cache key of a call and its arrays in graph-argument order, in one pass (the
    per-call path of ``janus.jit``); NotConvertible when an argument cannot be specialized.

    Nodes: ``("array", type, dtype, shape)``, ``("static", type, value)`` (``-0.0`` with a
    fourth item: it equals ``0.0``),
    ``("callee", function)`` (a function argument, by identity), ``("list" | "tuple", items)``, ``(("namedtuple", type), items)``, ``("tree", trees.TreeKind)`` (its arrays are leaves, of
    a length the key does not hold), ``("forest", "list" | "tuple", root rows, trees.TreeKind)`` (a list or
    tuple of trees of one class linearized together, ``trees.is_forest``), ``("object", type)`` (top-level heap
    objects; ``("object", list, length)`` for a list of them). Dims in ``dynamic`` (array leaf, dim) are relaxed:
    their size is replaced by a symbol ``s0``, ``s1``... numbered by first appearance
    of each size, so the key still says which relaxed dims are equal. Positions
    ``("list" | "int", path)`` in ``dynamic`` are relaxed values (see ``relax``): nodes
    ``("stacked", item)`` (one stacked array leaf) and ``("scalar", "int" | "float")`` (a Python int or float leaf,
    an i64 or f64 parameter).
    """
    leaves: list[np.ndarray] = []
    symbols: dict[int, str] = {}

    def node(v: Any, path: tuple[int, ...] | None) -> tuple:
        typ = type(v)
        if typ is np.ndarray or isinstance(v, np.generic):
            name = _DTYPE_NAMES.get(v.dtype)
            if name is None:
                raise NotConvertible(f"argument dtype {v.dtype} is not supported")
            shape = v.shape
            if dynamic:
                i = len(leaves)
                shape = tuple(
                    symbols.setdefault(n, f"s{len(symbols)}") if (i, d) in dynamic else n for d, n in enumerate(shape)
                )
            leaves.append(v if typ is np.ndarray else np.asarray(v))
            return ("array", typ.__name__, name, shape)
        if path is not None:
            if typ is int and ("int", path) in dynamic and relaxed_int(v):
                leaves.append(v)  # an i64 parameter (see ``scalar_abi``)
                return ("scalar", "int")
            if typ is float and ("float", path) in dynamic:
                leaves.append(v)  # an f64 parameter
                return ("scalar", "float")
            stacked = stack_items(v) if typ is list and ("list", path) in dynamic else None
            if stacked is not None:
                leaves.append(stacked[1])
                return ("stacked", stacked[0])
        if typ in STATIC_TYPES:
            if typ is float and v == 0.0 and copysign(1.0, v) < 0:  # -0.0 == 0.0, yet 1 / -0.0 is -inf
                return ("static", "float", v, "negative zero")
            return ("static", typ.__name__, v)
        if typ in CALLEE_TYPES:
            return ("callee", v)
        if (typ is list or typ is tuple) and is_forest(v):  # one forest: the key holds its kind and root rows
            kind, arrays = linearize(v)
            leaves.extend(arrays)
            return ("forest", typ.__name__, forest_rows(v), kind)
        if typ is list or typ is tuple:
            return (typ.__name__, tuple(node(item, None if path is None else path + (i,)) for i, item in enumerate(v)))
        if is_namedtuple(v):  # its type in the node's kind: keys of two types never match or relax into each other
            return (("namedtuple", typ), tuple(node(item, None if path is None else path + (i,)) for i, item in enumerate(v)))
        if is_tree(v):  # linearized: the key holds the structure kind, the leaves its arrays
            kind, arrays = linearize(v)
            leaves.extend(arrays)
            return ("tree", kind)
        raise NotConvertible(f"argument of type {typ.__name__} is not supported")

    paths = bool(dynamic) and _has_values(dynamic)
    return tuple(_reference_node(a) if by_reference(a) else node(a, (i,) if paths else None)
                 for i, a in enumerate(args)), leaves


def _reference_node(value: Any) -> tuple:
    """The key of an argument passed by reference: its type (a list's length too: a version
    reads the items it has, and a list with others left is another resumed loop)."""
    return ("object", list, len(value)) if type(value) is list else ("object", type(value))


def by_reference(value: Any) -> bool:
    """Whether an argument is passed as an object reference: a heap object that is no tree
    node, or a list of such objects (a list of layers, the layers a resumed ``for`` loop has
    left), whose items the graph reads as heap locations, guarded as ``self.layers`` is."""
    if type(value) is list:
        return bool(value) and all(is_heap_object(v) and not is_tree(v) for v in value)
    return is_heap_object(value) and (plainly_not_tree(value) or not is_tree(value))


def as_came(args: tuple) -> tuple:
    """The arguments with their lists and tuples copied (items shared, aliases kept): what
    the entry key saw, for a graph built after the profiled run appended to them (a resume
    function's ``rewards`` list, a log passed in)."""
    copies: dict[int, Any] = {}

    def copy(value: Any) -> Any:
        if type(value) not in (list, tuple):
            return value
        if id(value) not in copies:
            copies[id(value)] = type(value)(copy(item) for item in value)
        return copies[id(value)]

    return tuple(copy(a) for a in args)


def entry_key(args: tuple, dynamic: frozenset[tuple[int, int]] = frozenset()) -> Hashable:
    """The cache key of a call (see ``key_and_leaves``)."""
    return key_and_leaves(args, dynamic)[0]


def leaf_shapes(key: Hashable) -> list[tuple]:
    """The shapes (symbols for relaxed dims) of the array leaves of a key, in order."""
    shapes: list[tuple] = []

    def visit(node: tuple) -> None:
        if node[0] == "array":
            shapes.append(node[3])
        elif node[0] in ("tree", "forest"):
            shapes.extend(node[-1].shapes(f"tree{len(shapes)}"))
        elif node[0] == "stacked":  # its length is a ? dim of its own
            shapes.append((f"len{len(shapes)}",) + node[1][3])
        elif node[0] == "scalar":
            shapes.append(())
        elif node[0] not in ("static", "object", "callee"):
            for item in node[1]:
                visit(item)

    for node in key:  # type: ignore[attr-defined]
        visit(node)
    return shapes


def describe_key(key: Hashable) -> str:
    """A readable form of an entry key node, for ``janus.explain``."""
    assert isinstance(key, tuple)
    if key[0] == "array":
        dims = ", ".join("?" if isinstance(d, str) else str(d) for d in key[3])
        return f"{key[1]}[{key[2]}, shape=({dims}{',' if len(key[3]) == 1 else ''})]"
    if key[0] == "static":
        return f"{key[1]}={key[2]!r}"
    if key[0] == "callee":
        return f"{type(key[1]).__name__} {getattr(key[1], '__qualname__', key[1])}"
    if key[0] == "tree":
        return key[1].describe()
    if key[0] == "forest":
        return f"{key[1]} of {len(key[2])} {key[3].describe()}s (one forest)"
    if key[0] == "object":
        return f"list of {key[2]} objects" if key[1] is list else f"{key[1].__name__} object"
    if key[0] == "scalar":
        return f"{key[1]} (any value)"
    if key[0] == "stacked":
        return f"[{describe_key(key[1])}, ...] (any length)"
    inner = ", ".join(describe_key(k) for k in key[1])
    if record_node(key):
        return f"{key[0][1].__name__}({inner})"
    return f"[{inner}]" if key[0] == "list" else f"({inner})"
