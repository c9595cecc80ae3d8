"""Forking and joining symbolic state, for branches that become ``scf.if``.

A branch whose direction varies is executed twice, each side on its own copy of the
mutable Python state it can reach (lists, dicts, cells, iterators), until the sides meet
again. ``join`` then makes one state: values that agree are kept, graph values that
differ become results of the ``scf.if`` (the caller emits it), and containers that existed
before the fork are updated in place, so references held elsewhere (a caller's list, a
closure cell) see the joined contents. Anything else that differs is ``NotConvertible``.
"""

from __future__ import annotations

import copy

import types
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from janus.frontend.emitter import joined_name
from janus.frontend.trace import either
from janus.frontend.values import NotConvertible, Tensor, Weak


@dataclass
class Cell:
    contents: Any = None


@dataclass
class SymFunction:
    """A function made by ``MAKE_FUNCTION`` during tracing (lambdas, comprehensions)."""

    code: types.CodeType
    globals: dict
    defaults: tuple = ()
    closure: tuple = ()
    kwdefaults: dict = field(default_factory=dict)


class SymIter:
    """The iterator ``GET_ITER`` makes during tracing: items and a position, copyable."""

    def __init__(self, items: list[Any], pos: int = 0) -> None:
        self.items, self.pos = items, pos

    def __iter__(self) -> "SymIter":
        return self

    def empty_copy(self) -> "SymIter":
        """A copy at the same position with no items yet (subclasses keep their state)."""
        new = copy.copy(self)
        new.items = []
        return new

    def __next__(self) -> Any:
        if self.pos >= len(self.items):
            raise StopIteration
        self.pos += 1
        return self.items[self.pos - 1]


MUTABLE = (list, dict, Cell, SymIter)


class Copier:
    """Copies mutable state reachable from some roots, remembering original -> copy."""

    def __init__(self) -> None:
        self.copies: dict[int, Any] = {}
        self.originals: dict[int, Any] = {}

    def __call__(self, v: Any) -> Any:
        if id(v) in self.copies:
            return self.copies[id(v)]
        if isinstance(v, tuple) and type(v) is tuple:
            items = tuple(self(x) for x in v)
            return v if all(a is b for a, b in zip(items, v)) else items
        if isinstance(v, SymFunction) and v.closure:
            return SymFunction(v.code, v.globals, self(v.defaults), self(v.closure))
        if not isinstance(v, MUTABLE):
            return v
        new = _empty_like(v)
        self.copies[id(v)], self.originals[id(v)] = new, v
        _fill(new, v, self)
        return new


def _empty_like(v: Any) -> Any:
    if isinstance(v, SymIter):
        return v.empty_copy()
    return Cell() if isinstance(v, Cell) else type(v)()


def _fill(dst: Any, src: Any, item: Callable[[Any], Any]) -> None:
    """Make mutable ``dst`` hold ``item`` of each thing ``src`` holds."""
    if isinstance(dst, Cell):
        dst.contents = item(src.contents)
    elif isinstance(dst, SymIter):
        dst.items[:] = [item(x) for x in src.items]
    elif isinstance(dst, dict):
        dst.clear()
        dst.update({k: item(x) for k, x in src.items()})
    else:
        dst[:] = [item(x) for x in src]


