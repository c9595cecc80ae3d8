"""Builtins and library functions whose arguments may hold traced values or traced
callables, so the trace runs them itself (one handler each, in ``HANDLERS``); what the
structural and pure builtins do on static values is plain Python (``calls``)."""

from __future__ import annotations

import collections
import dataclasses
import functools
import inspect
import math
import operator
import types
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

import numpy as np

from janus.frontend.heap.access import HeapRef
from janus.frontend.ops import registry
from janus.frontend.trace import array_meta, generators, math_calls
from janus.frontend.trace.branches import SymFunction
from janus.frontend.trace.frame import NULL, local_dict
from janus.frontend.values import NotConvertible, Tensor, Weak, contains_tensor

if TYPE_CHECKING:
    from janus.frontend.trace.interpreter import Tracer

#: modules of pure functions: folded on static values; on traced values refused, with why
FOLDED_MODULES: dict[types.ModuleType, str] = {
    math: "math.{name} on an array value (math raises where NumPy gives nan/inf: use np.{name})",
}


@dataclass(frozen=True)
class SymPartial:
    """``functools.partial`` made in the trace: its function may be a traced one (a lambda)."""

    func: Any
    args: tuple
    keywords: dict


def unwrap_partial(fn: Any, args: list, kwargs: dict) -> tuple[Any, list, dict] | None:
    """(function, args, kwargs) a partial object stands for; None for anything else."""
    if isinstance(fn, (SymPartial, functools.partial)):
        return fn.func, [*fn.args, *args], {**fn.keywords, **kwargs}
    return None


def _items(tracer: "Tracer", iterable: Any) -> list[Any]:
    items = tracer.iterate(iterable)
    generators.check_consumed([iterable], "the builtin")
    return items


def _sum(tracer: "Tracer", args: list, kwargs: dict) -> Any:
    """``sum(items, start=0)``: Python's left fold of ``+``, through the op table for arrays."""
    total = kwargs.get("start", args[1] if len(args) > 1 else 0)
    for item in _items(tracer, args[0]):
        total = tracer.binary("+", total, item)
    return total


def _map(tracer: "Tracer", args: list, kwargs: dict) -> generators.GenIter:
    """``map(f, *iterables)``: ``f`` traced per item, eagerly; so, like a generator, its
    result may only be consumed whole (``f``'s heap reads would interleave with a loop body)."""
    fn, *iterables = args
    return generators.GenIter([tracer.call(fn, list(items), {}) for items in zip(*(_items(tracer, i) for i in iterables))],
                              "map()")


def _filter(tracer: "Tracer", args: list, kwargs: dict) -> generators.GenIter:
    """``filter(f, items)``: kept where ``f`` gives a static truth (an array's is data-dependent);
    eager, so consumed whole only (as ``map``)."""
    fn, iterable = args
    kept = []
    for item in _items(tracer, iterable):
        test = item if fn is None else tracer.call(fn, [item], {})
        if isinstance(test, (Tensor, HeapRef)):
            raise NotConvertible("filter() on the truth of an array value or heap object (data-dependent)")
        if test:
            kept.append(item)
    return generators.GenIter(kept, "filter()")


def _dict(tracer: "Tracer", args: list, kwargs: dict) -> dict:
    """``dict(pairs or mapping, **kwargs)``: a dict of the trace with static keys."""
    if args and isinstance(args[0], HeapRef):
        raise NotConvertible("dict() of a heap object (its items would be heap reads)")
    return local_dict(dict(*args, **kwargs).items())


def _ordered_dict(tracer: "Tracer", args: list, kwargs: dict) -> collections.OrderedDict:
    """``OrderedDict(...)``: an ``OrderedDict`` of the trace, built as ``dict(...)`` is."""
    return collections.OrderedDict(_dict(tracer, args, kwargs))


