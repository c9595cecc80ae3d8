"""The state a loop body carries from one iteration to the next.

A loop in the graph traces its body once. Before that, the symbolic state the body can
reach (a frame's locals, closure cells and value stack, and the containers they hold) is
copied, each graph value at a chosen *path* (``("locals", "h")``, ``("locals", "hs", 0)``)
replaced by a placeholder: a region block argument of the same type. After the body,
the state is compared with what it was, path by path: a graph value that changed is
loop-carried (an ``iter_arg``); any other change of Python state (an int incremented, a
list appended to) is something the graph cannot carry, so ``NotConvertible``. Paths,
not object identity, name graph values: two locals bound to the same ``Tensor`` object
are two independent values once one of them is reassigned in the loop. Containers keep
their identity (aliasing of lists is Python semantics), so each is visited once.
"""

from __future__ import annotations

import copy
from typing import Any, Callable, NamedTuple

import numpy as np

from janus.frontend.trace.branches import Cell, SymFunction, SymIter
from janus.frontend.values import NotConvertible, Tensor

Path = tuple[Any, ...]
#: Python values compared by value (everything else that is not a container: by identity)
_BY_VALUE = (bool, int, float, complex, str, bytes, type(None), np.dtype, slice, range)


class Marker(NamedTuple):
    """Stands for a container in a flattening: what kind, and its size (or keys)."""

    kind: str
    size: Any


def renamed(t: Tensor, name: str) -> Tensor:
    """``t`` as another SSA value of the same type (and the same Tensor subclass)."""
    new = copy.copy(t)
    new.name = name
    return new


class Walker:
    """Visits the containers reachable from a root once each, naming leaves by path.

    ``leaves`` maps each path to its leaf value, or to a ``Marker`` for a container, so that a container that changed size shows as a changed marker. With
    ``replace``, a call also copies the state: containers copied (aliasing kept), graph
    values at the paths ``replace`` returns a value for swapped (``leaves`` then describes
    the copy; ``originals`` keeps what was swapped out).
    """

    def __init__(self, replace: Callable[[Path, Tensor], Tensor | None] | None = None) -> None:
        self.replace = replace
        self.leaves: dict[Path, Any] = {}
        self.originals: dict[Path, Tensor] = {}
        self.memo: dict[int, Any] = {}

    def __call__(self, value: Any, path: Path) -> Any:
        if isinstance(value, Tensor):
            new = self.replace(path, value) if self.replace else None
            if new is not None:
                self.originals[path] = value
            self.leaves[path] = value if new is None else new
            return self.leaves[path]
        if id(value) in self.memo:
            return self.memo[id(value)]
        if type(value) is tuple:
            self.leaves[path] = Marker("tuple", len(value))
            items = tuple(self(v, path + (i,)) for i, v in enumerate(value))
            return value if all(a is b for a, b in zip(items, value)) else items
        if isinstance(value, SymFunction) and value.closure:
            self.leaves[path] = Marker("function", value.code)
            return SymFunction(value.code, value.globals, self(value.defaults, path + ("defaults",)),
                               self(value.closure, path + ("closure",)))
        if isinstance(value, (list, dict, Cell, SymIter)):
            return self.container(value, path)
        self.leaves[path] = value
        return value

    def container(self, value: Any, path: Path) -> Any:
        if isinstance(value, Cell):
            new: Any = Cell()
            self.memo[id(value)] = new
            self.leaves[path] = Marker("cell", 1)
            new.contents = self(value.contents, path + ("contents",))
        elif isinstance(value, SymIter):
            new = value.empty_copy()
            self.memo[id(value)] = new
            self.leaves[path] = Marker("iterator", (len(value.items), value.pos))
            new.items = [self(v, path + (i,)) for i, v in enumerate(value.items)]
        elif isinstance(value, dict):
            new = type(value)()
            self.memo[id(value)] = new
            self.leaves[path] = Marker("dict", tuple(value))
            new.update({k: self(v, path + (k,)) for k, v in value.items()})
        else:
            new = type(value)()
            self.memo[id(value)] = new
            self.leaves[path] = Marker(type(value).__name__, len(value))
            new.extend(self(v, path + (i,)) for i, v in enumerate(value))
        return new


