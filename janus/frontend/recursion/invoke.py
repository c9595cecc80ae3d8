"""Recursive calls: ``janus.invoke`` of functions traced once with generalized parameters.

The graph generator inlines user functions; a call to a function whose code is already
being traced (direct or mutual recursion) is instead emitted as ``janus.invoke`` of a
private ``func.func`` generated for that code and the *kinds* of its arguments. A kind
never holds a per-level value: Python ints, floats and bools become ``Weak`` scalars,
0-d arrays scalars, arrays keep dtype and shape (``?`` dims stay ``?``), tree nodes
(``trees.SymNode``) become an int64 id plus the tree's arrays (the node's class a constant); only functions, modules,
types, strings and ``None`` stay constants. So each (code, kinds) is traced once, its own
recursive calls find it, and ``janus-eliminate-recursion`` turns the cycle into a loop
over an explicit, depth-guarded stack.

The result type comes from the profile (what the code returned on profiled runs, one
kind only, tuples looked into: ``recursion_results``); every ``return`` of the generated
function is checked against it and a Python scalar is made a ``Weak`` of that type, so
``return 1`` joins ``return fib(n-1) + ...``. A tuple result is several MLIR results.
Scalars cross function boundaries as MLIR scalars (not 0-d tensors): the explicit stack
then saves them in ``util.list`` slots instead of buffers.
"""

from __future__ import annotations

import re
import types
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from janus.dialects import InvokeOp
from janus.frontend.trace.branches import SymFunction
from janus.frontend.emitter import Emitter, function_text
from janus.frontend.heap.access import HeapRef
from janus.frontend.recursion import results, threaded
from janus.frontend.recursion.heap_state import RecursionHeap, extra_operands
from janus.frontend.trace.scalars import PYTHON_DTYPES, weak_literal
from janus.frontend.recursion.trees import SymNode, TreeKind, bind_tree
from janus.frontend.values import ELEMENT_TYPES, NotConvertible, Tensor, Weak, tensor_type

if TYPE_CHECKING:
    from janus.frontend.trace.interpreter import Tracer

#: generated functions per module; a recursion that keeps changing its constant
#: arguments (each a new specialization) stops here
MAX_FUNCTIONS = 16
#: argument values that stay constants of the generated function
STATIC = (type(None), str, bytes, types.FunctionType, types.BuiltinFunctionType, types.ModuleType, type, np.ufunc)

# Kinds: ("scalar", dtype, weak) | ("tensor", dtype, shape with "?") | ("node", TreeKind, class index) | ("static", value)
#        | ("heap", access path): a heap object, passed unchanged (``recursion_heap``)
#        | ("threaded", keys, tensor kinds): a dict of arrays updated in place (``threaded``)
Kind = tuple


@dataclass(frozen=True)
class Slot:
    """A function parameter or result: SSA name and MLIR type."""

    name: str
    type: str


@dataclass(frozen=True)
class Generated:
    name: str
    result: Kind


def kind_of(value: Any) -> Kind:
    """The kind of a recursive call's argument (what the generated function assumes)."""
    if isinstance(value, SymNode):
        return ("node", value.tree.kind, value.layout)
    if isinstance(value, HeapRef):
        return ("heap", value.path)
    if threaded.is_threaded(value):
        return threaded.kind_of(value, kind_of)
    if isinstance(value, Tensor):
        if not value.shape:
            return ("scalar", value.dtype.name, isinstance(value, Weak))
        return ("tensor", value.dtype.name, tuple("?" if isinstance(d, str) else d for d in value.shape))
    if type(value) in PYTHON_DTYPES:
        return ("scalar", PYTHON_DTYPES[type(value)].name, True)
    if isinstance(value, np.generic) and value.dtype.name in ELEMENT_TYPES:
        return ("scalar", value.dtype.name, False)
    if isinstance(value, STATIC) or isinstance(value, SymFunction) and not value.closure:
        return ("static", value)
    raise NotConvertible(f"a {type(value).__name__} argument of a recursive call is not supported")


