"""Entry signatures: what a compiled version assumes about its arguments.

Arrays and NumPy scalars are specialized on type, dtype and shape (they become graph
arguments); Python scalars, ``None`` and strings on their value (they are constants of
the graph: trip counts, indices and shapes are derived from them); lists and tuples on
their length and the signatures of their items. The same walk gives the key for the
graph cache and the arrays to pass, in order, to the compiled function.
"""

from __future__ import annotations

from typing import Any, Callable, Hashable

import numpy as np

from janus.frontend.values import ELEMENT_TYPES, NotConvertible

STATIC_TYPES = (bool, int, float, str, type(None))


def walk(
    value: Any,
    on_array: Callable[[Any], Any],
    on_static: Callable[[Any], Any] = lambda v: v,
    on_sequence: Callable[[type, list], Any] = lambda typ, items: typ(items),
) -> Any:
    """Rebuild ``value`` with arrays, static leaves and lists/tuples mapped.

    Raises ``NotConvertible`` for anything else.
    """
    if type(value) is np.ndarray or isinstance(value, np.generic):
        if value.dtype.name not in ELEMENT_TYPES:
            raise NotConvertible(f"argument dtype {value.dtype} is not supported")
        return on_array(value)
    if type(value) in STATIC_TYPES:
        return on_static(value)
    if type(value) in (list, tuple):
        return on_sequence(type(value), [walk(v, on_array, on_static, on_sequence) for v in value])
    raise NotConvertible(f"argument of type {type(value).__name__} is not supported")


def entry_key(args: tuple) -> Hashable:
    """The cache key of a call; NotConvertible when an argument cannot be specialized.

    Nodes: ``("array", type, dtype, shape)``, ``("static", type, value)``,
    ``("list" | "tuple", items)``.
    """

    return tuple(
        walk(
            a,
            lambda x: ("array", type(x).__name__, x.dtype.name, x.shape),
            lambda v: ("static", type(v).__name__, v),
            lambda typ, items: (typ.__name__, tuple(items)),
        )
        for a in args
    )


def array_leaves(args: tuple) -> list[np.ndarray]:
    """The arrays of ``args`` in graph-argument order."""
    leaves: list[np.ndarray] = []
    walk(args, lambda a: leaves.append(np.asarray(a)))
    return leaves


def describe_key(key: Hashable) -> str:
    """A readable form of an entry key node, for ``janus.explain``."""
    assert isinstance(key, tuple)
    if key[0] == "array":
        return f"{key[1]}[{key[2]}, shape={key[3]}]"
    if key[0] == "static":
        return f"{key[1]}={key[2]!r}"
    inner = ", ".join(describe_key(k) for k in key[1])
    return f"[{inner}]" if key[0] == "list" else f"({inner})"
