"""The entry guards of one compiled version, in one place (as TorchDynamo's ``guards.py``).

A version assumes things about each call: its arguments' types, dtypes, shapes and
static values (its entry key, ``signature``), the globals it baked in, and the heap
locations it reads, writes and calls methods of (``heap.plan``). ``GuardBuilder`` turns
these into guards, one builder method per kind; ``EntryGuards`` holds and runs them all,
and each guard says in words what it checks, for ``janus.explain``.

Argument and global guards carry a Python condition over the arguments ``a0, a1...``.
When every argument guard has one (a flat key: top-level arrays, static scalars, relaxed
ints, heap objects), the conditions are compiled into one function, ``match``, which
``janus.jit`` tries before the full key walk: it accepts a call exactly when
``signature.key_and_leaves`` (under the same relaxed positions) would give the version's
key, and returns the same leaves. Nested arguments (lists, trees, stacked lists) are
checked by the key walk only. Heap guards read through the arguments, so they run after
those matched, on every call, and raise ``HeapMiss`` with the reason.
"""

from __future__ import annotations

import functools
import re
from math import copysign
import types
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, Callable, Hashable, Mapping, Sequence

import numpy as np

from janus.frontend.heap.aliasing import overlaps
from janus.frontend.heap.rules import (ABSENT, CONTAINERS, I64_MAX, I64_MIN, VARYING_NUMPY, VARYING_SCALARS, HeapMiss, Method, Spec, class_makes_heap_object,
                                       is_heap_object, method_of, resolve)
from janus.frontend.recursion.trees import not_tree_condition
from janus.frontend.signature import RELAXED_INT_BOUND, STATIC_TYPES, by_reference, describe_key, record_node
from janus.frontend.trace.frame import NULL, resolve_global
from janus.heap import AccessPath
from janus.runtime.fast_path import SteadyCall


@dataclass(frozen=True)
class Guard:
    """One assumption about a call: ``kind`` (the builder method that made it), ``text``
    (what it checks, in words) and ``condition``, a Python expression over the arguments
    ``a0, a1...`` that holds when it does (None: the key walk checks it)."""

    kind: str
    text: str
    condition: str | None
    leaf: str | None = None  # the graph argument an argument guard passes on, as an expression
    modules: bool = False  # checks module globals only (``np``): noise in ``janus.explain`` by default


@dataclass(frozen=True)
class HeapGuard(ABC):
    """One assumption about a heap location (``path`` in the object table, ``label`` for
    messages); ``check`` raises ``HeapMiss`` when it does not hold."""

    kind: str
    text: str
    path: AccessPath
    label: str

    @abstractmethod
    def check(self, objects: list[Any], entry: dict[AccessPath, Any], leaves: Sequence[Any]) -> None:
        """Raise ``HeapMiss`` unless the assumption holds for the call's object table and leaves."""


@dataclass(frozen=True)
class HeapLocation(HeapGuard):
    """The location resolves and holds what the graph was specialized on; its value goes into ``entry``."""

    spec: Spec

    def check(self, objects: list[Any], entry: dict[AccessPath, Any], leaves: Sequence[Any]) -> None:
        try:
            value = resolve(objects, self.path, write=self.spec.kind == "write", absent=self.spec.kind == "absent")
        except HeapMiss as e:
            raise HeapMiss(f"{self.label}: {e}") from None
        if not self.spec.matches(value):
            varied = self.spec.kind == "value" and type(value) is self.spec.type_ and type(value) in (*VARYING_SCALARS, *VARYING_NUMPY)
            raise HeapMiss(f"{self.label} is {_describe(value)}; the version assumed {self.spec.describe()}",
                           self.label if varied else None, type(value))
        entry[self.path] = value


@dataclass(frozen=True)
class HeapMethod(HeapGuard):
    """``label.name`` still binds the function the graph inlined (checked after the locations)."""

    name: str
    fn: Method

    def check(self, objects: list[Any], entry: dict[AccessPath, Any], leaves: Sequence[Any]) -> None:
        if method_of(entry[self.path], self.name) is not self.fn:
            raise HeapMiss(f"{self.label}.{self.name} is no longer the method the version inlined")


@dataclass(frozen=True)
class HeapSame(HeapGuard):
    """A second path to an object the graph reaches by ``first`` too holds that very object
    (checked after the locations: both are in ``entry``)."""

    first: AccessPath

    def check(self, objects: list[Any], entry: dict[AccessPath, Any], leaves: Sequence[Any]) -> None:
        if entry[self.path] is not entry[self.first]:
            raise HeapMiss(f"{self.label} no longer holds the object the version reaches by another path")