def flatten(root: Any) -> dict[Path, Any]:
    """Path -> leaf (or container marker) of everything reachable from ``root``."""
    walker = Walker()
    walker(root, ())
    return walker.leaves


def describe(path: Path) -> str:
    """A path of a frame state (see ``loops``) as the source names it: ``h``, ``hs[0]``, ``stack[1]``."""
    where, *rest = path
    head = str(where) if where == "stack" or not rest else str(rest.pop(0))
    return head + "".join(f"[{k!r}]" for k in rest)


def same(a: Any, b: Any) -> bool:
    """Whether a non-graph leaf is unchanged (by value for Python scalars, else identity)."""
    if a is b:
        return True
    if type(a) is not type(b):
        return False
    if isinstance(a, _BY_VALUE) or isinstance(a, tuple):
        return bool(a == b)
    if isinstance(a, np.ndarray):
        return a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b, equal_nan=True)
    return False


def changes(before: dict[Path, Any], after: dict[Path, Any], ignore: Callable[[Path], bool]) -> list[Path]:
    """Paths of graph values that differ between two flattenings; NotConvertible for any
    other difference (paths for which ``ignore`` is true are not compared)."""
    changed: list[Path] = []
    for path in sorted(before.keys() | after.keys(), key=lambda p: (len(p), repr(p))):  # containers first
        if ignore(path):
            continue
        if path not in before or path not in after:
            raise NotConvertible(f"the loop body changes the Python structure of {describe(path)}")
        a, b = before[path], after[path]
        if isinstance(a, Tensor) and isinstance(b, Tensor):
            if a is not b:
                if a.type != b.type or type(a) is not type(b):
                    raise NotConvertible(f"{describe(path)} changes type in the loop body ({a.type} -> {b.type})")
                changed.append(path)
        elif isinstance(a, Marker) and not same(a, b):
            raise NotConvertible(f"the loop body changes the {a.kind} {describe(path)} (appends, removals "
                                 "or new keys), which a loop in the graph cannot carry")
        elif not same(a, b):
            raise NotConvertible(
                f"the loop body changes {describe(path)} (a {type(a).__name__}), which a loop in the graph cannot carry"
            )
    return sorted(changed, key=repr)


def promotable(before: dict[Path, Any], after: dict[Path, Any], ignore: Callable[[Path], bool]) -> list[Path]:
    """Paths where a NumPy array the trace made (``h = np.zeros(n)`` before the loop) became
    a graph value of the same dtype and shape, or a Python int or float (``total = 0.0``) a
    0-d graph value of its dtype: carried once made a graph constant."""
    return sorted((path for path, a in before.items() if not ignore(path) and _becomes_graph(a, after.get(path))),
                  key=repr)


#: Python scalars a loop body may turn into 0-d graph values, and their dtypes
_SCALAR_DTYPES = {int: np.dtype(np.int64), float: np.dtype(np.float64)}


def _becomes_graph(a: Any, b: Any) -> bool:
    if not isinstance(b, Tensor):
        return False
    if type(a) is np.ndarray:
        return b.dtype == a.dtype and b.shape == a.shape
    return type(a) in _SCALAR_DTYPES and b.shape == () and b.dtype == _SCALAR_DTYPES[type(a)]


def assign(container: Any, path: Path, value: Any) -> Any:
    """Put ``value`` at ``path`` inside ``container`` in place (tuples are rebuilt); returns
    the container, or its replacement when it was a tuple."""
    key, rest = path[0], path[1:]
    child = _get(container, key)
    new = assign(child, rest, value) if rest else value
    if new is child:
        return container
    if type(container) is tuple:
        return container[:key] + (new,) + container[key + 1:]
    if isinstance(container, Cell):
        container.contents = new
    elif isinstance(container, SymIter):
        container.items[key] = new
    elif isinstance(container, SymFunction):
        raise NotConvertible("a loop changes a value captured by a function defined before it")
    else:
        container[key] = new
    return container


def at(container: Any, path: Path) -> Any:
    """The value at ``path`` inside ``container``."""
    for key in path:
        container = _get(container, key)
    return container


def _get(container: Any, key: Any) -> Any:
    if isinstance(container, Cell):
        return container.contents
    if isinstance(container, SymIter):
        return container.items[key]
    if isinstance(container, SymFunction):
        return getattr(container, key)
    return container[key]
