"""Heap access in the graph generator: ``obj.attr``, globals, nonlocals and container items.

JANUS's model: every object the traced code reaches (an argument such as ``self`` or a
dict of parameters, a module for its globals, a closure cell for a nonlocal) is a
``janus.object`` slot; a location is a slot plus attribute/item steps (``janus.heap``'s
``AccessPath``). Reads emit ``janus.get_attr``/``get_item`` and writes ``set_attr``/
``set_item``; ``janus-externalize-heap`` turns them into arguments and results and the
runtime commits the writes only after the whole call succeeded.

The tracer keeps a *shadow* of every location it touched (reads after writes see the
written value; a reference read twice is one ``HeapRef``) and records, per location, the
``Spec`` the graph is specialized on: arrays by type/dtype/shape, Python scalars by value,
code by identity, objects by exact type. The version's entry guards (``guards``) check them on every call.
Writes are only arrays computed by the graph (or tuples/lists/dicts of them, ``heap_struct``) and only outside ``scf`` regions (a write
under a data-dependent branch would need the shadow forked too); ``x op= y`` on an array
read from the heap updates that very array, as NumPy does, when nothing else in the
traced code refers to it.
"""

from __future__ import annotations

import dataclasses
import sys
import types
from typing import TYPE_CHECKING, Any, Callable

import numpy as np

from janus.dialects import GetAttrOp, GetItemOp, ObjectOp, SetAttrOp, SetItemOp
from janus.frontend.heap import structures as heap_struct
from janus.frontend.ops import mutation
from janus.frontend.ops import op_table
from janus.frontend.trace.branches import Cell, SymFunction, SymIter
from janus.frontend.trace.scalars import PYTHON_DTYPES, weak_literal
from janus.frontend.heap.plan import HeapPlan
from janus.frontend.heap.rules import DICTS, VARYING_NUMPY, VARYING_SCALARS, HeapMiss, Method, Spec, lacks, method_of, spec_of, step
from janus.frontend.values import ELEMENT_TYPES, NotConvertible, Tensor, Weak, tensor_type
from janus.heap import AccessPath, Key
from janus.ir import OBJ_TYPE_ASM

if TYPE_CHECKING:
    from janus.frontend.trace.interpreter import Tracer


class HeapRef:
    """A reference to a heap object during tracing; Python protocols on it are refused
    (its truth, length or equality belong to the run, not to the trace)."""

    __slots__ = ("path", "obj", "ssa", "label")

    def __init__(self, path: AccessPath, obj: Any, ssa: str, label: str) -> None:
        self.path, self.obj, self.ssa, self.label = path, obj, ssa, label

    def __repr__(self) -> str:
        return f"HeapRef({self.label})"

    def _refuse(self, *args: Any) -> Any:
        raise NotConvertible(f"{self.label} (a heap object) is used as a Python value (truth, length, comparison)")

    __bool__ = __len__ = __iter__ = __eq__ = __ne__ = __lt__ = __le__ = __gt__ = __ge__ = __contains__ = _refuse
    __hash__ = object.__hash__


class HeapCell:
    """A real closure cell of traced code: ``LOAD_DEREF``/``STORE_DEREF`` become heap ops."""

    def __init__(self, tracker: "HeapTracker", ref: HeapRef) -> None:
        self.tracker, self.ref = tracker, ref

    @property
    def contents(self) -> Any:
        return self.tracker.read(self.ref, "attr", "cell_contents")

    @contents.setter
    def contents(self, value: Any) -> None:
        self.tracker.write(self.ref, "attr", "cell_contents", value)


#: dtype kinds of the Python scalars (``Weak``) the heap passes as VM scalars (``i64``, ``f64``)
#: rather than 0-d tensors: a 0-d tensor costs a buffer each way, and a read one a device
#: round trip before the host can compute with it (``self.t += 1``; ``0.9 ** self.t``).
#: Bools stay tensors: IREE 3.13 rejects ``tensor.from_elements`` of a run-time ``i1``.
SCALAR_ABI_KINDS = frozenset("if")
#: immutable Python values a traced ``list.append`` commits as they are (the version is specialized on them)
APPENDED_CONSTANTS = (bool, int, float, complex, str, type(None))