@dataclass(frozen=True)
class HeapUnaliased(HeapGuard):
    """An array the graph updates in place shares no memory with another input (the
    commit overwrites it after the call has read everything)."""

    aliases: tuple[AccessPath, ...] = ()  # other paths to the very array (``HeapSame``): one location of the graph

    def check(self, objects: list[Any], entry: dict[AccessPath, Any], leaves: Sequence[Any]) -> None:
        check_unaliased((self,), entry, leaves)

    def shares(self, positions: dict[AccessPath, int], shared: dict[int, set[int]]) -> bool:
        """Whether the array shares memory with an input but its own ``aliases`` (``positions``:
        entry paths by position in the values ``shared`` was found among)."""
        own = {positions[p] for p in (self.path, *self.aliases) if p in positions}
        return bool(shared.get(positions[self.path], set()) - own)


@dataclass(frozen=True)
class ArgumentUnaliased:
    """An argument array the graph updates in place (copied into after the call) can be
    written and shares no memory with another input (the graph read them all as they were)."""

    kind: str
    text: str
    label: str
    leaf: int

    def check(self, objects: list[Any], entry: dict[AccessPath, Any], leaves: Sequence[Any]) -> None:
        check_unaliased((self,), entry, leaves)

    def shares(self, positions: dict[AccessPath, int], shared: dict[int, set[int]]) -> bool:
        """Whether the argument shares memory with another input (leaves follow the entry's values)."""
        return len(positions) + self.leaf in shared


def check_unaliased(guards: Sequence[HeapUnaliased | ArgumentUnaliased], entry: dict[AccessPath, Any],
                    leaves: Sequence[Any]) -> None:
    """Raise ``HeapMiss`` for the first of ``guards`` (in-place updates of heap arrays and of
    argument arrays) that does not hold: which inputs share memory is found once for all
    (``aliasing.overlaps``, linear in the number of inputs)."""
    for guard in guards:
        if type(guard) is ArgumentUnaliased and not leaves[guard.leaf].flags.writeable:
            raise HeapMiss(f"{guard.label} is updated in place but is read-only")
    arrays = [(p, v) for p, v in entry.items() if isinstance(v, np.ndarray)]
    shared = overlaps([*(v for _, v in arrays), *leaves])
    if not shared:
        return
    positions = {p: i for i, (p, _) in enumerate(arrays)}
    for guard in guards:
        if guard.shares(positions, shared):
            raise HeapMiss(f"{guard.label} is updated in place but shares memory with another input")


@dataclass(frozen=True)
class EntryGuards:
    """Every entry check of one version, for the relaxed positions ``dynamic`` its key was taken under."""

    dynamic: frozenset
    guards: tuple[Guard, ...]  # arguments, relaxed dims, globals
    heap: tuple[HeapGuard | ArgumentUnaliased, ...]  # locations, then aliases, methods, then in-place updates
    #: the argument and global guards compiled: the call's leaves, or None; None for nested keys
    match: Callable[[Sequence[Any]], list | None] | None
    globals_hold: Callable[[], bool]
    #: the location and method guards compiled, where every location is an attribute of a
    #: plain object (``heap_checks``): the entry values, or None when one check does not
    #: pass or the objects are unusual (then the guards run one by one and say why)
    heap_match: Callable[[Sequence[Any]], dict | None] | None = None
    #: ``fuse(run, finish, names, heap)``: ``match`` then the call in one function (None where ``match`` is)
    fuse: Callable[..., Callable[[tuple], Any] | None] | None = None

    def check_heap(self, objects: list[Any], leaves: Sequence[Any]) -> dict[AccessPath, Any]:
        """The entry value of every checked heap location; ``HeapMiss`` when one does not hold."""
        entry = self.heap_match(objects) if self.heap_match is not None else None
        if entry is None:
            entry = {}
            for guard in self.heap:  # the in-place guards last, once every location's value is in
                if type(guard) is not HeapUnaliased and type(guard) is not ArgumentUnaliased:
                    guard.check(objects, entry, leaves)
        if self.unaliased:
            check_unaliased(self.unaliased, entry, leaves)
        return entry

    @functools.cached_property
    def in_place(self) -> tuple[HeapUnaliased, ...]:
        return tuple(g for g in self.heap if type(g) is HeapUnaliased)

    @functools.cached_property
    def arguments_written(self) -> tuple[ArgumentUnaliased, ...]:
        return tuple(g for g in self.heap if type(g) is ArgumentUnaliased)

    @functools.cached_property
    def unaliased(self) -> tuple[HeapUnaliased | ArgumentUnaliased, ...]:
        """The in-place updates' guards, heap arrays' then arguments' (checked together: ``check_unaliased``)."""
        return self.in_place + self.arguments_written

    def describe(self, modules: bool = True) -> list[str]:
        """One line per guard, for ``janus.explain``; the module globals' line only with ``modules``."""
        return [g.text for g in (*self.guards, *self.heap) if modules or not getattr(g, "modules", False)]


