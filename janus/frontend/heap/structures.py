"""Tuples, lists and dicts of graph arrays written to the heap (``self.state = (h, c)``,
``self.cache = {"X": X, "Z": Z}``).

A recurrent model keeps its state as a tuple; a layer keeps its forward values in a dict. The heap manifest commits one array per
location, and a tuple is no location: Python builds a *new* tuple at every such write.
So a structured write is not a ``janus.set_*`` op: its leaves become extra results of the
compiled function (the ``Layout`` records which), and ``HeapPlan.finish`` builds the new
tuple or list from them after the runtime's commit succeeded, so it is still all or
nothing. The next call reads it back like any tuple on the heap (exact type and length,
each item's dtype and shape checked per call).

Leaves follow ``heap_plan``'s identity rules: a leaf only passed along is that very
object, a leaf also written to a plain location or returned is the same object there,
a 0-d leaf becomes a NumPy scalar.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from janus.frontend.values import NotConvertible, Tensor, tensor_type

#: a written structure: (tuple | list, children) or (dict, ((key, child), ...)), a leaf is the
#: index of a function result
Layout = tuple[type, tuple[Any, ...]]

#: the containers a structure is made of; a dict's keys are plain Python constants
CONTAINERS = (tuple, list, dict)
KEY_TYPES = (str, int)


def items(value: tuple | list | dict) -> list[Any]:
    """The values a container holds, in order."""
    return list(value.values()) if type(value) is dict else list(value)


def check(value: Any, label: str, made: Callable[[Any], bool] = lambda v: False) -> None:
    """Refuse anything but (nested) exact tuples, lists and dicts (with str or int keys) of
    graph arrays, or of arrays the trace ``made`` (``np.zeros`` filled by the traced code:
    constants of the graph, taken as they are at the end of the trace)."""
    if isinstance(value, Tensor) or type(value) is np.ndarray and made(value):
        return
    if type(value) not in CONTAINERS:
        raise NotConvertible(
            f"writing a {type(value).__name__} inside a {label} structure: only arrays computed by the graph "
            "(in tuples, lists or dicts) are stored on the heap"
        )
    if type(value) is dict and any(type(k) not in KEY_TYPES for k in value):
        raise NotConvertible(f"writing a dict to {label} whose keys are not all str or int")
    for item in items(value):
        check(item, label, made)


def containers(value: Any) -> list[Any]:
    """The mutable containers (lists, dicts) of a written structure, nested ones included:
    Python holds those very objects, the commit builds new ones."""
    if type(value) not in CONTAINERS:
        return []
    own = [value] if type(value) is not tuple else []
    return own + [c for item in items(value) for c in containers(item)]


def type_text(value: Any) -> str:
    """A location's type for the one-type-per-location rule: ``tuple(tensor<..>, ..)``."""
    if isinstance(value, Tensor):
        return value.type
    if type(value) is np.ndarray:
        return tensor_type(value.shape, value.dtype)
    if type(value) is dict:
        return f"dict({', '.join(f'{k!r}: {type_text(v)}' for k, v in value.items())})"
    return f"{type(value).__name__}({', '.join(type_text(v) for v in value)})"


def layout(value: Any, output: Callable[[Tensor], int], label: str, made: Callable[[Any], Tensor | None]) -> Layout | int:
    """Make the leaves of ``value`` function results, as they are at the end of the trace
    (a list written and then changed by the traced code holds its final items); ``made``
    gives the graph constant of an array the trace made (None for any other array)."""
    constant = made(value) if type(value) is np.ndarray else None
    if constant is not None:
        return output(constant)
    if type(value) is dict:
        return dict, tuple((k, layout(v, output, label, made)) for k, v in value.items())
    if type(value) in (tuple, list):
        return type(value), tuple(layout(v, output, label, made) for v in value)
    check(value, label)
    return output(value)


def build(shape: Layout | int, leaf: Callable[[int], Any]) -> Any:
    """The Python value of a layout; ``leaf(index)`` gives the object for one result."""
    if isinstance(shape, int):
        return leaf(shape)
    kind, children = shape
    if kind is dict:
        return {k: build(c, leaf) for k, c in children}
    return kind(build(c, leaf) for c in children)
