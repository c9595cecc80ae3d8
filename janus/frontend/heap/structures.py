"""Tuples and lists of graph arrays written to the heap (``self.state = (h, c)``).

A recurrent model keeps its state as a tuple. The heap manifest commits one array per
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

from janus.frontend.values import NotConvertible, Tensor

#: a written structure: (tuple | list, children), a leaf is the index of a function result
Layout = tuple[type, tuple["Layout | int", ...]]


def check(value: Any, label: str) -> None:
    """Refuse anything but (nested) exact tuples and lists of graph arrays."""
    if isinstance(value, Tensor):
        return
    if type(value) not in (tuple, list):
        raise NotConvertible(
            f"writing a {type(value).__name__} inside a {label} structure: only arrays computed by the graph "
            "(in tuples or lists) are stored on the heap"
        )
    for item in value:
        check(item, label)


def type_text(value: Any) -> str:
    """A location's type for the one-type-per-location rule: ``tuple(tensor<..>, ..)``."""
    if isinstance(value, Tensor):
        return value.type
    return f"{type(value).__name__}({', '.join(type_text(v) for v in value)})"


def layout(value: Any, output: Callable[[Tensor], int], label: str) -> Layout | int:
    """Make the leaves of ``value`` function results, as they are at the end of the trace
    (a list written and then changed by the traced code holds its final items)."""
    check(value, label)
    if isinstance(value, Tensor):
        return output(value)
    return type(value), tuple(layout(v, output, label) for v in value)


def build(shape: Layout | int, leaf: Callable[[int], Any]) -> Any:
    """The Python value of a layout; ``leaf(index)`` gives the object for one result."""
    if isinstance(shape, int):
        return leaf(shape)
    kind, children = shape
    return kind(build(c, leaf) for c in children)