class GuardBuilder:
    """Collects the guards of one version, one method per kind, and compiles the flat ones."""

    def __init__(self, dynamic: frozenset, names: Sequence[str] = ()) -> None:
        self.dynamic, self.names = dynamic, list(names)
        self.guards: list[Guard] = []
        self.heap: list[HeapGuard] = []
        #: argument index -> the exact class its ``TYPE_MATCH`` guard checks (with ``is_heap_object``)
        self.typed: dict[int, type] = {}
        #: heap locations holding a Python scalar the traced code wrote (``HeapPlan.scalars``) -> its type
        self.scalar_types: dict[AccessPath, type] = {}
        #: the names the compiled conditions use
        self.scope: dict[str, Any] = {"NULL": NULL, "resolve_global": resolve_global,
                                      "is_heap_object": is_heap_object, "by_reference": by_reference,
                                      "asarray": np.asarray, "copysign": copysign, "method_of": method_of, "MISSING": ABSENT,
                                      "OGA": object.__getattribute__, "OSA": object.__setattr__}

    def _bind(self, value: Any) -> str:
        name = f"c{len(self.scope)}"
        self.scope[name] = value
        return name

    def _arg(self, i: int) -> str:
        return f"arg {i} ({self.names[i]})" if i < len(self.names) else f"arg {i}"

    def DTYPE_SHAPE(self, i: int, typ: type, dtype: np.dtype, shape: tuple) -> None:
        """An array or NumPy scalar of exactly this type, dtype and shape; ``?`` dims
        (symbols) only by rank here, their sizes by ``RELAXED_DIMS``."""
        a = f"a{i}"
        if any(type(d) is str for d in shape):
            fixed = "".join(f" and {a}.shape[{d}] == {n}" for d, n in enumerate(shape) if type(n) is not str)
            sizes = f"{a}.ndim == {len(shape)}{fixed}"
        else:
            sizes = f"{a}.shape == {shape!r}"
        dims = ", ".join("?" if type(d) is str else str(d) for d in shape)
        what = f"ndarray {dtype} shape ({dims}{',' * (len(shape) == 1)})" if typ is np.ndarray else f"NumPy {typ.__name__}"
        self.guards.append(Guard("DTYPE_SHAPE", f"{self._arg(i)}: {what}",
                                 f"type({a}) is {self._bind(typ)} and ({a}.dtype is {(d := self._bind(dtype))} or {a}.dtype == {d}) and {sizes}",
                                 a if typ is np.ndarray else f"asarray({a})"))

    def CONSTANT_MATCH(self, i: int, typ: type, value: Any) -> None:
        """A Python scalar, string or None of this type and value: a constant of the graph."""
        a, v = f"a{i}", self._bind(value)
        sign = f" and copysign(1.0, {a}) == {copysign(1.0, value)}" if typ is float and value == 0.0 else ""  # -0.0 == 0.0
        self.guards.append(Guard("CONSTANT_MATCH", f"{self._arg(i)}: {typ.__name__} == {value!r}",
                                 f"type({a}) is {self._bind(typ)} and ({a} is {v} or {a} == {v}{sign})"))

    def CALLEE_IDENTITY(self, i: int, fn: Callable) -> None:
        """A function argument (``act=np.tanh``) is the very function the graph inlined or applied."""
        self.guards.append(Guard("CALLEE_IDENTITY", f"{self._arg(i)}: {describe_key(('callee', fn))} (identity)",
                                 f"a{i} is {self._bind(fn)}"))

    def RELAXED_INT(self, i: int) -> None:
        """An int of any value in the range an i64 graph input takes (``signature.relaxed_int``)."""
        self.guards.append(Guard("RELAXED_INT", f"{self._arg(i)}: any int within ±2**62 (an i64 input)",
                                 f"type(a{i}) is int and {-RELAXED_INT_BOUND} < a{i} < {RELAXED_INT_BOUND}", f"a{i}"))

    def TYPE_MATCH(self, i: int, typ: type, length: int | None = None) -> None:
        """An object passed by reference, of exactly this type (which alone tells
        ``is_heap_object`` where it can: ``rules.class_makes_heap_object``), or a list of
        objects of this length; what the graph reads from it is a heap guard of its own."""
        a = f"a{i}"
        self.typed[i] = typ
        if typ is list:  # the heap guards of its reads check its items
            check = f"type({a}) is list and len({a}) == {length} and by_reference({a})"
        else:
            heap_object = "" if class_makes_heap_object(typ) else f" and is_heap_object({a})"
            check = f"type({a}) is {self._bind(typ)}{heap_object} and ({not_tree_condition(typ, a, self._bind)})"
        self.guards.append(Guard("TYPE_MATCH", f"{self._arg(i)}: {typ.__qualname__} object (exact type)", check))

    def KEY_MATCH(self, i: int, node: tuple) -> None:
        """A nested argument (list, tuple, tree, stacked list): only the key walk checks it."""
        self.guards.append(Guard("KEY_MATCH", f"{self._arg(i)}: {describe_key(node)} (by the key walk)", None))

    def RELAXED_DIMS(self, groups: list[list[tuple[str, str | None]]]) -> None:
        """``?`` dims of one symbol have one size, and different symbols different sizes (the
        key numbers sizes, not dims). ``groups``: per symbol, (label, expression) of each dim."""
        condition = None
        if all(expr is not None for group in groups for _, expr in group):  # nested dims: the key walk
            conditions = [f"{group[0][1]} == {expr}" for group in groups for _, expr in group[1:]]
            if len(groups) > 1:
                conditions.append(f"len({{{', '.join(str(group[0][1]) for group in groups)}}}) == {len(groups)}")
            condition = " and ".join(conditions)
        text = "; ".join(" == ".join(label for label, _ in group) for group in groups)
        self.guards.append(Guard("RELAXED_DIMS", f"? dims: {text}" + (" (each ? a different size)" if len(groups) > 1 else ""),
                                 condition))

    def GLOBAL_ID(self, reads: Sequence[tuple[dict, str, Any]]) -> None:
        """Globals the graph baked in (values, callees, modules: (namespace, name, value)
        each) still name the same objects."""
        what = _kind_of(reads[0][2]) if len(reads) == 1 else "modules"
        self.guards.append(Guard("GLOBAL_ID", f"global {', '.join(name for _, name, _ in reads)}: the same {what} (identity)",
                                 " and ".join(self._global_is(namespace, name, value) for namespace, name, value in reads),
                                 modules=all(isinstance(value, types.ModuleType) for _, _, value in reads)))

    def _global_is(self, namespace: dict, name: str, value: Any) -> str:
        """``name`` resolves to ``value``: a module global's dict lookup first (the usual hit), then as ``LOAD_GLOBAL`` would."""
        ns, v = self._bind(namespace), self._bind(value)
        full = f"resolve_global({ns}, {name!r}, NULL) is {v}"
        return f"({ns}.get({name!r}, NULL) is {v} or {full})" if type(namespace) is dict else full

    def HEAP_LOCATION(self, path: AccessPath, spec: Spec, label: str) -> None:
        """A location the graph reads or writes: resolves, and holds what ``spec`` says."""
        self.heap.append(HeapLocation("HEAP_LOCATION", f"heap {label}: {spec.describe()}", path, label, spec))

    def HEAP_SAME(self, path: AccessPath, first: AccessPath, label: str, first_label: str) -> None:
        """Two paths the graph treats as one location still hold one object."""
        self.heap.append(HeapSame("HEAP_SAME", f"heap {label}: the same object as {first_label} (identity)", path, label, first))

    def HEAP_METHOD(self, path: AccessPath, name: str, fn: Method, label: str) -> None:
        """A method the graph inlined is still the one ``label.name`` binds."""
        what = f"property {fn.fget.__qualname__}" if type(fn) is property else f"method {fn.__qualname__}"
        self.heap.append(HeapMethod("HEAP_METHOD", f"heap {label}.{name}: {what}", path, label, name, fn))

    def ARGUMENT_UNALIASED(self, leaf: int) -> None:
        """An argument array the graph updates in place is writeable and shares no memory with the other inputs."""
        label = f"argument array {leaf}"
        self.heap.append(ArgumentUnaliased("ARGUMENT_UNALIASED", f"{label}: updated in place, writeable, shares no memory "
                                           "with other inputs", label, leaf))

    def HEAP_UNALIASED(self, path: AccessPath, label: str, aliases: tuple[AccessPath, ...] = ()) -> None:
        """An array the graph updates in place shares no memory with the call's other inputs
        (but the paths ``aliases`` the graph knows hold that very array)."""
        self.heap.append(HeapUnaliased("HEAP_UNALIASED", f"heap {label}: updated in place, shares no memory with other inputs",
                                       path, label, aliases))

    def build(self, arity: int) -> EntryGuards:
        """The guards, with ``match`` compiled when every argument guard has a condition."""
        flat = None not in (g.condition for g in self.guards)
        match = _compile("match", "args", self._checks(arity, "None") + [f"return {self._leaves()}"],
                         self.scope) if flat else None
        held = [g.condition for g in self.guards if g.kind == "GLOBAL_ID"]
        globals_hold = _compile("globals_hold", "", [f"return {' and '.join(held) if held else 'True'}"], self.scope)
        checks = heap_checks(self.heap, self._bind)
        heap_match = None
        if checks is not None:
            lines, names = checks
            heap_match = _compile("heap_match", "objects", lines + [
                "return {" + ", ".join(f"{self._bind(path)}: {v}" for path, v in names.items()) + "}"], self.scope)
        fuse = functools.partial(self._fused, arity) if flat else None
        return EntryGuards(self.dynamic, tuple(self.guards), tuple(self.heap), match, globals_hold, heap_match, fuse)

    def _checks(self, arity: int, miss: str) -> list[str]:
        """Lines returning ``miss`` unless every argument and global guard holds for ``args``."""
        return [f"if len(args) != {arity}: return {miss}",
                *([f"{''.join(f'a{i}, ' for i in range(arity))}= args"] if arity else []),
                *(f"if not ({g.condition}): return {miss}" for g in self.guards)]

    def _leaves(self) -> str:
        return f"[{', '.join(g.leaf for g in self.guards if g.leaf is not None)}]"

    def _fused(self, arity: int, run: Callable | SteadyCall, finish: Sequence[str], names: dict[str, Any],
               heap: tuple[Sequence[tuple[str, Any]], Sequence[AccessPath]] | None = None,
               held: Sequence[AccessPath] = (), prologue: Sequence[str] = (),
               commits: Sequence[tuple[AccessPath, int]] = ()) -> Callable[[tuple], Any] | None:
        """``match``, then ``results = run(leaves)`` and the lines ``finish`` (over ``results``,
        ``leaves``, ``held`` and ``names``, returning the call's value) in one generated
        function (``EntryGuards.fuse``); it returns ``MISS`` where ``match`` returns None. A
        ``run`` that is the runtime's generated call as source (``fast_path.SteadyCall``) is
        inlined: one frame, no list of inputs. With ``heap`` (the object table's sources,
        the locations read, of a version that reads the heap) the heap checks run too,
        and ``run`` gets the values read after the leaves; ``held``: checked locations whose
        entry values ``finish`` gets as the list ``held`` (a segment boundary's state, read
        before the call); ``prologue``: lines run once the arguments matched. None when the
        heap checks do not compile (``heap_checks``) or do not locate a read or held path.
        ``commits``: (attribute location, result index) stored into the object's ``__dict__``
        once the call succeeded, before ``finish`` (the heap checks found the class plain; its
        ``__setattr__`` is checked to be ``object``'s): a failed guard raises before any store."""
        leaves = [g.leaf for g in self.guards if g.leaf is not None]
        body = self._checks(arity, "MISS") + list(prologue)
        inputs, stores = list(leaves), []
        if heap is None and (held or commits):
            return None
        if heap is not None:
            sources, reads = heap
            # objects passed as arguments: their guards checked the exact class and is_heap_object already
            arguments = {slot: (f"a{ref}", self.typed[ref]) for slot, (kind, ref) in enumerate(sources)
                         if kind == "arg" and ref in self.typed}
            checks = heap_checks(self.heap, self._bind, "MISS", arguments)
            if checks is None or any(path not in checks[1] for path in (*reads, *held, *(p for p, _ in commits))):
                return None
            lines, located = checks
            containers = dict.fromkeys(located[path.parent] for path, _ in commits)
            lines += [f"if type({p}).__setattr__ is not OSA: return MISS" for p in containers]
            stores = [f"d{located[path.parent]}[{path.steps[-1][1]!r}] = {self._stored(path, index, run)}"
                      for path, index in commits]
            if len(arguments) < len(sources):
                objects = ", ".join(f"a{ref}" if kind == "arg" else self._bind(ref) for kind, ref in sources)
                body.append(f"objects = [{objects}]")
            body += lines
            inputs += [located[path] for path in reads]
            if _uses("held", finish):
                body.append(f"held = [{', '.join(located[path] for path in held)}]")
        scope = {**self.scope, **names, "MISS": MISS}
        if _uses("leaves", finish):
            body.append(f"leaves = [{', '.join(leaves)}]")
        if isinstance(run, SteadyCall):
            body += run.lines(inputs, self._checked_ints(inputs))  # binds the names it uses in its scope
            clash = scope.keys() & run.scope.keys()
            assert not clash, f"the fused call and the runtime's steady call both name {sorted(clash)}"
            scope.update(run.scope)
        else:
            scope["run"] = run
            body.append(f"results = run([{', '.join(inputs)}])")
        return _compile("call", "args", body + stores + list(finish), scope)

    def _stored(self, path: AccessPath, index: int, run: Callable | SteadyCall) -> str:
        """What a fused commit stores at ``path`` for result ``index`` of ``run``, as
        ``HeapPlan.finish`` would: a Python scalar of the traced code (``self.t += 1``) as
        its type, a 0-d array as its NumPy scalar, anything else as it is."""
        result, typ = f"results[{index}]", self.scalar_types.get(path)
        if typ is not None:
            return f"{self._bind(typ)}({result})"
        if isinstance(run, SteadyCall) and not run.zero_dim(index):
            return result
        return f"{self._bind(_scalar_of)}({result})"

    def _checked_ints(self, inputs: Sequence[str]) -> list[int]:
        """The positions in ``inputs`` of relaxed int arguments: their guards checked them to
        be ``int``s within ±2**62 (heap reads are arrays, 0-d for a Python scalar)."""
        ints = {g.leaf for g in self.guards if g.kind == "RELAXED_INT"}
        return [i for i, x in enumerate(inputs) if x in ints]


