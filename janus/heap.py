"""The heap manifest: which Python heap locations a compiled function reads and writes.

``janus-externalize-heap`` turns every heap access into an extra argument (a read) or an
extra result (a write) of each public function and records, for each appended value, the
*access path* of its location: a slot of the object table the caller passes, then
attribute / item steps. This module is that contract, in one place: the MLIR attribute
form (written by the pass, read by ``HeapManifest.from_function``), a JSON form stored
beside a ``.vmfb``, and the Python side of a call — read the inputs before it, commit the
outputs after it, all or nothing, so a failed run leaves the Python heap untouched.
"""

from __future__ import annotations

import functools
import operator

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from janus.ir import ir

#: Discardable attributes of a public ``func.func`` holding its manifest.
READS_ATTR = "janus.heap_reads"
WRITES_ATTR = "janus.heap_writes"
OBJECTS_ATTR = "janus.heap_objects"

STEP_KINDS = ("attr", "item")

Key = str | int
Step = tuple[str, Key]


class HeapError(Exception):
    """A heap location of the manifest cannot be read or written; fall back to Python."""


class HeapAliasError(HeapError):
    """Two paths the compiled code took as distinct name one location, one of them written."""


def _i64(value: int) -> ir.IntegerAttr:
    return ir.IntegerAttr.get(ir.IntegerType.get_signless(64), value)


def _key_attr(key: Key) -> ir.Attribute:
    return ir.StringAttr.get(key) if isinstance(key, str) else _i64(key)


@dataclass(frozen=True)
class ObjectSlot:
    """One entry of the object table: where the caller takes the object from."""

    slot: int
    origin: str
    name: str

    def to_json(self) -> dict[str, Any]:
        return {"slot": self.slot, "origin": self.origin, "name": self.name}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "ObjectSlot":
        return cls(int(data["slot"]), str(data["origin"]), str(data["name"]))

    def to_attr(self) -> ir.DictAttr:
        return ir.DictAttr.get(
            {
                "slot": _i64(self.slot),
                "origin": ir.StringAttr.get(self.origin),
                "name": ir.StringAttr.get(self.name),
            }
        )

    @classmethod
    def from_attr(cls, attr: ir.DictAttr) -> "ObjectSlot":
        return cls(attr["slot"].value, attr["origin"].value, attr["name"].value)


