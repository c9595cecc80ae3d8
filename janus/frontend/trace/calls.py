"""Calls in the trace: op-table functions, inlined Python functions and methods, pure
builtins (those taking traced values or callables in ``builtin_calls``), attributes of
non-heap objects (a module's are its globals, guarded as such), and iteration over static values."""

from __future__ import annotations

import functools
import inspect
import types
from typing import Any

import numpy as np

from janus.frontend.heap.access import HeapRef, holds_ref
from janus.frontend.heap.rules import CONTAINERS, DICTS, PARTIAL_PARTS, bind, spec_of
from janus.frontend.ops import mutation, registry
from janus.frontend.recursion import results as recursion_results
from janus.frontend.recursion import trees
from janus.frontend.trace import builtin_calls, exceptions, generators, loops, scalars, supercall
from janus.frontend.trace.branches import SymFunction
from janus.frontend.trace.split import HostMethod, host_method
from janus.frontend.trace.frame import LOCAL_CONTAINERS, MUTATORS, NULL, ArgumentList, BoundTensorMethod, bind_arguments
from janus.frontend.values import NotConvertible, Tensor, contains_tensor, hashable

#: builtins that only rearrange their arguments, safe on graph values inside containers
STRUCTURAL_BUILTINS = {len, list, tuple, zip, enumerate, reversed}
#: structural builtins that iterate their arguments: an array argument is its rows
ITERATING_BUILTINS = {list, tuple, zip, enumerate, reversed}
#: builtins that are pure on static values
PURE_BUILTINS = STRUCTURAL_BUILTINS | {range, min, max, abs, int, float, bool, slice, round, divmod, sorted, all,
                                       any, set, frozenset, str}
#: globals and module attributes baked into the graph (guarded by identity, ``GLOBAL_ID``)
#: globals baked into the graph (guarded by identity at entry); ``type(np.stack)``: NumPy's dispatching
#: functions imported by name (``from numpy.linalg import solve``)
BAKED = (types.ModuleType, types.FunctionType, types.BuiltinFunctionType, type, np.ufunc, type(np.stack), bool, int, float, str,
         type(None))