class Joiner:
    """Joins the two sides' copies; ``results`` lists the graph values that differ."""

    def __init__(self, result_name: str, then_copies: Copier, else_copies: Copier,
                 promote: Callable[[Any, Any], tuple[Any, Any]] | None = None,
                 mix: Callable[[Any, Any, "Joiner"], Any] | None = None) -> None:
        self.name = result_name
        #: makes a Python scalar joined with a graph value of another type an ``either.Either``
        self.mix = mix
        #: makes a Python scalar joined with a ``Weak`` graph value a ``Weak`` of its type
        self.promote = promote
        self.results: list[tuple[Tensor, Tensor]] = []
        #: (then value, else value, joined value) per result; a pair met twice is joined once
        self.joined: list[tuple[Tensor, Tensor, Tensor]] = []
        self.memo: dict[tuple[int, int], Any] = {}
        self.keep_alive = (then_copies, else_copies)
        for key, original in then_copies.originals.items():
            a, b = then_copies.copies[key], else_copies.copies.get(key)
            if b is not None:
                self.memo[(id(a), id(b))] = original
        for key, original in then_copies.originals.items():
            if key in else_copies.copies:
                self.update(original, then_copies.copies[key], else_copies.copies[key])

    def update(self, original: Any, a: Any, b: Any) -> None:
        """Write the join of ``a`` and ``b`` (copies of ``original``) into ``original``."""
        if isinstance(original, SymIter):
            if a.pos != b.pos:
                raise NotConvertible("an iterator advanced differently on the two sides of a branch")
            original.pos = a.pos
        pairs = self.pairs(a, b)
        _fill(original, pairs, lambda ab: self(*ab))

    def pairs(self, a: Any, b: Any) -> Any:
        """``a`` with each held item paired with the matching one of ``b``."""
        if isinstance(a, Cell):
            return Cell((a.contents, b.contents))
        if isinstance(a, SymIter):
            return SymIter(list(zip(a.items, b.items)), a.pos) if len(a.items) == len(b.items) else _differ(a, b)
        if isinstance(a, dict):
            return {k: (a[k], b[k]) for k in a} if a.keys() == b.keys() else _differ(a, b)
        return list(zip(a, b)) if len(a) == len(b) else _differ(a, b)

    def __call__(self, a: Any, b: Any) -> Any:
        if a is b:
            return a
        if (id(a), id(b)) in self.memo:
            return self.memo[(id(a), id(b))]
        if isinstance(a, Tensor) and isinstance(b, Tensor):
            if a.type != b.type or a.shape != b.shape:
                _differ(a, b)
            if type(a) is not type(b):  # a Python scalar on one side only: NumPy would promote differently
                _differ(a, b)
            self.results.append((a, b))
            joined = type(a)(joined_name(self.name, len(self.results) - 1, a.shape), a.shape, a.dtype)
            self.memo[(id(a), id(b))] = joined
            self.joined.append((a, b, joined))
            return joined
        if self.mix is not None and either.mixes(a, b):
            return self.mix(a, b, self)
        one_sided = isinstance(a, Weak) != isinstance(b, Weak) or isinstance(a, Tensor) != isinstance(b, Tensor)
        two_scalars = type(a) is type(b) and type(a) in (bool, int, float) and not a == b  # a Python scalar either way
        if self.promote is not None and (one_sided or two_scalars):
            return self(*self.promote(a, b))
        if isinstance(a, SymFunction) and isinstance(b, SymFunction) and a.code is b.code:
            return SymFunction(a.code, a.globals, self(a.defaults, b.defaults), self(a.closure, b.closure))
        if type(a) is not type(b) or isinstance(a, Tensor) or isinstance(b, Tensor):
            return _differ(a, b)
        if isinstance(a, MUTABLE):
            new = _empty_like(a)
            self.memo[(id(a), id(b))] = new
            _fill(new, self.pairs(a, b), lambda ab: self(*ab))
            return new
        if type(a) is tuple:
            return tuple(self(x, y) for x, y in zip(a, b)) if len(a) == len(b) else _differ(a, b)
        if isinstance(a, (np.ndarray, np.generic)):
            same = a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b, equal_nan=True)
            return a if same else _differ(a, b)
        if isinstance(a, (bool, int, float, str, np.dtype)) and a == b:
            return a
        return _differ(a, b)


def _differ(a: Any, b: Any) -> Any:
    raise NotConvertible(
        f"a value differs between the two sides of a branch in a way the graph cannot hold "
        f"({_describe(a)} vs {_describe(b)})"
    )


def _describe(v: Any) -> str:
    return v.type if isinstance(v, Tensor) else type(v).__name__