def _scalar_of(value: Any) -> Any:
    """A 0-d array's NumPy scalar (what Python holds after ``self.s = np.sum(x)``); other values as they are."""
    return value[()] if type(value) is np.ndarray and not value.ndim else value


def _uses(name: str, lines: Sequence[str]) -> bool:
    """Whether the generated ``lines`` read the variable ``name``."""
    return any(re.search(rf"\b{name}\b", line) for line in lines)


def _compile(name: str, params: str, body: list[str], scope: dict[str, Any]) -> Callable:
    source = f"def {name}({params}):\n" + "".join(f"    {line}\n" for line in body)
    namespace: dict[str, Any] = {}
    exec(compile(source, f"<janus entry guards: {name}>", "exec"), scope, namespace)
    return namespace[name]


#: what a fused call (``EntryGuards.fuse``) returns when the arguments do not match its version
MISS = object()


def heap_checks(guards: Sequence[HeapGuard], bind: Callable[[Any], str], miss: str = "None",
                arguments: Mapping[int, tuple[str, type]] | None = None) -> tuple[list[str], dict[AccessPath, str]] | None:
    """The body of ``EntryGuards.heap_match`` but its ``return``: each location guard's
    resolution and spec check, each method guard, as straight-line code (``bind`` names a
    constant) returning ``miss`` when one fails, and the variable holding each location's
    value; or None when a location is neither an attribute of a plain object nor an item
    of an exact ``dict`` (items of lists, cells, module globals: the guards run one by
    one). It passes only where ``heap.rules`` would (an item: the key is in the dict, or written);
    per object, ``is_heap_object`` and the class's ``__getattribute__``, ``__getattr__``,
    ``__slots__`` (and ``__setattr__`` when written) as plain; per attribute, nothing of
    that name on the class (``rules.attribute_problem`` would look further) and, when
    read, the instance's own. "On the class" is ``hasattr``, or the same answer from the
    dicts of the class's MRO (``_ClassLookup``: no exception raised per absent name).
    ``arguments``: object slots held by argument variables whose entry guards already
    checked the exact class and ``is_heap_object`` (slot -> variable, class): those checks
    are not repeated (the fused call)."""
    arguments = arguments or {}
    names: dict[AccessPath, str] = {}
    checked: dict[str, type] = {}  # variables whose exact class and is_heap_object hold already
    specs: dict[AccessPath, Spec] = {}
    lines: list[str] = []
    lookups: dict[str, _ClassLookup] = {}  # the objects whose class is checked, by variable
    written_under = {g.path.parent for g in guards if isinstance(g, HeapLocation) and g.spec.kind == "write" and g.path.steps}
    for guard in guards:
        if isinstance(guard, HeapMethod):
            if guard.path not in names:
                return None
            lines.append(f"if method_of({names[guard.path]}, {guard.name!r}) is not {bind(guard.fn)}: return {miss}")
            continue
        if isinstance(guard, HeapSame):
            if guard.path not in names or guard.first not in names:
                return None
            lines.append(f"if {names[guard.path]} is not {names[guard.first]}: return {miss}")
            continue
        if not isinstance(guard, HeapLocation):
            continue
        path, spec, v = guard.path, guard.spec, f"v{len(names)}"
        if not path.steps and path.slot in arguments:
            v, cls = arguments[path.slot]
            checked[v] = cls
        elif not path.steps:
            lines.append(f"{v} = objects[{path.slot}]")
        elif path.steps[-1][0] == "item":
            parent, key = path.parent, path.steps[-1][1]
            if parent not in names or specs[parent].kind != "object" or specs[parent].type_ is not dict or spec.kind == "absent":
                return None
            if spec.kind == "write":  # an exact dict takes any key
                lines.append(f"{v} = None")
            else:
                lines += [f"{v} = {names[parent]}.get({key!r}, MISSING)", f"if {v} is MISSING: return {miss}"]
        else:
            kind, name = path.steps[-1]
            parent = path.parent
            if kind != "attr" or parent not in names or not _plain_class(specs[parent]):
                return None
            p, cls = names[parent], specs[parent].type_  # the parent's check made it exactly this class
            lookup = lookups.get(p)
            if lookup is None:  # the object's class checks, once
                lookup = lookups[p] = _ClassLookup(cls, bind, p)
                c = bind(cls)
                setattr_plain = f" or {c}.__setattr__ is not OSA" if parent in written_under else ""
                lines.extend(f"{line}: return {miss}" if line.startswith("if ") else line for line in lookup.prologue)
                heap_object = "" if checked.get(p) is cls else f"not is_heap_object({p}) or "
                lines.append(f"if {heap_object}{c}.__getattribute__ is not OGA"
                             f" or {lookup.has('__getattr__')} or {lookup.has('__slots__')}{setattr_plain}: return {miss}")
                lines.append(f"d{p} = vars({p})")
            lines.append(f"if {lookup.has(name)}: return {miss}")
            lines.append(f"{v} = None" if spec.kind == "write" else f"{v} = d{p}.get({name!r}, MISSING)")
        names[path], specs[path] = v, spec
        same_object = spec.kind == "object" and spec.length is None and spec.keys is None and checked.get(v) is spec.type_
        condition = None if same_object else _spec_condition(spec, v, bind)
        if condition is not None:
            lines.append(f"if not ({condition}): return {miss}")
    return lines, names