class Calls:
    """The ``Tracer``'s calls, attribute reads and iteration (a mixin)."""

    def fold(self, op: registry.Op, args: list[Any], kwargs: dict[str, Any]) -> Any:
        """``op`` on static values: NumPy's result."""
        return self.local_result(op.eager(*args, **kwargs), [*args, *kwargs.values()])

    def local_result(self, result: Any, sources: list[Any]) -> Any:
        """``result`` of a call on static ``sources``: a new array that owns its memory is local to the trace."""
        if isinstance(result, np.ndarray) and result.base is None and not any(result is a for a in sources):
            self.local_arrays[id(result)] = result
        return result

    def call(self, fn: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
        trace = getattr(fn, "janus_trace", None)
        if trace is not None:  # a callable that traces its own calls (janus.grad and what it returns)
            return trace(self, args, kwargs)
        if fn is super and not args and not kwargs:
            return supercall.make(self.frames[-1])
        special = loops.call(self, fn, args, kwargs)
        if special is not loops.NOT_HANDLED:
            return special
        traced = contains_tensor(args) or contains_tensor(kwargs)
        if isinstance(fn, HostMethod) and fn.name == "append" and isinstance(fn.obj, HeapRef) and len(args) == 1 and not kwargs:
            return self.heap.append(fn.obj, args[0])  # committed after the call, onto that very list
        if isinstance(fn, HostMethod):
            raise NotConvertible(f"{fn.describe()}() is a method of a host object (it runs in Python)")
        if isinstance(fn, BoundTensorMethod) and fn.name in mutation.ARRAY_MUTATORS or _local_array_mutator(self, fn):
            receiver, name = (fn.receiver, fn.name) if isinstance(fn, BoundTensorMethod) else (fn.__self__, fn.__name__)
            return mutation.ARRAY_MUTATORS[name](self, receiver, args, kwargs)
        if isinstance(fn, BoundTensorMethod):
            if fn.name not in registry.METHODS:
                raise NotConvertible(f"array method .{fn.name}() is not in the op table")
            op, bind = registry.METHODS[fn.name]
            return registry.apply(self.em, op, [fn.receiver, *args], kwargs, bind, getattr(np.ndarray, fn.name, None))
        if isinstance(fn, types.MethodType):  # a bound Python method: its function, self first
            return self.call(fn.__func__, [fn.__self__, *args], kwargs)
        if isinstance(fn, HeapRef) and type(fn.obj) is functools.partial:  # one kept in an attribute
            return self.call(*self.heap_partial(fn, args, kwargs))
        call = self.heap.method(fn, "__call__") if isinstance(fn, HeapRef) else None
        if type(call) is types.FunctionType:  # a layer object called (``layer(x)``): its class's ``__call__``
            return self.call(call, [fn, *args], kwargs)
        partial = builtin_calls.unwrap_partial(fn, args, kwargs)
        if partial is not None:
            return self.call(*partial)
        if hashable(fn) and fn in builtin_calls.HANDLERS:
            return builtin_calls.HANDLERS[fn](self, args, kwargs)
        if isinstance(fn, trees.BoundNodeMethod):
            return self.call(fn.function, [fn.node, *args], kwargs)
        if isinstance(fn, SymFunction):
            return self.inline(fn.code, fn.globals, fn.defaults, fn.kwdefaults, fn.closure, args, kwargs, made=True)
        if isinstance(fn, types.FunctionType) and not fn.__module__.startswith("numpy"):
            closure = self.heap.closure(fn) if fn.__closure__ else ()
            return self.inline(fn.__code__, fn.__globals__, fn.__defaults__ or (), fn.__kwdefaults__ or {}, closure, args, kwargs)
        if hashable(fn) and fn in STRUCTURAL_BUILTINS and any(map(_heap_container, args)):
            return self.structural_on_heap(fn, args, kwargs)
        if (holds_ref(args) or holds_ref(kwargs)) and not _regrouped(fn, args, kwargs):
            raise NotConvertible(f"a heap object is passed to {getattr(fn, '__qualname__', type(fn).__name__)} (only inlined code may use it)")
        if hashable(fn) and fn in mutation.NUMPY_MUTATORS:
            return mutation.NUMPY_MUTATORS[fn](self, args, kwargs)
        op = registry.BY_FUNCTION.get(fn) if hashable(fn) else None
        writes_out = kwargs.get("out") is not None and (traced or mutation.symbolic_region(self))
        if op is not None and writes_out and accepts_out(op):  # in a loop body: written on every iteration
            return mutation.with_out(self, op, args, kwargs)
        if op is not None:
            return registry.apply(self.em, op, args, kwargs) if traced else self.fold(op, args, kwargs)
        folded = builtin_calls.folded(fn, args, kwargs, traced)
        if folded is NULL:
            folded = builtin_calls.static_method_call(fn, args, kwargs, traced, registry.METHODS)
            self.local_result(folded, [getattr(fn, "__self__", None), *args, *kwargs.values()])
        if folded is not NULL:
            return folded
        if fn is abs and traced:
            return registry.apply(self.em, registry.OPS["absolute"], args, kwargs)
        if hashable(fn) and fn in PURE_BUILTINS and (not traced or fn in STRUCTURAL_BUILTINS):
            recursion_results.check_usable(*args)
            builtin_calls.refuse_python_callables(fn, args, kwargs)
            if fn is len and args and isinstance(args[0], Tensor):
                return scalars.array_length(self.em, args[0])
            if fn is len and args and isinstance(args[0], trees.SymChildren):
                return trees.length(self, args[0])
            if fn in ITERATING_BUILTINS:
                args = [self.iterate(a) if isinstance(a, (Tensor, trees.SymChildren)) else a for a in args]
            result = fn(*args, **kwargs)
            generators.check_consumed(args, fn.__name__)
            return result
        if hashable(fn) and fn in PURE_BUILTINS:
            raise NotConvertible(f"{fn.__name__}() of array values (a Python builtin: its result would depend on their values)")
        if isinstance(fn, type) and issubclass(fn, np.generic) and not traced:
            return fn(*args, **kwargs)
        if isinstance(fn, types.BuiltinMethodType) and isinstance(fn.__self__, LOCAL_CONTAINERS):
            return fn(*args, **kwargs)
        if isinstance(fn, type) and builtin_calls.record_type(fn) is not None:  # only stores its fields
            return fn(*args, **kwargs)
        made = exceptions.construct(fn, args, kwargs) if isinstance(fn, type) else None
        if made is not None:
            if exceptions.is_made_manager(made):  # a boundary may enter it in Python (``split.end_with``)
                self.local_arrays[id(made)] = made
            return made
        name = getattr(fn, "__qualname__", type(fn).__name__)
        raise NotConvertible(f"call to {name} is not supported (not in the op table, not inlinable)")

    def inline(
        self, code: types.CodeType, globals_: dict, defaults: tuple, kwdefaults: dict, closure: tuple, args: list, kwargs: dict,
        made: bool = False
    ) -> Any:
        """Run a callee's bytecode with its arguments bound as CPython would; a callee
        already being traced (recursion) is invoked instead (see ``recursion``); ``made``: a
        function the trace made (a lambda, an inner function, a generator expression)."""
        bound = bind_arguments(code, defaults, kwdefaults, args, kwargs)
        if code in self.active and not (closure and self.recursion.outside(code)):
            return self.recursion.invoke(code, globals_, closure, bound)
        return self.run(code, globals_, bound, closure, made)


    def attribute(self, obj: Any, name: str) -> Any:
        if isinstance(obj, trees.SymNode):
            return trees.attribute(self, obj, name)
        if isinstance(obj, supercall.SymSuper):
            return obj.attribute(self, name)
        view = DictView.of(obj, name)
        if view is not None:
            return view
        if isinstance(obj, HeapRef):
            method = self.heap.method(obj, name)  # ``self.loss`` passed along (to janus.grad): bound here
            if type(method) is property:  # its getter inlined (the version assumes the class keeps it)
                return self.call(method.fget, [obj], {})
            if method is not None:
                return bind(method, obj.obj, obj)
            host = host_method(obj, name)  # a C method (a file's ``__exit__``): called, a segment boundary
            return host if host is not None else self.heap.read(obj, "attr", name)
        if isinstance(obj, Tensor):
            if name == "T":
                return registry.apply(self.em, registry.OPS["transpose"], [obj], {})
            if name in ("ndim", "size"):
                return getattr(obj, name)
            if name == "shape":
                return scalars.array_shape(self.em, obj)
            if name == "dtype":
                return obj.dtype
            raise NotConvertible(f"array attribute .{name} is not supported")
        if isinstance(obj, types.ModuleType) and obj.__name__.split(".")[0] == "numpy":  # NumPy's namespace: fixed
            return getattr(obj, name)
        if isinstance(obj, types.ModuleType):  # a global of that module, guarded as one
            return self.global_value(vars(obj), name, vars(obj).get(name, NULL), f"{obj.__name__}.{name}")
        if builtin_calls.is_record(obj):
            return builtin_calls.record_attribute(self, obj, name)
        if isinstance(obj, ArgumentList) and name in MUTATORS:
            raise NotConvertible(f".{name}() on a list argument (a heap write)")
        if isinstance(obj, LOCAL_CONTAINERS):  # their methods
            return getattr(obj, name)
        if obj is np.add and name == "at":
            return mutation.ADD_AT
        if isinstance(obj, np.ufunc) and name in ("reduce", "accumulate", "outer"):  # NumPy's own, fixed: the op
            return getattr(obj, name)  # table has the ones it compiles, a call to another is a boundary
        if isinstance(obj, (np.ndarray, np.generic, np.dtype, np.finfo, np.iinfo, int, float, complex)):  # finfo/iinfo: constants
            return getattr(obj, name)
        raise NotConvertible(f"attribute .{name} of a {type(obj).__name__} (object attributes need heap ops)")

    def global_value(self, namespace: dict, name: str, value: Any, label: str) -> Any:
        """``value`` (NULL: unbound) of global ``name`` of ``namespace`` as the graph uses it: arrays,
        containers, objects and globals this trace wrote are heap reads; modules, functions,
        classes and constants are baked in, guarded by identity at entry."""
        traces_itself = hasattr(value, "janus_trace")  # jit and grad functions: baked in
        handled, heap_value = (False, None) if traces_itself else self.heap.load_global(namespace, name, value)
        if handled:
            return heap_value
        if value is NULL:
            raise NotConvertible(f"{label} is not defined")
        if not (traces_itself or isinstance(value, BAKED)):
            raise NotConvertible(f"{label} is a {type(value).__name__} (reading mutable globals needs heap ops)")
        self.globals_read[(id(namespace), name)] = (namespace, name, value)
        return value

    def iterate(self, value: Any) -> list[Any]:
        """The items a Python loop over ``value`` sees (rows, for an array)."""
        if isinstance(value, Tensor):
            if value.ndim == 0:
                raise NotConvertible("iteration over a 0-d array")
            return [registry.apply(self.em, registry.OPS["getitem"], [value, i], {}) for i in range(value.static_shape()[0])]
        if isinstance(value, trees.SymChildren):
            return trees.children_items(self, value)
        if isinstance(value, HeapRef) and type(value.obj) in (list, tuple):  # its length is part of its spec
            return [self.heap.read(value, "item", i) for i in range(self.heap.list_length(value))]
        if isinstance(value, HeapRef) and type(value.obj) in DICTS:  # its keys, which the version then assumes
            return self.heap.dict_keys(value)
        try:
            return list(value)
        except TypeError as e:
            raise NotConvertible(f"iteration: {e}") from None


    def heap_partial(self, ref: HeapRef, args: list[Any], kwargs: dict[str, Any]) -> tuple[Any, list, dict]:
        """(function, args, kwargs) of a call of the heap ``functools.partial`` ``ref``: its
        function, arguments and keywords read as heap locations (checked on every call)."""
        func, bound, keywords = (self.heap.read(ref, "attr", part) for part in PARTIAL_PARTS)
        named = {k: self.heap.read(keywords, "item", k) for k in self.heap.dict_keys(keywords)}
        return func, [*self.iterate(bound), *args], {**named, **kwargs}

    def structural_on_heap(self, fn: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
        """``len``, ``zip``, ``enumerate``, ... of heap lists, tuples and dicts: their lengths
        and keys, which the version then assumes (a dict's keys, a list's length)."""
        if fn is len and len(args) == 1 and not kwargs:
            ref = args[0]
            if type(ref.obj) in DICTS:
                return len(self.heap.dict_keys(ref))
            return self.heap.list_length(ref)
        items = [self.iterate(a) if _heap_container(a) or isinstance(a, (Tensor, trees.SymChildren)) else a for a in args]
        result = fn(*items, **kwargs)
        generators.check_consumed(items, fn.__name__)
        return result


def _heap_container(value: Any) -> bool:
    """Whether ``value`` is a heap dict (its keys), or a heap list or tuple of a model's
    structure: not empty, every item an array or an object (layers, weights), read as
    locations. A list of Python scalars (a log of rewards) is not: its length and values
    change from call to call, and a version would assume them all (it runs in Python)."""
    if not isinstance(value, HeapRef) or type(value.obj) not in CONTAINERS:
        return False
    if type(value.obj) in DICTS:
        return True
    return bool(value.obj) and all(getattr(spec_of(item), "kind", None) in ("array", "object") for item in value.obj)


class DictView:
    """``d.keys()``, ``d.values()`` or ``d.items()`` of a heap dict: lists of its keys (which
    the version then assumes, ``HeapTracker.dict_keys``) and of its items read as locations;
    ``d.get(key, default)``: the item read as ``d[key]`` is (its presence checked on entry),
    or the default where the key is absent (the version assumes the keys)."""

    KINDS = ("keys", "values", "items", "get")

    def __init__(self, ref: HeapRef, kind: str) -> None:
        self.ref, self.kind = ref, kind

    @classmethod
    def of(cls, obj: Any, name: str) -> "DictView | None":
        """``obj.name`` as a ``DictView``, or None when it is not one."""
        return cls(obj, name) if isinstance(obj, HeapRef) and type(obj.obj) in DICTS and name in cls.KINDS else None

    def janus_trace(self, tracer: Any, args: list, kwargs: dict) -> Any:
        if self.kind == "get":
            return self._get(tracer, *args, **kwargs)
        if args or kwargs:
            raise NotConvertible(f"dict.{self.kind}() takes no arguments")
        keys = tracer.heap.dict_keys(self.ref)
        if self.kind == "keys":
            return keys
        values = [tracer.heap.read(self.ref, "item", k) for k in keys]
        return values if self.kind == "values" else list(zip(keys, values))

    def _get(self, tracer: Any, key: Any, default: Any = None) -> Any:
        if not hashable(key) or contains_tensor(key):
            raise NotConvertible("dict.get() of a key computed from arrays")
        if key in self.ref.obj:
            return tracer.heap.read(self.ref, "item", key)
        tracer.heap.dict_keys(self.ref)
        return default


def _regrouped(fn: Any, args: list[Any], kwargs: dict[str, Any]) -> bool:
    """Whether ``fn`` only regroups the items of lists and tuples of the trace (``list``,
    ``reversed``, ``zip``... of ``[self.fc1, self.fc2]``): the heap objects in them are
    passed along, never used."""
    return hashable(fn) and fn in STRUCTURAL_BUILTINS and not kwargs and all(type(a) in (list, tuple) for a in args)


def _local_array_mutator(tracer: Any, fn: Any) -> bool:
    """Whether ``fn`` is an in-place method (``.fill``, ``.sort``) of a NumPy array the trace made."""
    receiver = getattr(fn, "__self__", None)
    return (isinstance(fn, types.BuiltinMethodType) and fn.__name__ in mutation.ARRAY_MUTATORS
            and tracer.local_arrays.get(id(receiver)) is receiver)


def accepts_out(op: registry.Op) -> bool:
    """Whether NumPy's function takes ``out=`` (a ufunc, or a parameter of that name)."""
    if isinstance(op.eager, np.ufunc):
        return True
    try:
        return "out" in inspect.signature(op.eager).parameters
    except (TypeError, ValueError):
        return False