def holds_ref(value: Any) -> bool:
    """Whether ``value`` is, or (in a list, tuple or dict) holds, a ``HeapRef``."""
    if isinstance(value, HeapRef):
        return True
    if isinstance(value, (list, tuple)):
        return any(holds_ref(v) for v in value)
    return isinstance(value, dict) and any(holds_ref(v) for v in value.values())


def _holds(value: Any, target: Tensor) -> bool:
    """Whether traced Python state ``value`` refers to ``target``."""
    if value is target:
        return True
    if isinstance(value, (list, tuple)):
        return any(_holds(v, target) for v in value)
    if isinstance(value, dict):
        return any(_holds(v, target) for v in value.values())
    if isinstance(value, Cell):
        return _holds(value.contents, target)
    if isinstance(value, SymIter):  # items already consumed are out of the traced code's reach
        return _holds(value.items[value.pos :], target)
    return isinstance(value, SymFunction) and _holds((value.defaults, value.closure), target)


def _step_attr(kind: str, key: Key) -> dict[str, Key]:
    """The attribute naming one access step of a heap op."""
    return {"name": _text(key)} if kind == "attr" else {"key": key if isinstance(key, int) else _text(key)}


def _text(key: Key) -> str:
    """``key``, refused unless printable ASCII without quotes (heap manifests name it)."""
    if not isinstance(key, str) or not key.isprintable() or not key.isascii() or any(c in key for c in '"\\'):
        raise NotConvertible(f"heap key {key!r} cannot be written in MLIR")
    return key


class HoistedReads:
    """The heap scope of a private function being traced (a janus.grad or recursive
    function): the caller reads each heap location and passes it in as a parameter.
    Subclasses set ``tracer``, ``caller`` (the caller's emitter), ``enclosing`` (the
    caller's scope) and ``arguments`` (location -> parameter), and make the parameter."""

    #: ``NotConvertible`` message for a location holding an array with ``?`` dims
    DYNAMIC_READ = "{label}, an array with ? dims"

    tracer: "Tracer"
    caller: Any
    enclosing: Any
    arguments: dict[AccessPath, Tensor]

    def read(self, ref: HeapRef, kind: str, key: Key) -> Any:
        path = ref.path.child(kind, key)
        if path in self.arguments:
            return self.arguments[path]
        value = self._read_in_caller(ref, kind, key)
        if not isinstance(value, Tensor):
            return value  # a constant, code, or an object reference (read through here too)
        if not value.static:
            raise NotConvertible(self.DYNAMIC_READ.format(label=self.tracer.heap.labels[path]))
        self.arguments[path] = self.parameter(ref, kind, key, value)
        return self.arguments[path]

    def parameter(self, ref: HeapRef, kind: str, key: Key, value: Tensor) -> Tensor:
        """The new parameter that receives ``value``, read by the caller."""
        raise NotImplementedError

    def _read_in_caller(self, ref: HeapRef, kind: str, key: Key) -> Any:
        """``ref.kind[key]`` emitted with the caller's emitter and its enclosing scope."""
        tracker, inside = self.tracer.heap, self.tracer.em
        tracker.scope, self.tracer.em = self.enclosing, self.caller
        try:
            return tracker.read(ref, kind, key)
        finally:
            tracker.scope, self.tracer.em = self, inside