class _ClassLookup:
    """``hasattr(cls, name)`` as generated code: where ``cls``'s metaclass is ``type`` and
    each class of its MRO is a Python class or an immutable built-in one, the same answer
    from the MRO's mutable class dicts (read once per call, the MRO checked unchanged) and
    the immutable ones' (known now); else ``hasattr`` itself."""

    _IMMUTABLE = 1 << 8  # Py_TPFLAGS_IMMUTABLETYPE
    _HEAP = 1 << 9  # Py_TPFLAGS_HEAPTYPE

    def __init__(self, cls: type, bind: Callable[[Any], str], var: str) -> None:
        self.cls, self.c = cls, bind(cls)
        mro = cls.__mro__
        self.mutable = [k for k in mro if k.__flags__ & self._HEAP]
        self.fixed = [k for k in mro if not k.__flags__ & self._HEAP]
        self.by_dicts = type(cls) is type and all(k.__flags__ & self._IMMUTABLE for k in self.fixed)
        self.dicts = [f"m{var}_{i}" for i in range(len(self.mutable))]
        self.prologue = [f"if {self.c}.__mro__ is not {bind(mro)}",
                         *(f"{d} = {bind(k)}.__dict__" for d, k in zip(self.dicts, self.mutable))] if self.by_dicts else []

    def has(self, name: str) -> str:
        """An expression true when the class has attribute ``name``."""
        if not self.by_dicts or any(name in vars(k) for k in (*self.fixed, type)):
            return f"hasattr({self.c}, {name!r})"
        return "(" + " or ".join(f"{name!r} in {d}" for d in self.dicts) + ")" if self.dicts else "False"