@dataclass(frozen=True)
class AccessPath:
    """A heap location: object-table slot, then ``("attr", name)`` / ``("item", key)`` steps.

    A path without steps names an object of the table itself, never a storage location.
    """

    slot: int
    steps: tuple[Step, ...] = ()

    def __post_init__(self) -> None:
        for kind, key in self.steps:
            if kind not in STEP_KINDS:
                raise ValueError(f"step kind must be one of {STEP_KINDS}, got {kind!r}")
            allowed = str if kind == "attr" else (str, int)
            if isinstance(key, bool) or not isinstance(key, allowed):
                raise ValueError(f"bad {kind} key {key!r}")
        object.__setattr__(self, "_hash", hash((self.slot, self.steps)))

    def __hash__(self) -> int:  # cached: entry checks key a dict by paths on every call
        return self._hash  # type: ignore[attr-defined]

    def child(self, kind: str, key: Key) -> "AccessPath":
        return AccessPath(self.slot, self.steps + ((kind, key),))

    @functools.cached_property
    def parent(self) -> "AccessPath":  # cached: commits and checks ask on every call
        return AccessPath(self.slot, self.steps[:-1])

    def describe(self) -> str:
        """``slot0.state``, ``slot1['W']``, ``slot0.cache[3]``."""
        text = f"slot{self.slot}"
        for kind, key in self.steps:
            text += f".{key}" if kind == "attr" else f"[{key!r}]"
        return text

    def read(self, objects: Sequence[object]) -> Any:
        """The value at this path (``HeapError`` naming the path when a step fails)."""
        if not 0 <= self.slot < len(objects):
            raise HeapError(
                f"cannot resolve {self.describe()}: object slot {self.slot} is missing (the table has {len(objects)})"
            )
        value = objects[self.slot]
        for i, (kind, key) in enumerate(self.steps):
            try:
                value = getattr(value, key) if kind == "attr" else value[key]
            except (AttributeError, KeyError, IndexError, TypeError) as e:
                where = AccessPath(self.slot, self.steps[:i]).describe()
                what = f"attribute {key!r}" if kind == "attr" else f"item {key!r}"
                message = f"cannot resolve {self.describe()}: {where} has no {what} ({type(e).__name__})"
                raise HeapError(message) from None
        return value

    def location(self, objects: Sequence[object]) -> tuple[object, str, Key]:
        """(container, kind, key) of the last step; the container must exist."""
        if not self.steps:
            raise HeapError(f"{self.describe()} names an object, not a storage location")
        kind, key = self.steps[-1]
        return self.parent.read(objects), kind, key

    def to_json(self) -> dict[str, Any]:
        return {"slot": self.slot, "path": [list(step) for step in self.steps]}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "AccessPath":
        return cls(int(data["slot"]), tuple((str(kind), key) for kind, key in data["path"]))

    def to_attr(self) -> ir.DictAttr:
        """``{slot = 0 : i64, path = [["attr", "state"], ["item", 3 : i64]]}``."""
        steps = [ir.ArrayAttr.get([ir.StringAttr.get(kind), _key_attr(key)]) for kind, key in self.steps]
        return ir.DictAttr.get({"slot": _i64(self.slot), "path": ir.ArrayAttr.get(steps)})

    @classmethod
    def from_attr(cls, attr: ir.DictAttr) -> "AccessPath":
        return cls(attr["slot"].value, tuple((step[0].value, step[1].value) for step in attr["path"]))


def _storage_key(container: object, kind: str, key: Key) -> tuple[int, str, Key]:
    """Identity of one storage location; negative sequence indices are normalized."""
    if kind == "item" and isinstance(key, int) and isinstance(container, Sequence) and len(container):
        key %= len(container)
    return id(container), kind, key


def _check_assignable(path: AccessPath, container: object, kind: str, key: Key) -> None:
    if kind == "attr":
        return
    if not hasattr(type(container), "__setitem__"):
        kind_name = type(container).__name__
        raise HeapError(f"cannot write {path.describe()}: {kind_name} does not support item assignment")
    if isinstance(container, Sequence) and not (isinstance(key, int) and -len(container) <= key < len(container)):
        raise HeapError(f"cannot write {path.describe()}: index {key!r} is out of range")