class HeapTracker:
    """The heap side of one trace: slots, shadow values, specs, and the ops it emits."""

    def __init__(self, tracer: "Tracer") -> None:
        self.tracer = tracer
        self.root = (tracer.em, tracer.em.lines)
        #: object refs, emitted at function entry so they dominate every use
        self.prologue: list[str] = []
        self.sources: list[tuple[str, Any]] = []  # per slot: ("arg", index) | ("fixed", object)
        self.roots: dict[tuple[str, Any], HeapRef] = {}
        self.checks: dict[AccessPath, Spec] = {}
        self.labels: dict[AccessPath, str] = {}
        self.values: dict[AccessPath, Any] = {}  # the shadow heap (outside regions)
        self.parents: dict[AccessPath, tuple[HeapRef, str, Key]] = {}
        self.types: dict[AccessPath, str] = {}
        #: location -> whether its 0-d int or float values cross as VM scalars (``_scalar_abi``)
        self.scalar_abi: dict[AccessPath, bool] = {}
        self.written: dict[AccessPath, Tensor] = {}
        self.structures: dict[AccessPath, tuple | list | dict] = {}  # tuples/lists/dicts of arrays written (``heap_struct``)
        self.layouts: dict[AccessPath, heap_struct.Layout] = {}
        self.owners: dict[str, AccessPath] = {}  # tensor -> location whose entry array it is (or updates)
        self.mutated: dict[AccessPath, None] = {}
        self.methods: dict[tuple[AccessPath, str], Method] = {}
        self.lengths_used: set[AccessPath] = set()  # lists and tuples the trace iterated
        #: heap list -> what the traced code appended to it (``append``), committed onto that very list
        self.appends: dict[AccessPath, list[Any]] = {}
        #: per appended value, in order (``structure_outputs``): (list, result index, Python type
        #: of a ``Weak`` or None, None), or for a static Python scalar (list, None, None, the scalar)
        self.append_results: tuple[tuple[AccessPath, int | None, type | None, Any], ...] = ()
        #: objects and arrays by id -> the first path the trace reached them by
        self.identities: dict[int, AccessPath] = {}
        #: a later path to one of them -> that first path (``self.layers[2]`` and ``self.head``: one location)
        self.aliases: dict[AccessPath, AccessPath] = {}
        #: graph inputs that are the caller's own arrays: id of the Tensor -> its leaf (``generate`` shares its map)
        self.argument_leaves: dict[int, int] = {}
        #: leaf -> the array an in-place update of that argument left (``p -= lr * g``, ``p`` passed in)
        self.argument_updates: dict[int, Tensor] = {}
        #: 0-d graph values read from NumPy scalars on the heap (immutable: ``self.b -= g`` rebinds)
        self.numpy_scalars: set[str] = set()
        #: set while a ``janus.grad`` function is traced into its own func.func (``grad_heap``)
        self.scope: Any = None

    def at_root(self) -> bool:
        """Outside every ``scf`` region (a branch side or loop body swaps the emitter's lines)."""
        return self.tracer.em is self.root[0] and self.tracer.em.lines is self.root[1]

    # ---- slots ------------------------------------------------------------------------
    def _root(self, source: tuple[str, Any], obj: Any, origin: str, name: str) -> HeapRef:
        key = source if source[0] == "arg" else ("fixed", id(obj))
        ref = self.roots.get(key)
        if ref is None:  # named by the root emitter: the prologue goes into the root function
            slot = len(self.sources)
            self.sources.append(source)
            ssa = self.root[0].janus(ObjectOp, {}, {"slot": slot, "origin": origin, "name": _text(name)}, [OBJ_TYPE_ASM],
                                     into=self.prologue)
            ref = self.roots[key] = HeapRef(AccessPath(slot), obj, ssa, name)
            if source[0] == "arg":
                self.checks[ref.path] = spec_of(obj)  # type: ignore[assignment]
                self.labels[ref.path] = name
        return ref

    def argument(self, index: int, name: str, value: Any) -> HeapRef:
        return self._root(("arg", index), value, "arg", name)

    def closure(self, fn: types.FunctionType) -> tuple[HeapCell, ...]:
        names = fn.__code__.co_freevars
        return tuple(HeapCell(self, self._root(("fixed", c), c, "cell", n)) for n, c in zip(names, fn.__closure__ or ()))

    def _module(self, namespace: dict) -> HeapRef:
        module = sys.modules.get(namespace.get("__name__", ""))
        if module is None or type(module) is not types.ModuleType or vars(module) is not namespace:
            raise NotConvertible("these globals do not belong to an imported module (heap access needs one)")
        return self._root(("fixed", module), module, "module", module.__name__)

    # ---- reads and writes -------------------------------------------------------------
    def read(self, ref: HeapRef, kind: str, key: Key) -> Any:
        """The value of ``ref.attr`` / ``ref[key]`` in this call, as the graph sees it."""
        if self.scope is not None:
            return self.scope.read(ref, kind, key)
        if kind == "item" and ref.path in self.appends:
            return self._appended_item(ref, key)
        return self._read(ref, kind, key)

    def _read(self, ref: HeapRef, kind: str, key: Key) -> Any:
        path = ref.path.child(kind, key)
        if path in self.aliases:
            return self.read(*self.parents[self.aliases[path]])
        if path in self.values:
            return self.values[path]
        label = f"{ref.label}.{key}" if kind == "attr" else f"{ref.label}[{key!r}]"
        try:
            value = step(ref.obj, kind, key)
        except HeapMiss as e:
            raise NotConvertible(str(e)) from None
        spec = spec_of(value)
        if spec is None:
            raise NotConvertible(f"{label} holds a {type(value).__name__}, which janus cannot specialize on")
        if spec.kind in ("object", "array") and self._alias(path, value, spec, label, (ref, kind, key)):
            return self.read(*self.parents[self.aliases[path]])
        if spec.kind == "value" and type(value) in (*VARYING_SCALARS, *VARYING_NUMPY) and label in self.tracer.profile.varying_heap:
            spec = Spec("scalar", type(value))  # a counter whose value changed between calls: a graph input
        self.checks.setdefault(path, spec)
        self.labels[path], self.parents[path] = label, (ref, kind, key)
        if spec.kind == "scalar":  # a Python scalar (weakly typed) or a NumPy one (a 0-d array)
            dtype = PYTHON_DTYPES.get(spec.type_) or np.dtype(spec.type_)
            if self.scalar_abi.setdefault(path, spec.type_ in VARYING_SCALARS and dtype.kind in SCALAR_ABI_KINDS):
                t = self.tracer.em.from_scalar(self._get(ref, kind, key, ELEMENT_TYPES[dtype.name]), dtype, Weak)
            else:
                t = (Weak if spec.type_ in VARYING_SCALARS else Tensor)(self._get(ref, kind, key, tensor_type((), dtype)), (), dtype)
            self._typed(path, t.type)
            if spec.type_ in VARYING_NUMPY:
                self.numpy_scalars.add(t.name)
            if self.at_root():
                self.values[path] = t
            return t
        if spec.kind == "array":
            if value.dtype.kind == "u":  # externalized heap values keep the body's signless type
                raise NotConvertible(f"{label} is a {value.dtype.name} array: unsigned arrays are supported as arguments and results, not in the heap")
            t = Tensor(self._get(ref, kind, key, tensor_type(value.shape, value.dtype)), value.shape, value.dtype)
            self._typed(path, t.type)
            self.owners[t.name] = path
            if self.at_root():
                self.values[path] = t
            return t
        if spec.kind == "object":
            value = HeapRef(path, value, self._get(ref, kind, key, OBJ_TYPE_ASM, into=self.prologue), label)
        self.values[path] = value
        return value

    def _alias(self, path: AccessPath, value: Any, spec: Spec, label: str, parent: tuple[HeapRef, str, Key]) -> bool:
        """Whether ``path`` holds an object or array the trace reached first by another path
        (``for layer in self.layers`` and ``self.head``): then it is an alias of that location
        (one shadow value, one in-place update), checked on each call to hold the same object.
        Not where the first location was rebound in this trace (it holds another value now)."""
        first = self.identities.setdefault(id(value), path)
        if first == path or first in self.written and first not in self.mutated or first in self.structures:
            return False
        self.aliases[path] = first
        self.checks.setdefault(path, spec)
        self.labels[path], self.parents[path] = label, parent
        return True

    def has_attribute(self, ref: HeapRef, name: str) -> bool:
        """``hasattr(ref, name)`` in this call: True where the read succeeds (the read's
        guards hold it), False where the object plainly lacks it, which the version then
        assumes (a ``Spec("absent")`` location, checked on entry)."""
        path = ref.path.child("attr", name)
        if self.scope is not None or path in self.values or not lacks(ref.obj, name):
            self.tracer.attribute(ref, name)
            return True
        self.checks.setdefault(path, Spec("absent"))
        self.labels[path], self.parents[path] = f"{ref.label}.{name}", (ref, "attr", name)
        return False

    def dict_keys(self, ref: HeapRef) -> list[Key]:
        """The keys of the heap dict ``ref``, listed by the traced code: from now on the
        version assumes exactly these keys, in this order (checked on entry)."""
        spec = self.checks.get(ref.path)
        if type(ref.obj) not in DICTS or spec is None or spec.kind != "object" or self.scope is not None:
            raise NotConvertible(f"listing the keys of {ref.label} (only of a dict argument or attribute)")
        added = [key for p, (parent, kind, key) in self.parents.items() if parent is ref and kind == "item" and key not in ref.obj
                 and p in self.values]
        if added:
            raise NotConvertible(f"listing the keys of {ref.label} after new keys were written ({added[0]!r})")
        self.checks[ref.path] = dataclasses.replace(spec, keys=tuple(ref.obj))
        return list(ref.obj)

    def write(self, ref: HeapRef, kind: str, key: Key, value: Any) -> None:
        """``ref.attr = value`` / ``ref[key] = value`` on the shadow heap (committed after the call)."""
        path = ref.path.child(kind, key)
        label = self.labels.setdefault(path, f"{ref.label}.{key}" if kind == "attr" else f"{ref.label}[{key!r}]")
        if self.scope is not None:
            why = getattr(self.scope, "refusal", "inside a janus.grad function (return it as aux instead)")
            raise NotConvertible(f"write to {label} {why}")
        if not self.at_root():
            raise NotConvertible(f"write to {label} inside a data-dependent branch or loop region")
        if path in self.aliases and self.owners.get(getattr(value, "name", None)) == self.aliases[path]:
            return  # ``params[k] += g`` through the second path: the array updated in place, stored back as it is
        if path in self.aliases or path in self.aliases.values() and path not in self.mutated:
            raise NotConvertible(f"{label} is rebound while another heap path holds the same object")
        static = value if type(value) in VARYING_SCALARS else None
        if static is not None:  # ``self.t = 1``: written as a graph constant, committed as a Python scalar
            value = weak_literal(self.tracer.em, value)
        if type(value) is np.ndarray and self.tracer.local_arrays.get(id(value)) is value:  # ``self.w = np.zeros(d)``
            value = mutation.as_graph_constant(self.tracer, value, f"storing {label}")
        structured = type(value) in heap_struct.CONTAINERS
        if not isinstance(value, Tensor) and not structured:
            raise NotConvertible(
                f"writing a {type(value).__name__} to {label}: only arrays computed by the graph are stored on the heap"
            )
        if any(t.dtype.kind == "u" for t in _leaves(value)):
            raise NotConvertible(f"writing an unsigned array to {label}: unsigned arrays are supported as arguments and results, not in the heap")
        try:
            step(ref.obj, kind, key, write=True)
        except HeapMiss as e:
            raise NotConvertible(str(e)) from None
        old = self.values.get(path)
        # a tuple or list read before stays valid through the old reference (reads see entry values)
        if isinstance(old, HeapRef) and not (structured and type(old.obj) in heap_struct.CONTAINERS):
            raise NotConvertible(f"{label} holds an object the traced code uses; it cannot be replaced")
        if path in self.mutated and (structured or self.owners.get(value.name) != path):
            raise NotConvertible(f"{label} is rebound after an in-place update in the same call")
        if structured:
            heap_struct.check(value, label, self._made)
        self._typed(path, heap_struct.type_text(value))
        self.checks.setdefault(path, Spec("write"))
        self.parents[path] = (ref, kind, key)
        if structured:  # its leaves become results of the function (``heap_struct``)
            self.values[path] = self.structures[path] = value
            return
        op = SetAttrOp if kind == "attr" else SetItemOp
        stored = (value.name, value.type)
        if self._scalar_abi(path, value):  # a VM int or float, no buffer
            stored = (self.tracer.em.scalar(value), ELEMENT_TYPES[value.dtype.name])
        self.tracer.em.janus(op, {"object": (ref.ssa, OBJ_TYPE_ASM), "value": stored}, _step_attr(kind, key))
        self.values[path] = self.written[path] = value
        if static is not None:  # later reads in this call see the Python value itself
            self.values[path] = static

    def _get(self, ref: HeapRef, kind: str, key: Key, result_type: str, into: list[str] | None = None) -> str:
        """``janus.get_attr`` / ``janus.get_item`` of ``ref``; the result's SSA name."""
        op = GetAttrOp if kind == "attr" else GetItemOp
        return self.tracer.em.janus(op, {"object": (ref.ssa, OBJ_TYPE_ASM)}, _step_attr(kind, key), [result_type], into)

    def _made(self, value: Any) -> bool:
        """Whether ``value`` is an array the trace made (nothing outside the call holds it)."""
        return self.tracer.local_arrays.get(id(value)) is value

    def _scalar_abi(self, path: AccessPath, value: Any) -> bool:
        """Whether the 0-d ``value`` written to ``path`` crosses as a VM scalar: one way per
        location in a call, the way of its first read or write (a Python float read, or
        written first, makes it one; a NumPy scalar written to it later follows:
        ``self.b = 0.0`` then ``self.b -= lr * np.mean(g)``)."""
        if not isinstance(value, Tensor) or value.shape or value.dtype.kind not in SCALAR_ABI_KINDS:
            return False
        return self.scalar_abi.setdefault(path, isinstance(value, Weak))

    def _typed(self, path: AccessPath, type_: str) -> None:
        known = self.types.setdefault(path, type_)
        if known != type_:
            raise NotConvertible(f"{self.labels[path]} changes type within one call ({known} -> {type_})")

    def any_length(self, ref: HeapRef) -> None:
        """Drop the length from the spec of a list the trace hands to Python at a segment
        boundary (a log appended to), unless the trace iterated it."""
        self._any_length(ref.path)

    def _any_length(self, path: AccessPath) -> None:
        spec = self.checks.get(path)
        if spec is not None and spec.length is not None and path not in self.lengths_used:
            self.checks[path] = dataclasses.replace(spec, length=None)

    # ---- appends onto heap lists --------------------------------------------------------
    def append(self, ref: HeapRef, value: Any) -> None:
        """``ref.append(value)`` onto a list on the heap (``self.X.append(X)``): deferred like a
        write, so committed after the call (all or nothing, in order) onto that very list, as
        the object Python would append (``HeapPlan.finish``: the caller's array for an
        argument, the heap's for a heap array, else a fresh array of the result; a Python
        scalar of the traced code as its type). Later reads of the list in the call see it."""
        if type(ref.obj) is not list or self.scope is not None or not self.at_root():
            raise NotConvertible(f"list.append() onto {ref.label} inside a data-dependent region or janus.grad function, "
                                 "or onto a list subclass")
        if not (isinstance(value, Tensor) and value.dtype.kind != "u" or type(value) in APPENDED_CONSTANTS):
            raise NotConvertible(f"appending a {getattr(value, 'dtype', type(value).__name__)} value to {ref.label}: "
                                 "only signed or float arrays and Python scalars are appended in a compiled call")
        self.appends.setdefault(ref.path, []).append(value)

    def append_marks(self) -> dict[AccessPath, int]:
        """How many values each heap list has had appended so far (``take_back_appends``)."""
        return {path: len(values) for path, values in self.appends.items()}

    def take_back_appends(self, marks: dict[AccessPath, int]) -> None:
        """Forget the appends made after ``marks`` (a callee whose trace failed: it runs in
        Python, appending itself; the list may have any length then, as at a boundary)."""
        for path in list(self.appends):
            if len(self.appends[path]) > marks.get(path, 0):
                self._any_length(path)
            del self.appends[path][marks.get(path, 0):]
            if not self.appends[path]:
                del self.appends[path]

    def appended(self) -> list[list[Any]]:
        """The values appended to heap lists so far (a place the trace's arrays are held)."""
        return list(self.appends.values())

    def list_length(self, ref: HeapRef) -> int:
        """``len`` of a heap list, appends of this call included; the version assumes its entry length."""
        self.lengths_used.add(ref.path)
        return len(ref.obj) + len(self.appends.get(ref.path, ()))

    def _appended_item(self, ref: HeapRef, key: Key) -> Any:
        """``ref[key]`` of a list appended to in this call: an appended value, or an entry item
        (where which one it is depends on the entry length, the version assumes that length)."""
        pending = self.appends[ref.path]
        if type(key) is not int:
            raise NotConvertible(f"indexing {ref.label} with a {type(key).__name__} after appending to it")
        if -len(pending) <= key < 0:
            return pending[key]
        index = key + self.list_length(ref) if key < 0 else key
        entry = len(ref.obj)
        if not 0 <= index < entry + len(pending):
            raise NotConvertible(f"index {key} is out of range for {ref.label} (Python raises IndexError)")
        return pending[index - entry] if index >= entry else self._read(ref, "item", index)

    def load_global(self, namespace: dict, name: str, value: Any) -> tuple[bool, Any]:
        """(handled, value) for ``LOAD_GLOBAL``: globals written in this trace and mutable ones
        (arrays, containers, objects) are heap reads; others are left to be baked in."""
        module = self.roots.get(("fixed", id(sys.modules.get(namespace.get("__name__", "")))))
        path = module.path.child("attr", name) if module is not None else None
        written = path in self.written or path in self.structures
        spec = spec_of(value)
        if written or spec is not None and spec.kind in ("array", "object"):
            return True, self.read(self._module(namespace), "attr", name)
        return False, None

    def store_global(self, namespace: dict, name: str, value: Any) -> None:
        self.write(self._module(namespace), "attr", name, value)

    def method(self, ref: HeapRef, name: str) -> Method | None:
        """The class attribute ``ref.name`` binds, when it is a plain, static or class method
        (the version assumes it stays that one)."""
        fn = method_of(ref.obj, name)
        if fn is not None:
            self.methods[(ref.path, name)] = fn
        return fn

    def inplace(self, symbol: str, a: Any, b: Any) -> Tensor | None:
        """``a op= b`` on an array read from the heap: NumPy updates that array, so the
        result is written back to its location (and into the very array at commit).
        None when ``a`` is not such an array."""
        path = self.owners.get(a.name) if isinstance(a, Tensor) else None
        if path is None:
            return self._argument_inplace(symbol, a, b)
        if self.values.get(path) is not a:
            return None
        label = self.labels[path]
        if any(_holds(v, a) for p, v in self.values.items() if p != path):
            raise NotConvertible(f"in-place {symbol} on {label}, which the traced code also refers to elsewhere")
        return self._update(path, a, self._inplace_result(symbol, a, b, label), f"in-place {symbol} on {label}")

    def _inplace_result(self, symbol: str, a: Tensor, b: Any, label: str) -> Tensor:
        """``a op b`` as NumPy's ``a op= b`` leaves ``a``: its shape, cast back to its dtype."""
        mutation.check_views(self.tracer, a, f"in-place {symbol} on {label}")
        result = self.tracer.binary(symbol[:-1], a, b)
        if not isinstance(result, Tensor) or result.shape != a.shape:
            raise NotConvertible(f"in-place {symbol} on {label} would change its shape")
        if result.dtype != a.dtype:
            if not np.can_cast(result.dtype, a.dtype, "same_kind"):
                raise NotConvertible(f"in-place {symbol} on {label} cannot cast {result.dtype} to {a.dtype}")
            result = op_table.cast(self.tracer.em, result, a.dtype)
        return result

    def _argument_inplace(self, symbol: str, a: Any, b: Any) -> Tensor | None:
        """``a op= b`` on an array the caller passed in (``for p, g in zip(params, grads): p -= lr * g``),
        as ``update_argument``. None when ``a`` is no such array."""
        leaf = self.argument_leaf(a)
        if leaf is None:
            return None
        result = self._inplace_result(symbol, a, b, f"the argument array {leaf}")
        self.update_argument(a, result, f"in-place {symbol}")
        return result

    def argument_leaf(self, a: Any) -> int | None:
        """The caller's argument array that ``a`` stands for (as passed, or as this call updated it), or None."""
        return self.argument_leaves.get(id(a)) if isinstance(a, Tensor) and not isinstance(a, Weak) else None

    def update_argument(self, a: Tensor, updated: Tensor, what: str) -> None:
        """``a``, an argument array (``argument_leaf``), becomes ``updated`` (``x -= g``, ``x[0] = 7``,
        ``np.add(x, 1, out=x)``): NumPy updates the caller's array, so the graph returns its last
        value and the call copies it into that array after the commit (``HeapPlan.argument_writes``).
        ``updated`` stays the caller's array, never a fresh local: a later write updates it the same way."""
        leaf = self.argument_leaves[id(a)]
        label = f"the argument array {leaf}"
        if not self.at_root() or self.scope is not None:
            raise NotConvertible(f"{what} on {label} inside a data-dependent branch, loop region or private function")
        if any(_holds(v, a) for v in self.values.values()):
            raise NotConvertible(f"{what} on {label}, which the heap also holds")
        mutation.check_views(self.tracer, a, f"{what} on {label}")
        mutation.substitute(self.tracer, a, updated, f"{what} on {label}")
        self.tracer.em.provenance.pop(updated, None)
        self.argument_leaves[id(updated)] = leaf  # returned later: the caller's very array, updated
        self.argument_updates[leaf] = updated

    def update_in_place(self, a: Any, updated: Callable[[str], Tensor], verb: str) -> bool:
        """A write into an array read from the heap (``W[i] -= g``, ``np.add.at(W, idx, g)``):
        ``updated(what)`` is the array after it, written back to its location and into the very
        array at commit. False when ``a`` is not such an array."""
        path = self.owners.get(a.name) if isinstance(a, Tensor) else None
        if path is None or self.values.get(path) is not a:
            return False
        what = f"{verb} on {self.labels[path]}"
        if any(_holds(v, a) for p, v in self.values.items() if p != path):
            raise NotConvertible(f"{what}, which the traced code also refers to elsewhere")
        mutation.check_views(self.tracer, a, what)
        self._update(path, a, updated(what), what)
        return True

    def _update(self, path: AccessPath, old: Tensor, new: Tensor, what: str) -> Tensor:
        """``new`` in the place of ``old``, the array at ``path``, updated in place at commit."""
        mutation.substitute(self.tracer, old, new, what)  # ``param -= g`` in a loop
        self.owners[new.name] = path
        self.mutated[path] = None
        self.write(*self.parents[path], new)
        return new

    # ---- the result -------------------------------------------------------------------
    def structure_outputs(self, output: Callable[[Tensor], int]) -> None:
        """Append the leaves of every tuple/list/dict written to the heap to the function's results."""
        for path in self.structures:  # ``HeapPlan.finish`` reads plain writes back by path, after the new list is stored
            if any(p.steps[: len(path.steps)] == path.steps and p != path for p in (*self.written, *self.mutated)
                   if p.slot == path.slot):
                raise NotConvertible(f"{self.labels[path]} is replaced after an item of it was written")
        seen: set[int] = set()
        for path, value in self.structures.items():  # the commit builds each container once per place it is in
            for held in heap_struct.containers(value):
                if id(held) in seen:
                    raise NotConvertible(f"{self.labels[path]} holds a {type(held).__name__} that is stored in two places "
                                         "(Python keeps one object; the commit would build two)")
                seen.add(id(held))
        constants: dict[int, Tensor] = {}  # one graph constant per made array: one object in each place it is

        def constant(array: Any) -> Tensor | None:
            if not self._made(array):
                return None
            if id(array) not in constants:
                constants[id(array)] = self.tracer.em.literal(array)
            return constants[id(array)]

        self.layouts = {p: heap_struct.layout(v, output, self.labels[p], constant) for p, v in self.structures.items()}
        self.append_results = tuple((path, output(v), v.python_type if isinstance(v, Weak) else None, None)
                                    if isinstance(v, Tensor) else (path, None, None, v)
                                    for path, values in self.appends.items() for v in values)
        for path in self.appends:  # a list of any length will do, unless the trace used its length
            self._any_length(path)

    def plan(self, inputs: list[Tensor], outputs: list[Tensor]) -> HeapPlan | None:
        """What each call must check and commit beyond the runtime's manifest; None without heap access."""
        if not self.sources and not self.argument_updates:
            return None
        arguments = {t.name: i for i, t in enumerate(inputs)}
        return HeapPlan(
            sources=tuple(self.sources),
            checks=tuple(self.checks.items()),
            methods=tuple((path, name, fn) for (path, name), fn in self.methods.items()),
            writes=tuple((path, t.name) for path, t in self.written.items()),
            owners=dict(self.owners),
            arguments=arguments,
            mutated=tuple(self.mutated),
            outputs=tuple(t.name for t in outputs),
            labels=dict(self.labels),
            structures=tuple(self.layouts.items()),
            appends=self.append_results,
            scalars=tuple((path, t.python_type if isinstance(t, Weak) else t.dtype.type) for path, t in self.written.items()
                          if isinstance(t, Weak) or isinstance(t, Tensor) and self.scalar_abi.get(path) and not t.shape),
            aliases=tuple(self.aliases.items()),
            argument_writes=tuple((leaf, t.name) for leaf, t in self.argument_updates.items()),
            fresh=frozenset(t.name for t in self.written.values()
                            if t.shape and t.name not in self.owners and t.name not in arguments),
        )


def _leaves(value: Any) -> list[Tensor]:
    """The tensors of a value written to the heap (a tensor, or a tuple, list or dict of them)."""
    if isinstance(value, Tensor):
        return [value]
    return [t for item in heap_struct.items(value) for t in _leaves(item)] if type(value) in heap_struct.CONTAINERS else []