def _plain_class(spec: Spec) -> bool:
    """An object whose attributes the compiled checks resolve: of one exact class that is
    neither a container, a cell nor a module."""
    return spec.kind == "object" and spec.type_ not in (*CONTAINERS, types.CellType, types.ModuleType)


def _spec_condition(spec: Spec, v: str, bind: Callable[[Any], str]) -> str | None:
    """``Spec.matches`` as an expression over ``v`` (None: anything matches)."""
    if spec.kind == "write":
        return None
    if spec.kind == "identity":
        return f"{v} is {bind(spec.value)}"
    if spec.kind == "absent":
        return f"{v} is MISSING"
    same_type = f"type({v}) is {bind(spec.type_)}"
    if spec.kind == "array":
        d = bind(spec.dtype)
        return f"{same_type} and ({v}.dtype is {d} or {v}.dtype == {d}) and {v}.shape == {spec.shape!r}"
    if spec.kind == "value":
        return f"{same_type} and bool({v} == {bind(spec.value)})"
    if spec.kind == "scalar":
        return same_type if spec.type_ is not int else f"{same_type} and {I64_MIN} <= {v} <= {I64_MAX}"
    length = "" if spec.length is None else f" and len({v}) == {spec.length}"
    keys = "" if spec.keys is None else f" and tuple({v}) == {bind(spec.keys)}"
    return same_type + length + keys


