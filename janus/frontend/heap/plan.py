"""The heap side of one compiled call: what to check before it, Python identities after it.

Before the call every location the graph touched is resolved under ``heap.rules`` and
checked against its ``Spec``, its inlined methods and in-place updates too: the version's
entry guards (``guards``) run these checks from ``checks``, ``methods`` and ``mutated``
(a mismatch is a ``HeapMiss``: the call runs imperatively), so a version never computes
with a stale type, dtype, shape, value or method.

The runtime commits the graph's writes as fresh arrays. Python would often have stored
an existing object instead, which a caller can observe with ``is`` or by mutating it, so
after the commit each written location is set to the object Python would hold there:

- a value the call only passed along (an array argument, or an array read from the heap)
  is that very object;
- an array updated in place (``params["W"] -= g``) is the original array, its contents
  overwritten (nothing else the call reads may share its memory: checked before);
- a 0-d result becomes a NumPy scalar, as NumPy returns from operations; a Python int,
  float or bool the traced code computed (``self.t += 1``) becomes that Python type.

A returned value that is also the final value of a written location is the object now
stored there (``self.state = h; return h`` gives ``result is self.state`` as in Python),
and a returned heap value is the heap's own object. These steps cannot fail once the
checks passed, so the commit stays all or nothing.
"""

from __future__ import annotations

import functools
import types
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from janus.frontend.heap import structures as heap_struct
from janus.frontend.heap.rules import Spec
from janus.heap import AccessPath

if TYPE_CHECKING:  # the runtime (IREE) loads when a version compiles, not with the frontend
    from janus.runtime.values import Traffic