def _asarray_parameters(a: Any, dtype: Any = None, order: Any = None, *, device: Any = None, copy: Any = None,
                        like: Any = None) -> dict:
    return {"a": a, "dtype": dtype, "copy": copy, "rest": (order, device, like)}


def _asarray(tracer: "Tracer", args: list, kwargs: dict) -> Any:
    """``np.asarray``/``np.asanyarray``: an array value is returned itself where NumPy returns
    the very object (no dtype change, no copy asked), else cast or copied; a list of array
    values is ``np.array``'s stack; static values are NumPy's result."""
    if not contains_tensor(args) and not contains_tensor(kwargs):
        return tracer.local_result(np.asarray(*args, **kwargs), [*args, *kwargs.values()])
    try:
        bound = _asarray_parameters(*args, **kwargs)
    except TypeError as e:
        raise NotConvertible(f"np.asarray arguments NumPy rejects ({e})") from None
    a, dtype, copy = bound["a"], bound["dtype"], bound["copy"]
    if bound["rest"] != (None, None, None) or isinstance(a, Weak):
        raise NotConvertible("np.asarray with order/device/like, or of a Python scalar value")
    if not isinstance(a, Tensor):
        return registry.apply(tracer.em, registry.OPS["array"], [a], {"dtype": dtype})
    same = dtype is None or np.dtype(dtype) == a.dtype
    if copy is False and not same:
        raise NotConvertible("np.asarray(copy=False) that must cast (NumPy raises)")
    if not same:
        return registry.apply(tracer.em, registry.OPS["astype"], [a, dtype], {})
    return registry.apply(tracer.em, registry.OPS["copy"], [a], {}) if copy else a


#: values whose attributes cannot change between calls: ``hasattr`` on them is Python's
IMMUTABLE = (bool, int, float, complex, str, bytes, tuple, type(None), range, slice)


def _getattr(tracer: "Tracer", args: list, kwargs: dict) -> Any:
    """``getattr(obj, name[, default])``: the read ``obj.name``, or the default where
    ``hasattr`` is False."""
    obj, name, *default = args
    if type(name) is not str:
        raise NotConvertible("getattr() with a name that is not a static string")
    if default and not _hasattr(tracer, [obj, name], {}):
        return default[0]
    return tracer.attribute(obj, name)


def _setattr(tracer: "Tracer", args: list, kwargs: dict) -> None:
    """``setattr(obj, name, value)`` with a static name: the assignment ``obj.name = value``
    (``for name in ("W1", "b1"): setattr(params, name, ...)`` unrolled)."""
    obj, name, value = args
    if type(name) is not str:
        raise NotConvertible("setattr() with a name that is not a static string")
    tracer.store_attribute(obj, name, value)


def _hasattr(tracer: "Tracer", args: list, kwargs: dict) -> bool:
    """``hasattr(obj, name)``: Python's on immutable values; on a heap object the read, or
    False where it plainly lacks the attribute (guarded on entry: ``HeapTracker.has_attribute``);
    on others True when the read succeeds in the trace, else refused: a False would be an
    assumption that nothing guards."""
    obj, name = args
    if type(name) is not str:
        raise NotConvertible("hasattr() with a name that is not a static string")
    if type(obj) in IMMUTABLE:
        return hasattr(obj, name)
    if isinstance(obj, HeapRef):
        return tracer.heap.has_attribute(obj, name)
    tracer.attribute(obj, name)
    return True


def _partial(tracer: "Tracer", args: list, kwargs: dict) -> SymPartial:
    return SymPartial(args[0], tuple(args[1:]), kwargs)


def _reduce(tracer: "Tracer", args: list, kwargs: dict) -> Any:
    """``functools.reduce(f, items[, initial])``: ``f`` traced per step, as Python folds."""
    fn, iterable, *initial = args
    items = [*initial, *_items(tracer, iterable)]
    if not items:
        raise NotConvertible("functools.reduce() of an empty sequence (Python raises TypeError)")
    total = items[0]
    for item in items[1:]:
        total = tracer.call(fn, [total, item], {})
    return total