def entry_guards(key: Hashable, dynamic: frozenset, names: Sequence[str] = (), globals_read: Sequence = (),
                 heap: Any = None) -> EntryGuards:
    """The guards of a version whose entry key ``key`` the walk gave under ``dynamic``, whose
    graph baked in ``globals_read`` and (``heap``, a ``HeapPlan``) touches the heap."""
    builder = GuardBuilder(dynamic, names)
    for i, node in enumerate(key):  # type: ignore[arg-type]
        _argument(builder, i, node)
    groups: dict[str, list[tuple[str, str | None]]] = {}
    for i, node in enumerate(key):  # type: ignore[arg-type]
        _symbols(node, builder.names[i] if i < len(builder.names) else f"arg{i}", f"a{i}", groups)
    if len(groups) > 1 or any(len(g) > 1 for g in groups.values()):
        builder.RELAXED_DIMS(list(groups.values()))
    modules = [read for read in globals_read if isinstance(read[2], types.ModuleType)]
    for read in globals_read:
        if not isinstance(read[2], types.ModuleType):
            builder.GLOBAL_ID([read])
    if modules:  # one line for them all in ``janus.explain``
        builder.GLOBAL_ID(modules)
    if heap is not None:
        builder.scalar_types.update(heap.scalars)
        for path, spec in heap.checks:
            builder.HEAP_LOCATION(path, spec, heap.labels[path])
        for path, first in heap.aliases:
            builder.HEAP_SAME(path, first, heap.labels[path], heap.labels[first])
        for path, name, fn in heap.methods:
            builder.HEAP_METHOD(path, name, fn, heap.labels[path])
        for path in heap.mutated:
            builder.HEAP_UNALIASED(path, heap.labels[path], tuple(p for p, first in heap.aliases if first == path))
        for leaf, _ in heap.argument_writes:
            builder.ARGUMENT_UNALIASED(leaf)
    return builder.build(len(key))  # type: ignore[arg-type]