def types_of(kind: Kind) -> list[str]:
    """The MLIR types a value of ``kind`` is passed as."""
    if kind[0] == "scalar":
        return [ELEMENT_TYPES[kind[1]]]
    if kind[0] == "tensor":
        return [tensor_type(kind[2], np.dtype(kind[1]))]
    if kind[0] == "node":
        return ["i64", *(tensor_type(("?", *c.shape), c.dtype) for c in kind[1].columns())]
    if kind[0] == "threaded":
        return [t for item in kind[2] for t in types_of(item)]
    return []


def threaded_leaves(kinds: tuple[Kind, ...]) -> list[Kind]:
    """The kinds of the extra results that return the threaded dicts' arrays."""
    return [item for kind in kinds if kind[0] == "threaded" for item in kind[2]]


class Recursion:
    """The generated functions of one module, and the ``janus.invoke``s that call them."""

    def __init__(self, tracer: "Tracer") -> None:
        self.tracer = tracer
        self.generated: dict[tuple, Generated] = {}
        #: trace depth of a generated function's own frames -> its result kind
        self.returning: dict[int, Kind] = {}
        #: per generated function, the heap locations passed as its extra parameters
        self.heap_reads: dict[str, list] = {}
        #: per generated function, the (argument index, key) of threaded arrays it updates
        self.updates: dict[str, set[tuple[int, Any]]] = {}
        self.tracing: dict[str, RecursionHeap] = {}  # generated functions still being traced
        #: for each generated function being traced, how many codes were active when it began
        self.bases: list[int] = []

    def outside(self, code: types.CodeType) -> bool:
        """Whether ``code`` is active only outside the generated function being traced: a
        comprehension or inner function (a closure) of the caller, such as the generator
        expression of ``sum(f(c) for c in node.children)``, inlined again inside ``f``'s body."""
        return bool(self.bases) and code not in self.tracer.active[self.bases[-1]:]

    def invoke(self, code: types.CodeType, globals_: dict, closure: tuple, bound: dict[str, Any]) -> Any:
        """``janus.invoke`` of the function generated for ``code`` on ``bound``'s kinds."""
        if closure:
            raise NotConvertible(f"recursive call to {code.co_name}, a closure")
        em = self.tracer.em
        for v in bound.values():
            if threaded.is_threaded(v):
                threaded.make_local(self.tracer, v)
        bound = {k: em.literal(v) if isinstance(v, np.ndarray) else v for k, v in bound.items()}
        if any(isinstance(v, SymNode) and v.tree.written for v in bound.values()):
            raise NotConvertible(f"a recursive call ({code.co_name}) on a tree whose node attributes this call writes "
                                 "(node writes compile outside recursive functions only)")
        kinds = tuple(kind_of(v) for v in bound.values())
        threaded.check_distinct(list(bound.values()), kinds)
        fn = self.generated.get((code, kinds)) or self.generate(code, globals_, bound, kinds)
        operands = [name for value, kind in zip(bound.values(), kinds) for name in self.operands(value, kind)]
        extra, extra_types = extra_operands(self.tracer, self.tracing.get(fn.name), self.heap_reads.get(fn.name, []))
        if fn.name in self.tracing:  # placeholders for the heap parameters, known when the function is finished
            em.types.update(zip(extra, extra_types))
        operands += extra
        arg_types = [t for kind in kinds for t in types_of(kind)] + extra_types
        leaves, extra_leaves = results.leaves(fn.result), threaded_leaves(kinds)
        name = em.janus(InvokeOp, {"arguments": list(zip(operands, arg_types))}, {"callee": fn.name},
                        [types_of(k)[0] for k in leaves + extra_leaves])
        count = len(leaves) + len(extra_leaves)
        names = [f"{name}#{i}" for i in range(count)] if count > 1 else [name]
        value = results.rebuild(fn.result, (self.value(em, n, k) for n, k in zip(names, leaves)))
        updated = iter(self.value(em, n, k) for n, k in zip(names[len(leaves):], extra_leaves))
        updates = None if fn.name in self.tracing else self.updates[fn.name]
        for i, (arg, kind) in enumerate(zip(bound.values(), kinds)):
            if kind[0] == "threaded":
                new = [next(updated) for _ in kind[1]]
                threaded.commit(self.tracer, arg, new, None if updates is None else {k for j, k in updates if j == i})
        return value

    def returned(self, value: Any, code: types.CodeType) -> Any:
        """A ``return`` in a generated function's own frame gives its declared result kind;
        one in another frame of a recursive function drops its varying positions."""
        kind = self.returning.get(self.tracer.depth)
        if kind is not None:
            return results.coerce(value, kind, self.coerce)
        profile = self.tracer.profile
        if code in profile.returns and any(site[0] is code and code in callees for site, callees in profile.callees.items()):
            return results.drop_varying(value, results.structure(list(profile.returns[code])))
        return value

    # ---- generation -----------------------------------------------------------------------
    def generate(self, code: types.CodeType, globals_: dict, bound: dict[str, Any], kinds: tuple[Kind, ...]) -> Generated:
        if len(self.generated) >= MAX_FUNCTIONS:
            raise NotConvertible(f"more than {MAX_FUNCTIONS} specializations of recursive functions")
        tracer = self.tracer
        name = re.sub(r"\W", "_", code.co_name)
        fn = Generated(f"{name}_rec{len(self.generated)}", results.merge(list(tracer.profile.returns.get(code, ()))))
        if not results.leaves(fn.result) and not threaded_leaves(kinds):
            raise NotConvertible(f"a recursive function ({code.co_name}) returning no array or scalar (and "
                                 "updating no dict of arrays it is passed) is not supported")
        self.generated[(code, kinds)] = fn  # before tracing: its own recursive calls find it
        outer = tracer.em
        em = tracer.em = outer.sibling()
        try:
            params: list[Slot] = []
            arguments = {name: self.parameter(em, kind, value, params) for (name, value), kind in zip(bound.items(), kinds)}
            heap = self.tracing[fn.name] = tracer.heap.scope = RecursionHeap(tracer, fn.name, outer, len(params))
            depth = tracer.depth + 1
            self.returning[depth] = fn.result
            threads = {i: (arg, dict(arguments[arg])) for i, (arg, kind) in enumerate(zip(bound, kinds))
                       if kind[0] == "threaded"}  # each threaded dict's parameters
            self.bases.append(len(tracer.active))
            try:
                value = tracer.run(code, globals_, arguments)
                flat = results.flatten(value, fn.result)
                returned = [Slot(em.scalar(v), types_of(k)[0]) if k[0] == "scalar" else Slot(v.name, v.type)
                            for v, k in zip(flat, results.leaves(fn.result))]
                self.updates[fn.name] = set()
                for i, (arg, first) in threads.items():
                    finals = threaded.finals(em, kinds[i], first, arguments[arg], flat)
                    returned += [Slot(v.name, v.type) for v in finals]
                    self.updates[fn.name] |= {(i, key) for key, v in zip(first, finals) if v is not first[key]}
            finally:
                self.bases.pop()
                del self.returning[depth], self.tracing[fn.name]
                tracer.heap.scope = heap.enclosing
            params += [Slot(t.name, t.type) for t in heap.parameters()]
            self.heap_reads[fn.name] = heap.reads
            text = function_text(fn.name, params, returned, em.function_lines(), private=True)  # type: ignore[list-item]
            tracer.functions.append(heap.finish(text, tracer.functions))
        finally:
            tracer.em = outer
        return fn

    def parameter(self, em: Emitter, kind: Kind, value: Any, params: list[Slot]) -> Any:
        """The traced value of a parameter of ``kind``, appending its slots to ``params``."""
        slots = [Slot(f"%arg{len(params) + i}", t) for i, t in enumerate(types_of(kind))]
        params.extend(slots)
        em.types.update((slot.name, slot.type) for slot in slots)
        if kind[0] in ("static", "heap"):
            return value
        if kind[0] == "threaded":
            return threaded.parameters(em, kind, [slot.name for slot in slots], self.value)
        if kind[0] != "node":
            return self.value(em, slots[0].name, kind)
        tree_kind: TreeKind = kind[1]
        tree = bind_tree(em, tree_kind, [slot.name for slot in slots[1:]], f"tree{slots[0].name}")
        return SymNode(tree, em.from_scalar(slots[0].name, np.dtype(np.int64)), kind[2])

    def value(self, em: Emitter, name: str, kind: Kind) -> Tensor:
        """The traced value of an SSA value ``name`` passed as ``kind`` (scalar or tensor)."""
        if kind[0] == "scalar":
            return em.from_scalar(name, np.dtype(kind[1]), Weak if kind[2] else Tensor)
        shape = tuple(f"{name}.{d}" if size == "?" else size for d, size in enumerate(kind[2]))
        tensor = Tensor(name, shape, np.dtype(kind[1]))
        for d, size in enumerate(shape):
            if isinstance(size, str):
                em.bind_dim(size, tensor, d)
        return tensor

    def operands(self, value: Any, kind: Kind) -> list[str]:
        """SSA names passing ``value`` as ``kind``."""
        em = self.tracer.em
        if kind[0] in ("static", "heap"):
            return []
        if kind[0] == "node":
            return [em.scalar(value.id), *(value.tree.arrays[c.key].name for c in value.tree.kind.columns())]
        if kind[0] == "threaded":
            return [value[key].name for key in kind[1]]
        if kind[0] == "scalar" and not isinstance(value, Tensor):
            value = weak_literal(em, value) if kind[2] else em.literal(np.asarray(value))
        return [em.scalar(value) if kind[0] == "scalar" else value.name]

    def coerce(self, value: Any, kind: Kind) -> Tensor:
        """``value`` as a value of ``kind``, or NotConvertible when it is another kind."""
        em = self.tracer.em
        if type(value) in PYTHON_DTYPES and kind[0] == "scalar" and kind[2] and PYTHON_DTYPES[type(value)].name == kind[1]:
            return weak_literal(em, value)
        if isinstance(value, (np.ndarray, np.generic)) and type(value) not in PYTHON_DTYPES:
            value = em.literal(value)
        if isinstance(value, Tensor) and value.dtype.name == kind[1]:
            if kind[0] == "scalar" and not value.shape and isinstance(value, Weak) == kind[2]:
                return value
            if kind[0] == "tensor" and not isinstance(value, Weak) and _fits(value.shape, kind[2]):
                if tensor_type(kind[2], value.dtype) == value.type:
                    return value
                return self.value(em, em.cast(value, kind[2]).name, kind)
        raise NotConvertible(f"a recursive function returned a {_describe(value)} where the profile saw {_describe_kind(kind)}")


def _fits(shape: tuple, kind_shape: tuple) -> bool:
    return len(shape) == len(kind_shape) and all(k == "?" or s == k for s, k in zip(shape, kind_shape))


def _describe(value: Any) -> str:
    return value.type if isinstance(value, Tensor) else type(value).__name__


def _describe_kind(kind: Kind) -> str:
    if kind[0] == "scalar":
        return f"a Python {kind[1]}" if kind[2] else f"a {kind[1]} scalar"
    return tensor_type(kind[2], np.dtype(kind[1]))


#: Passes a module with generated functions runs first: the 0-d tensors that scalars pass
#: through fold back to scalars before ``janus-eliminate-recursion`` decides what each stack
#: frame saves (a scalar slot, not a buffer).
SIMPLIFY = ("canonicalize", "cse")