@dataclass(frozen=True)
class HeapPlan:
    """What a compiled version assumes about the heap and how its writes become Python's."""

    sources: tuple[tuple[str, Any], ...]  # per slot: ("arg", positional index) | ("fixed", object)
    checks: tuple[tuple[AccessPath, Spec], ...]  # parents before children
    methods: tuple[tuple[AccessPath, str, types.FunctionType], ...]
    writes: tuple[tuple[AccessPath, str], ...]  # location, name of the tensor it finally holds
    owners: dict[str, AccessPath]  # tensor -> location whose entry array it is, or updates in place
    arguments: dict[str, int]  # graph argument tensor -> its leaf index
    mutated: tuple[AccessPath, ...]
    outputs: tuple[str, ...]  # result index -> tensor
    labels: dict[AccessPath, str]
    structures: tuple[tuple[AccessPath, heap_struct.Layout], ...] = ()  # tuples/lists written, built here
    #: (list, result index, Python type or None, constant): a value appended to the list the
    #: location held on entry: a result (as that Python type), or without an index, the constant
    appends: tuple[tuple[AccessPath, int | None, type | None, Any], ...] = ()
    scalars: tuple[tuple[AccessPath, type], ...] = ()  # Python ints/floats/bools written (``Weak``): their type
    #: (path, first path): a second path to an object or array the trace reached first by another; the
    #: graph uses one location for both, so each call checks they still hold one object
    aliases: tuple[tuple[AccessPath, AccessPath], ...] = ()
    #: (leaf, tensor): an argument array updated in place by the traced code (``p -= lr * g``) and the
    #: result holding its new value, copied into the caller's array after the commit
    argument_writes: tuple[tuple[int, str], ...] = ()
    #: written tensors of rank 1 or more that no location or argument owns: fresh arrays, which the
    #: runtime's commit already stored as Python would (``finish`` passes over their locations)
    fresh: frozenset[str] = frozenset()

    def objects(self, positional: Sequence[Any]) -> list[Any]:
        """The object table of a call: the slots' objects, from its arguments or fixed."""
        return [positional[ref] if kind == "arg" else ref for kind, ref in self.sources]

    def finish(self, objects: list[Any], entry: dict, leaves: Sequence[np.ndarray], results: list[Any],
               traffic: Traffic | None = None) -> list[Any]:
        """After the runtime's commit: Python's identities (see the module doc); the results
        with returned heap values replaced by the heap's objects. The in-place updates are
        copies, counted in ``traffic``."""
        if self.inert:
            return results
        for leaf, name in self.argument_writes:
            np.copyto(leaves[leaf], results[self.outputs.index(name)])
            if traffic is not None:
                traffic.copied += leaves[leaf].nbytes
        for path in self.mutated:
            original = entry[path]
            np.copyto(original, path.read(objects))
            if traffic is not None:
                traffic.copied += original.nbytes
        python_types = self._python_types
        for path, name in self._settled_writes:
            value = self._original(name, entry, leaves)
            if value is None:
                value = path.read(objects)  # an array, or a Python int or float passed as a VM scalar
                if isinstance(value, np.ndarray):
                    if value.ndim:
                        continue
                    value = value[()]
                if path in python_types:  # a Python scalar of the traced code (``self.t += 1``)
                    value = python_types[path](value)
            _store(path.location(objects), value)
        finals = self._finals
        built: dict[str, Any] = {}  # tensor -> the object a structure holds for it

        def leaf(index: int) -> Any:
            name = self.outputs[index]
            if name not in built:
                value = self._original(name, entry, leaves)
                if value is None:
                    value = finals[name].read(objects) if name in finals else results[index]
                    value = value[()] if type(value) is np.ndarray and not value.ndim else value
                built[name] = value
            return built[name]

        for path, layout in self.structures:
            _store(path.location(objects), heap_struct.build(layout, leaf))
        for path, index, python, constant in self.appends:
            value = constant if index is None else leaf(index)
            entry[path].append(value if python is None else python(value))
        out = list(results)
        for i, name in enumerate(self.outputs):
            if name in finals:
                out[i] = finals[name].read(objects)
            elif name in self.owners:
                out[i] = entry[self.owners[name]]
            elif name in built:
                out[i] = built[name]
        return out

    @functools.cached_property
    def stores_only(self) -> bool:
        """The commit is one store per written attribute, of the runtime's result (a Python
        scalar of the traced code, ``scalars``, converted to its type): no in-place updates
        or structures; no written value that is an entry array or an argument; no result
        that is a written or entry array. A version's fused call commits such writes itself."""
        finals = {name for _, name in self.writes}
        return (bool(self.writes) and not (self.mutated or self.structures or self.appends or self.argument_writes)
                and all(path.steps and path.steps[-1][0] == "attr" for path, _ in self.writes)
                and not finals & (self.owners.keys() | self.arguments.keys())
                and not any(name in finals or name in self.owners for name in self.outputs))

    @functools.cached_property
    def inert(self) -> bool:
        """``finish`` has nothing to do: no writes, in-place updates or structures, and no
        result that is an entry array (the common case of a call that only reads the heap)."""
        return not (self.mutated or self.writes or self.structures or self.appends or self.argument_writes
                    or any(name in self.owners for name in self.outputs))

    @functools.cached_property
    def _settled_writes(self) -> tuple[tuple[AccessPath, str], ...]:
        """The writes ``finish`` sets to Python's object: all but the fresh arrays."""
        return tuple((path, name) for path, name in self.writes if name not in self.fresh)

    @functools.cached_property
    def _python_types(self) -> dict[AccessPath, type]:
        return dict(self.scalars)

    @functools.cached_property
    def _finals(self) -> dict[str, AccessPath]:
        """Tensor -> the location whose final value it is."""
        return {name: path for path, name in self.writes}

    def _original(self, name: str, entry: dict, leaves: Sequence[np.ndarray]) -> Any:
        if name in self.owners:
            return entry[self.owners[name]]
        index = self.arguments.get(name)
        return leaves[index] if index is not None and np.ndim(leaves[index]) else None


def _store(location: tuple[Any, str, Any], value: Any) -> None:
    container, kind, key = location
    if kind == "attr":
        setattr(container, key, value)
    else:
        container[key] = value