@dataclass(frozen=True)
class HeapManifest:
    """What one compiled function reads (appended arguments) and writes (appended results)."""

    reads: tuple[AccessPath, ...] = ()
    writes: tuple[AccessPath, ...] = ()
    objects: tuple[ObjectSlot, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.reads or self.writes)

    # -- formats -------------------------------------------------------------------------

    @classmethod
    def from_function(cls, func_op: ir.Operation | ir.OpView) -> "HeapManifest":
        """The manifest stored on ``func_op``; empty when it has none."""
        attrs = getattr(func_op, "operation", func_op).attributes

        def entries(name: str) -> list[ir.DictAttr]:
            return list(attrs[name]) if name in attrs else []

        return cls(
            tuple(AccessPath.from_attr(a) for a in entries(READS_ATTR)),
            tuple(AccessPath.from_attr(a) for a in entries(WRITES_ATTR)),
            tuple(ObjectSlot.from_attr(a) for a in entries(OBJECTS_ATTR)),
        )

    def to_attributes(self) -> dict[str, ir.ArrayAttr]:
        """The function attributes that store this manifest (needs a current context)."""
        return {
            READS_ATTR: ir.ArrayAttr.get([p.to_attr() for p in self.reads]),
            WRITES_ATTR: ir.ArrayAttr.get([p.to_attr() for p in self.writes]),
            OBJECTS_ATTR: ir.ArrayAttr.get([o.to_attr() for o in self.objects]),
        }

    def to_json(self) -> dict[str, Any]:
        return {
            "reads": [p.to_json() for p in self.reads],
            "writes": [p.to_json() for p in self.writes],
            "objects": [o.to_json() for o in self.objects],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "HeapManifest":
        return cls(
            tuple(AccessPath.from_json(p) for p in data.get("reads", ())),
            tuple(AccessPath.from_json(p) for p in data.get("writes", ())),
            tuple(ObjectSlot.from_json(o) for o in data.get("objects", ())),
        )

    # -- a call --------------------------------------------------------------------------

    def check_aliasing(self, objects: Sequence[object]) -> None:
        """Raise ``HeapAliasError`` when a written path shares its location with another path.

        Two read-only paths naming one location are harmless (both arguments get the same
        value); a written one is not, since the compiled code neither forwarded the write
        to the other path nor ordered the two writes.
        """
        if not self.writes:  # reads alone never conflict
            return
        containers = self._attribute_containers
        if containers is not None and len({id(parent.read(objects)) for parent in containers}) == len(containers):
            return  # attributes of distinct objects: distinct paths are distinct locations
        seen: dict[tuple[int, str, Key], AccessPath] = {}
        written = set(self.writes)
        for path in dict.fromkeys(self.writes + self.reads):
            where = _storage_key(*path.location(objects))
            other = seen.setdefault(where, path)
            if other != path and (path in written or other in written):
                raise HeapAliasError(
                    f"{other.describe()} and {path.describe()} are the same location; "
                    "the compiled code assumed they were distinct"
                )

    @functools.cached_property
    def _attribute_containers(self) -> tuple[AccessPath, ...] | None:
        """The paths of the objects whose attributes the paths name, when every path names
        an attribute (None: an item or object path, whose location needs the full check)."""
        paths = self.writes + self.reads
        if not all(path.steps and path.steps[-1][0] == "attr" for path in paths):
            return None
        return tuple(dict.fromkeys(path.parent for path in paths))

    def read_inputs(self, objects: Sequence[object]) -> list[Any]:
        """Values for the appended arguments, in order (after checking aliasing)."""
        self.check_aliasing(objects)
        readers = self._attribute_readers
        if readers is not None:
            try:
                return [read(objects[slot]) for slot, read in readers]
            except (AttributeError, KeyError, IndexError, TypeError):  # the paths' own reads say where
                pass
        return [path.read(objects) for path in self.reads]

    @functools.cached_property
    def _attribute_readers(self) -> tuple[tuple[int, operator.attrgetter], ...] | None:
        """Per read path, its slot and an ``attrgetter`` of its steps, when every step of
        every read path is an attribute (None: ``AccessPath.read`` reads them)."""
        if not all(path.steps and all(kind == "attr" for kind, _ in path.steps) for path in self.reads):
            return None
        return tuple((path.slot, operator.attrgetter(".".join(key for _, key in path.steps))) for path in self.reads)

    def commit(self, objects: Sequence[object], values: Sequence[Any]) -> None:
        """Write ``values`` (the appended results) to the heap, all or nothing."""
        if len(values) != len(self.writes):
            raise HeapError(f"commit needs {len(self.writes)} values, got {len(values)}")
        targets = [path.location(objects) for path in self.writes]
        for path, target in zip(self.writes, targets):
            _check_assignable(path, *target)
        for (container, kind, key), value in zip(targets, values):
            if kind == "attr":
                setattr(container, key, value)
            else:
                container[key] = value  # type: ignore[index]


__all__ = [
    "OBJECTS_ATTR",
    "READS_ATTR",
    "WRITES_ATTR",
    "AccessPath",
    "HeapAliasError",
    "HeapError",
    "HeapManifest",
    "ObjectSlot",
]