def _operator(symbol: str) -> Callable[["Tracer", list, dict], Any]:
    """The handler of an ``operator`` function: the operator itself (op table on arrays)."""
    return lambda tracer, args, kwargs: tracer.binary(symbol, *args)


#: values whose type ``isinstance`` sees as Python does: static values and containers of the trace
PLAIN_TYPES = (bool, int, float, complex, str, bytes, type(None), list, tuple, dict, set, frozenset, range, slice)


def _isinstance(tracer: "Tracer", args: list, kwargs: dict) -> bool:
    """``isinstance(value, classes)`` by the type the value has at run time: an array of rank
    >= 1 is an ndarray, a traced Python scalar its type, a heap object its guarded exact type."""
    value, classes = args
    if isinstance(value, Weak):
        return issubclass(value.python_type, classes)
    if isinstance(value, Tensor) and value.ndim > 0:
        return issubclass(np.ndarray, classes)
    if isinstance(value, HeapRef):
        return issubclass(type(value.obj), classes)
    if isinstance(value, PLAIN_TYPES) or is_record(value):
        return isinstance(value, classes)
    raise NotConvertible(f"isinstance() of a {type(value).__name__} of the trace (a 0-d array is an ndarray or a "
                         "NumPy scalar; traced functions are not Python's)")


def _tuple_new(tracer: "Tracer", args: list, kwargs: dict) -> tuple:
    """``tuple.__new__(cls, items)``, as a NamedTuple's ``_make`` calls it."""
    cls, iterable = args
    if not isinstance(cls, type) or record_type(cls) != "namedtuple":
        raise NotConvertible(f"tuple.__new__ of {getattr(cls, '__name__', cls)} (only NamedTuples)")
    return tuple.__new__(cls, _items(tracer, iterable))


def _dataclass_replace(tracer: "Tracer", args: list, kwargs: dict) -> Any:
    """``dataclasses.replace(record, **changes)``: a new record of the trace, the other fields shared."""
    (obj,) = args
    if record_type(type(obj)) != "dataclass" or not set(kwargs) <= set(_field_names(obj)):
        raise NotConvertible(f"dataclasses.replace() of a {type(obj).__name__} (only a plain dataclass of the trace "
                             "with changes to its fields)")
    return type(obj)(**{**dict(record_fields(obj)), **kwargs})


#: callables whose calls the trace runs itself: handler(tracer, args, kwargs)
HANDLERS: dict[Any, Callable[["Tracer", list, dict], Any]] = {
    sum: _sum, map: _map, filter: _filter, dict: _dict, collections.OrderedDict: _ordered_dict, getattr: _getattr, setattr: _setattr, hasattr: _hasattr, isinstance: _isinstance,
    functools.partial: _partial, functools.reduce: _reduce, tuple.__new__: _tuple_new,
    dataclasses.replace: _dataclass_replace, np.asarray: _asarray, np.asanyarray: _asarray, **math_calls.HANDLERS, **array_meta.HANDLERS,
    **{getattr(operator, name): _operator(symbol) for name, symbol in {
        "add": "+", "sub": "-", "mul": "*", "truediv": "/", "floordiv": "//", "mod": "%", "pow": "**", "matmul": "@",
        "lt": "<", "le": "<=", "gt": ">", "ge": ">=", "eq": "==", "ne": "!="}.items()},
}


def folded(fn: Any, args: list, kwargs: dict, traced: bool) -> Any:
    """A call of a ``FOLDED_MODULES`` function: Python's result on static values; NULL for other callables."""
    module = getattr(fn, "__self__", None) if isinstance(fn, types.BuiltinFunctionType) else None
    if not isinstance(module, types.ModuleType) or module not in FOLDED_MODULES:
        return NULL
    if traced:
        raise NotConvertible(FOLDED_MODULES[module].format(name=fn.__name__))
    return fn(*args, **kwargs)


