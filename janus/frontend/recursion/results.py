"""Structured results of generated recursive functions: tuples (nested) of arrays, scalars
and ``None``, flattened into the function's MLIR results.

The structure is merged from the profiler's return summaries (``profiler.summarize``).
A position whose summaries disagree (a hand-written tape: ``None`` at leaves, a tuple at
inner nodes) has no one type. Rule: it is not a result; the generated function computes
its value and drops it, and every ``janus.invoke`` gives ``UNAVAILABLE`` there, which
raises NotConvertible on any use. So a trace that completes never depended on it (an
inference that indexes only ``encode(t)[0]``), and one that uses it falls back with the
reason, instead of depending on a value silently dropped.
"""

from __future__ import annotations

from typing import Any, Callable, Iterator

from janus.frontend.trace.scalars import PYTHON_DTYPES
from janus.frontend.values import ELEMENT_TYPES, NotConvertible, Tensor

# Result kinds: the leaf kinds of ``recursion`` (("scalar", ...) | ("tensor", ...) | ("static", None))
#               | ("tuple", (kinds...)) | ("varying", description)
Kind = tuple


class Unavailable:
    """A varying result position at a call site: any use is NotConvertible."""

    def _refuse(self, *args: Any, **kwargs: Any) -> Any:
        raise NotConvertible("a recursive function's result whose structure varies between calls (e.g. None at "
                             "some and a tuple at others) is used; only results of one kind are returned")

    __getattr__ = __getitem__ = __iter__ = __len__ = __bool__ = __int__ = __float__ = __index__ = _refuse
    __eq__ = __ne__ = __lt__ = __le__ = __gt__ = __ge__ = __add__ = __radd__ = __mul__ = __rmul__ = _refuse
    __array__ = __abs__ = __neg__ = __contains__ = __reversed__ = __call__ = __setattr__ = _refuse
    __hash__ = None  # type: ignore[assignment]


UNAVAILABLE = Unavailable()


def check_usable(*values: Any) -> None:
    """For what Python answers without asking the object (``is``, ``is None`` jumps,
    ``isinstance``, ``type``)."""
    if any(v is UNAVAILABLE for v in values):
        UNAVAILABLE._refuse()


def merge(summaries: list[tuple]) -> Kind:
    """The result kind of a generated function from its code's return summaries."""
    kind = structure(summaries)
    if kind[0] == "varying":
        raise NotConvertible(f"the profile saw {len(set(summaries))} kinds of return values (a recursive function needs one)")
    return kind


def structure(summaries: list[tuple]) -> Kind:
    """The merged kind, ``("varying", ...)`` where the summaries disagree (at the top too)."""
    first = summaries[0]
    if first[0] == "tuple" and all(s[0] == "tuple" and len(s[1]) == len(first[1]) for s in summaries):
        return ("tuple", tuple(structure([s[1][i] for s in summaries]) for i in range(len(first[1]))))
    if len(set(summaries)) > 1:
        return ("varying", " / ".join(sorted({s[0] for s in summaries})))
    return _leaf(first)


def _leaf(summary: tuple) -> Kind:
    python = {t.__name__: dtype for t, dtype in PYTHON_DTYPES.items()}
    if summary == ("NoneType",):
        return ("static", None)
    if len(summary) == 1 and summary[0] in python:
        return ("scalar", python[summary[0]].name, True)
    if len(summary) == 3 and summary[1] in ELEMENT_TYPES:
        if summary[0] == "ndarray" and summary[2]:
            return ("tensor", summary[1], summary[2])
        if summary[0] != "ndarray" and not summary[2]:
            return ("scalar", summary[1], False)
    raise NotConvertible(f"a recursive function returning {summary[0]} is not supported")


def drop_varying(value: Any, kind: Kind) -> Any:
    """``value`` with the varying positions of ``kind`` made ``UNAVAILABLE``: the return of
    an inlined (outermost) call of a recursive function, so its branches join as the
    generated function's do."""
    if kind[0] == "tuple" and type(value) is tuple and len(value) == len(kind[1]):
        return tuple(UNAVAILABLE if k[0] == "varying" else drop_varying(v, k) for v, k in zip(value, kind[1]))
    return value


def leaves(kind: Kind) -> list[Kind]:
    """The kinds of the MLIR results, in order."""
    if kind[0] == "tuple":
        return [leaf for item in kind[1] for leaf in leaves(item)]
    return [kind] if kind[0] in ("scalar", "tensor") else []


def coerce(value: Any, kind: Kind, leaf: Callable[[Any, Kind], Tensor]) -> Any:
    """``value`` in the shape of ``kind``: leaves made values of their kind by ``leaf``,
    varying positions ``UNAVAILABLE`` (so both sides of a branch join)."""
    if kind[0] == "tuple":
        if type(value) is not tuple or len(value) != len(kind[1]):
            raise NotConvertible(f"a recursive function returned a {type(value).__name__} where the profile saw a "
                                 f"tuple of {len(kind[1])}")
        return tuple(coerce(v, k, leaf) for v, k in zip(value, kind[1]))
    if kind[0] == "varying":
        return UNAVAILABLE
    if kind[0] == "static":
        if value is not kind[1]:
            raise NotConvertible(f"a recursive function returned a {type(value).__name__} where the profile saw None")
        return value
    return leaf(value, kind)


def flatten(value: Any, kind: Kind) -> list[Tensor]:
    """The result values of a ``coerce``d value, in ``leaves`` order."""
    if kind[0] == "tuple":
        return [t for v, k in zip(value, kind[1]) for t in flatten(v, k)]
    return [value] if kind[0] in ("scalar", "tensor") else []


def rebuild(kind: Kind, results: Iterator[Any]) -> Any:
    """The Python value a call site sees, taking leaf values from ``results`` in order."""
    if kind[0] == "tuple":
        return tuple(rebuild(k, results) for k in kind[1])
    if kind[0] == "varying":
        return UNAVAILABLE
    if kind[0] == "static":
        return kind[1]
    return next(results)