def _argument(builder: GuardBuilder, i: int, node: tuple) -> None:
    """The guard of one top-level key node (see ``signature.key_and_leaves``). Under
    ``dynamic`` a relaxed int position gives a static node only for ints out of range,
    which the constant's value keeps apart from a ``RELAXED_INT``."""
    if node[0] == "array":
        typ = np.ndarray if node[1] == "ndarray" else getattr(np, node[1], None)
        if getattr(typ, "__name__", None) == node[1]:  # an alias would name another type
            return builder.DTYPE_SHAPE(i, typ, np.dtype(node[2]), node[3])
    elif node[0] == "static":
        return builder.CONSTANT_MATCH(i, _STATIC_TYPES[node[1]], node[2])
    elif node[0] == "callee":
        return builder.CALLEE_IDENTITY(i, node[1])
    elif node == ("scalar", "int"):
        return builder.RELAXED_INT(i)
    elif node[0] == "object":
        return builder.TYPE_MATCH(i, node[1], *node[2:])
    builder.KEY_MATCH(i, node)


def _symbols(node: tuple, label: str, expr: str | None, groups: dict[str, list[tuple[str, str | None]]]) -> None:
    """Collect the ``?`` dims of ``node`` by symbol: their labels, and their expressions
    over the arguments for top-level arrays (None inside nested arguments)."""
    if node[0] == "array":
        for d, size in enumerate(node[3]):
            if type(size) is str:
                groups.setdefault(size, []).append((f"{label}.shape[{d}]", None if expr is None else f"{expr}.shape[{d}]"))
    elif node[0] in ("list", "tuple") or record_node(node):
        for j, item in enumerate(node[1]):
            _symbols(item, f"{label}[{j}]", None, groups)


def _kind_of(value: Any) -> str:
    """A short description of a global's value."""
    if isinstance(value, types.ModuleType):
        return f"module {value.__name__}"
    if isinstance(value, (types.FunctionType, types.BuiltinFunctionType, type)):
        return f"{type(value).__name__} {getattr(value, '__qualname__', value)}"
    text = repr(value)
    return f"{type(value).__name__} {text if len(text) <= 24 else text[:21] + '...'}"


def _describe(value: Any) -> str:
    if type(value) is np.ndarray:
        return f"ndarray[{value.dtype}, shape={value.shape}]"
    return f"a {type(value).__name__}"


_STATIC_TYPES = {t.__name__: t for t in STATIC_TYPES}