#: values whose methods never change them: a method of a static one folds to Python's result
IMMUTABLE = (bool, int, float, complex, str, bytes, tuple, frozenset, np.generic)


def static_method_call(fn: Any, args: list, kwargs: dict, traced: bool, array_methods: Any) -> Any:
    """A method of a static value with static arguments, folded (``h.is_integer()``,
    ``np.arange(3).reshape(-1, 1)``): every method of an immutable value, and the ndarray
    methods of the op table (``array_methods``: none of them writes to its array); NULL otherwise."""
    receiver = getattr(fn, "__self__", None)
    if traced or not isinstance(fn, types.BuiltinMethodType) or isinstance(receiver, types.ModuleType) or contains_tensor(receiver):
        return NULL
    if isinstance(receiver, IMMUTABLE) or isinstance(receiver, np.ndarray) and fn.__name__ in array_methods:
        return fn(*args, **kwargs)
    return NULL


def record_type(cls: type) -> str | None:
    """"namedtuple" or "dataclass" for a class the trace may instantiate itself (its
    ``__init__``/``__new__`` only stores the fields); None otherwise."""
    if issubclass(cls, tuple) and cls is not tuple:
        owner = next(k for k in cls.__mro__ if "__new__" in vars(k))
        plain = "_make" in vars(owner) and "_fields" in vars(owner) and cls.__init__ is object.__init__
        return "namedtuple" if plain else None
    params = getattr(cls, "__dataclass_params__", None)
    if params is None or not params.init or hasattr(cls, "__post_init__"):
        return None
    fields = dataclasses.fields(cls)
    init = getattr(cls.__init__, "__code__", None)
    generated = init is not None and init.co_filename == "<string>"  # dataclasses' own, not the class body's
    plain_setattr = cls.__new__ is object.__new__ and (params.frozen or cls.__setattr__ is object.__setattr__)
    simple = all(f.init and f.default_factory is dataclasses.MISSING for f in fields)
    return "dataclass" if generated and plain_setattr and simple else None


def is_record(value: Any) -> bool:
    """Whether ``value`` is a NamedTuple or dataclass instance (built by the trace when not a ``HeapRef``)."""
    return record_type(type(value)) is not None


def record_attribute(tracer: "Tracer", obj: Any, name: str) -> Any:
    """A field of a record of the trace, a property (its getter inlined) or a plain method or
    classmethod, bound; nothing that would run Python code untraced."""
    static = inspect.getattr_static(type(obj), name, None)
    if isinstance(static, property) and static.fget is not None:
        return tracer.call(static.fget, [obj], {})
    if name in _field_names(obj):
        return getattr(obj, name)
    if isinstance(static, types.FunctionType):
        return types.MethodType(static, obj)
    if isinstance(static, classmethod):
        return types.MethodType(static.__func__, type(obj))
    raise NotConvertible(f"attribute .{name} of a {type(obj).__name__} (only fields, properties and plain methods)")


def _field_names(obj: Any) -> tuple[str, ...]:
    return obj._fields if isinstance(obj, tuple) else tuple(f.name for f in dataclasses.fields(obj))


def record_fields(obj: Any) -> tuple[tuple[str, Any], ...]:
    """(name, value) of each field of a record."""
    return tuple((name, getattr(obj, name)) for name in _field_names(obj))


#: Python callables: passed to a builtin (``sorted(key=...)``) they would run untraced
PYTHON_CALLABLES = (SymFunction, SymPartial, functools.partial, types.FunctionType, types.MethodType)


def refuse_python_callables(fn: Any, args: list, kwargs: dict) -> None:
    """A Python function passed to a builtin would run there, at trace time, once."""
    if any(isinstance(a, PYTHON_CALLABLES) for a in (*args, *kwargs.values())):
        raise NotConvertible(f"a Python function is passed to {getattr(fn, '__name__', fn)}() (it would run untraced)")
