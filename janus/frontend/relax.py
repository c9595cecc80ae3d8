"""Value relaxation of entry signatures: lists of arrays whose length varies, ints whose
value varies.

JANUS's lattice goes value -> shape -> partial shape -> type. ``signature`` relaxes array
dims (shape -> partial shape); this module takes the value step for the two Python values
that decide trip counts, and for floats (a Python operation's result a later segment takes,
see ``segments``). Positions are ``("list", path)``, ``("int", path)`` and ``("float", path)``, ``path``
being argument and item indices from the call's positional arguments; they live in
``JitFunction.dynamic`` next to the ``(array leaf, dim)`` positions of relaxed dims, so
relaxing, abandoning (``unrelaxable``) and the cache key work the same way for both:

- a relaxed list whose items all have one array signature is stacked at call time
  (``np.stack``) into one graph input ``tensor<?x...>``, a ``SymList`` in the graph (a
  ``for`` over it becomes ``scf.for``); a call whose items cannot be stacked (an empty
  list, mixed shapes) keeps the exact list key for that call only;
- a relaxed int becomes an ``i64`` graph input (a plain int leaf, see ``scalar_abi``),
  a ``Weak`` (``range`` over it becomes ``scf.for``); a relaxed float an ``f64`` one.
"""

from __future__ import annotations

from typing import Any, Callable, Hashable


from janus.frontend.recursion.trees import is_forest
from janus.frontend.trace.scalars import weak
from janus.frontend.signature import is_namedtuple, relaxed_int, stack_items, walk
from janus.frontend.values import NotConvertible, Tensor

Position = tuple[str, tuple[int, ...]]


class SymList:
    """A list argument relaxed to one stacked graph input, or a list a loop in the graph
    appended to (``trace.stacking``); its length is a ``?`` dim. Not a dataclass: the trace
    would take it for a record of the program's (returned, or its field read, as one)."""

    __slots__ = ("stacked",)

    def __init__(self, stacked: Tensor) -> None:
        self.stacked = stacked

    def __len__(self) -> int:
        raise NotConvertible("len() of a list relaxed to a stacked array is not a static int")

    def __getitem__(self, key: Any) -> Any:
        raise NotConvertible("indexing a list relaxed to a stacked array (only `for` and len() are converted)")


def symbolic_argument(value: Any, path: tuple[int, ...], dynamic: frozenset, argument: Callable[[Any], Tensor],
                      on_sequence: Callable[[type, list], Any], on_tree: Callable[[Any], Any]) -> Any:
    """The graph's view of the argument at ``path`` (mirrors ``signature.key_and_leaves``):
    arrays become inputs via ``argument``, relaxed lists ``SymList``s, relaxed ints ``Weak``s,
    trees what ``on_tree`` makes of them."""
    if type(value) is list and ("list", path) in dynamic and stack_items(value) is not None:
        return SymList(argument(stack_items(value)[1]))
    if type(value) is int and ("int", path) in dynamic and relaxed_int(value) or \
            type(value) is float and ("float", path) in dynamic:
        return weak(argument(value))
    if is_forest(value):
        return on_tree(value)
    if type(value) in (list, tuple):
        return on_sequence(type(value), [symbolic_argument(v, path + (i,), dynamic, argument, on_sequence, on_tree)
                                         for i, v in enumerate(value)])
    if is_namedtuple(value):  # a record of the trace (``builtin_calls``) holding the fields' graph values
        return type(value)(*(symbolic_argument(v, path + (i,), dynamic, argument, on_sequence, on_tree)
                             for i, v in enumerate(value)))
    return walk(value, argument, on_tree=on_tree)


def key_diff(a: Hashable, b: Hashable) -> set | None:
    """The positions where two entry keys differ, when they differ only in array sizes
    (``(array leaf, dim)``), list lengths (all items one array signature) and int or float
    values (``("list" | "int" | "float", path)``); otherwise None. Both kinds may differ at
    once (an episode's arrays and its length): array leaves are numbered as in the key
    relaxed at these positions, where a relaxed int or list is one leaf."""
    diffs: set = set()
    leaf = 0

    def visit(x: tuple, y: tuple, path: tuple[int, ...]) -> bool:
        nonlocal leaf
        if x == y:
            leaf += _leaf_count(x)
            return True
        kinds = {x[0], y[0]}
        if x[0] == y[0] == "array":
            if x[1:3] != y[1:3] or len(x[3]) != len(y[3]):
                return False
            diffs.update((leaf, d) for d, (m, n) in enumerate(zip(x[3], y[3])) if m != n)
        elif kinds <= {"static", "scalar"} and x[1] == y[1] and x[1] in ("int", "float"):
            diffs.add((x[1], path))
        elif kinds <= {"list", "stacked"} and all(n[1] for n in (x, y)) and _one_array_item(x, y):
            diffs.add(("list", path))
        elif x[0] != y[0] or x[0] in ("array", "static", "callee", "scalar", "stacked", "tree", "forest", "object") or len(x[1]) != len(y[1]):
            return False
        else:
            return all(visit(p, q, path + (i,)) for i, (p, q) in enumerate(zip(x[1], y[1])))
        leaf += 1  # a relaxed int, float or list is one leaf, as an array is
        return True

    same = len(a) == len(b) and all(visit(x, y, (i,)) for i, (x, y) in enumerate(zip(a, b)))  # type: ignore[arg-type]
    return diffs if same and diffs else None


def _one_array_item(x: tuple, y: tuple) -> bool:
    """Whether two list (or stacked) nodes hold items of one array signature."""
    items = {item for n in (x, y) for item in ((n[1],) if n[0] == "stacked" else n[1])}
    return len(items) == 1 and next(iter(items))[0] == "array"


def _leaf_count(node: tuple) -> int:
    """How many graph leaves a key node has (see ``signature.key_and_leaves``)."""
    if node[0] in ("array", "stacked", "scalar"):
        return 1
    if node[0] in ("tree", "forest"):
        return len(node[-1].columns())
    if node[0] in ("static", "object", "callee"):
        return 0
    return sum(_leaf_count(item) for item in node[1])


def describe_position(position: tuple, names: list[str], leaves: list[str]) -> str:
    """A relaxed position for ``janus.explain``: ``x.shape[0]`` (a dim of an array leaf,
    named by ``leaves``, see ``leaf_labels``), ``len(xs)``, ``n`` (``names``: the parameters)."""
    first, rest = position
    if isinstance(first, str):
        path = rest
        name = names[path[0]] if path[0] < len(names) else str(path[0])
        text = name + "".join(f"[{i}]" for i in path[1:])
        return f"len({text})" if first == "list" else text
    return f"{leaves[first] if first < len(leaves) else f'array {first}'}.shape[{rest}]"


def leaf_labels(key: tuple, names: list[str]) -> list[str]:
    """What each graph leaf of an entry key is, in leaf order (``xs[0]``, ``x``): leaves
    are numbered across all arguments, so a parameter name alone would misname them."""
    labels: list[str] = []

    def visit(node: tuple, label: str) -> None:
        if node[0] in ("array", "stacked", "scalar"):
            labels.append(label)
        elif node[0] in ("tree", "forest"):
            labels.extend(f"{label} (tree column {j})" for j, _ in enumerate(node[-1].columns()))
        elif node[0] in ("list", "tuple"):
            for j, item in enumerate(node[1]):
                visit(item, f"{label}[{j}]")

    for i, node in enumerate(key):
        visit(node, names[i] if i < len(names) else f"arg {i}")
    return labels
