"""Which Python heap locations compiled code may touch, and what it assumes about them.

One set of rules serves the graph generator (is ``obj.name`` a plain location?) and every
compiled call (is it still one, and does its value still match the spec the graph was
specialized on?), so a version never runs on a heap it was not built for. Attributes
that go through ``__getattribute__``/``__getattr__``/``__setattr__`` overrides,
``__slots__``, properties or other descriptors are not plain: Python would run code we
did not trace.
"""

from __future__ import annotations

import collections
import functools
import io
import types
from dataclasses import dataclass
from typing import Any

import numpy as np

from janus.frontend.values import ELEMENT_TYPES
from janus.heap import AccessPath, Key

_HEAPTYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE: a class defined in Python
#: Python-defined classes whose instances are values or code, never heap objects
_NOT_OBJECTS = (np.ndarray, np.generic, list, tuple, dict, set, frozenset, BaseException,
                types.FunctionType, types.MethodType, types.ModuleType, type)
#: dicts whose items may be heap locations (``OrderedDict``: its items, keys and order behave as a dict's)
DICTS = (dict, collections.OrderedDict)
#: containers whose items may be heap locations (exact types: subclasses may hook __getitem__)
CONTAINERS = (*DICTS, list, tuple)
#: values baked into the graph by identity (code and namespaces)
IDENTITY_TYPES = (types.FunctionType, types.BuiltinFunctionType, types.ModuleType, type, np.ufunc)
STATIC_VALUES = (bool, int, float, str, type(None))
#: Python scalars a location may hold as a graph input once its value varied (``Spec`` kind ``scalar``)
VARYING_SCALARS = (bool, int, float)
#: NumPy scalars a location may hold as a graph input once its value varied (a 0-d array of their dtype)
VARYING_NUMPY = (np.float64, np.float32, np.int64, np.int32, np.bool_)
I64_MIN, I64_MAX = -(2 ** 63), 2 ** 63 - 1


class HeapMiss(Exception):
    """A compiled version's heap assumption does not hold for this call (run imperatively).
    ``varied``: the label of a Python int or float location that now holds another value of
    its type (the next version takes it as a graph input: JANUS's value -> type step), of
    type ``varied_type``."""

    def __init__(self, message: str, varied: str | None = None, varied_type: type | None = None) -> None:
        super().__init__(message)
        self.varied, self.varied_type = varied, varied_type


#: objects of C-defined classes passed by reference too: the graph never reads them; their
#: methods, and calls taking them, are segment boundaries (``trace.split``): host randomness,
#: the bytes one Python operation hands to the next (``zlib.crc32(x.tobytes())``); lazy
#: iterators a boundary made (a generator, ``enumerate``/``zip`` over one): each step of a
#: ``for`` loop over one is a boundary
LAZY_ITERATORS = (types.GeneratorType, enumerate, zip, type(iter(range(0))))
#: files a boundary opened (``with open(...) as f``: entered, written and closed in Python)
FILES = (io.TextIOWrapper, io.BufferedReader, io.BufferedWriter, io.BufferedRandom, io.FileIO, io.StringIO, io.BytesIO)
HOST_OBJECTS = (np.random.Generator, np.random.RandomState, bytes, *LAZY_ITERATORS, *FILES)


def is_heap_object(value: Any) -> bool:
    """Whether an argument is passed as an object reference (a ``janus.object`` slot)."""
    typ = type(value)
    return (typ in DICTS or bool(typ.__flags__ & _HEAPTYPE) and not isinstance(value, _NOT_OBJECTS)
            or typ in HOST_OBJECTS)


def class_makes_heap_object(cls: type) -> bool:
    """Whether ``is_heap_object`` holds for every instance of exactly ``cls``, known from the
    class alone (an entry guard that checks the exact class need not call it): where no
    class of its MRO defines ``__class__`` (which ``isinstance`` would consult per instance).
    No ``__bases__`` assignment can make a plain class a subclass of ``_NOT_OBJECTS``
    (their layouts differ), and assigning ``__class__`` changes the exact class."""
    if any("__class__" in vars(klass) for klass in cls.__mro__ if klass is not object):
        return False
    return cls in DICTS or bool(cls.__flags__ & _HEAPTYPE) and not issubclass(cls, _NOT_OBJECTS) or cls in HOST_OBJECTS


#: the value of an attribute an object does not have (a ``Spec("absent")`` location)
ABSENT = object()
#: what a ``functools.partial`` calls (read-only members): locations the version checks
PARTIAL_PARTS = ("func", "args", "keywords")


def _class_attribute(cls: type, name: str) -> Any:
    for klass in cls.__mro__:
        if name in klass.__dict__:
            return klass.__dict__[name]
    return ABSENT


def attribute_problem(obj: Any, name: str, write: bool) -> str | None:
    """Why ``obj.name`` is not a plain instance-dict location, or a plain class attribute
    read through the instance (None when it is)."""
    cls = type(obj)
    if cls is types.CellType:
        return None if name == "cell_contents" else f"a closure cell has no attribute {name}"
    if cls is types.ModuleType:
        return None if write or name in vars(obj) else f"module {obj.__name__} has no global {name}"
    if cls is functools.partial:
        return None if name in PARTIAL_PARTS and not write else f"attribute .{name} of a functools.partial"
    problem = _object_problem(obj, name, write)
    if problem is not None:
        return problem
    found = _class_attribute(cls, name) if hasattr(cls, name) else ABSENT
    if found is not ABSENT:
        kind = "property" if isinstance(found, property) else "descriptor" if hasattr(type(found), "__get__") else None
        if kind is not None:
            return f"{cls.__name__}.{name} is a {kind}"
        if write and name not in vars(obj):  # the write would make an instance attribute shadowing it
            return f"{cls.__name__}.{name} is a class attribute"
        if name not in vars(obj):
            return None  # read through the instance: a plain value of the class (``step`` looks it up as Python does)
    if not write and name not in vars(obj):
        return f"{cls.__name__} object has no attribute {name}"
    return None


def _object_problem(obj: Any, name: str, write: bool) -> str | None:
    """Why the attributes of ``obj`` are not plain instance-dict locations (None when they are)."""
    cls = type(obj)
    if cls in CONTAINERS or not is_heap_object(obj):
        return f"attribute .{name} of a {cls.__name__} is not a heap location"
    # hasattr on the class goes through CPython's type attribute cache: cheap on every call
    if cls.__getattribute__ is not object.__getattribute__:
        return f"{cls.__name__} overrides __getattribute__"
    if hasattr(cls, "__getattr__"):
        return f"{cls.__name__} defines __getattr__"
    if write and cls.__setattr__ is not object.__setattr__:
        return f"{cls.__name__} overrides __setattr__"
    if hasattr(cls, "__slots__"):
        return f"{cls.__name__} uses __slots__"
    return None


def lacks(obj: Any, name: str) -> bool:
    """Whether ``obj`` plainly has no attribute ``name``: a plain heap object (as for its
    locations) with nothing of that name on its class or in its dict, so that ``hasattr``
    is False and ``getattr`` with a default gives the default, by Python's own rules."""
    return (type(obj) not in (types.CellType, types.ModuleType, functools.partial)
            and _object_problem(obj, name, False) is None and not hasattr(type(obj), name) and name not in vars(obj))


def item_problem(container: Any, key: Key, write: bool) -> str | None:
    """Why ``container[key]`` is not a plain item location (None when it is)."""
    cls = type(container)
    if cls not in CONTAINERS:
        return f"items of a {cls.__name__} are not heap locations"
    if cls is tuple and write:
        return "a tuple does not support item assignment"
    if cls in DICTS:
        return None if write or key in container else f"dict has no key {key!r}"
    if type(key) is not int or not -len(container) <= key < len(container):
        return f"index {key!r} is out of range for a {cls.__name__} of {len(container)}"
    return None


def step(value: Any, kind: str, key: Key, write: bool = False) -> Any:
    """The value one step below ``value`` (HeapMiss when the step is not plain)."""
    problem = attribute_problem(value, key, write) if kind == "attr" else item_problem(value, key, write)  # type: ignore[arg-type]
    if problem is not None:
        raise HeapMiss(problem)
    if write:
        return None
    if kind == "item":
        return value[key]
    if type(value) is types.CellType:
        return value.cell_contents
    if type(value) is functools.partial:
        return getattr(value, key)
    own = vars(value)
    return own[key] if key in own else _class_attribute(type(value), key)


def resolve(objects: list[Any], path: AccessPath, write: bool = False, absent: bool = False) -> Any:
    """The value at ``path`` under the rules (for ``write``, only check it is assignable;
    with ``absent``, ``ABSENT`` where the object plainly lacks the last attribute)."""
    value = objects[path.slot]
    for i, (kind, key) in enumerate(path.steps):
        if absent and i == len(path.steps) - 1 and kind == "attr" and lacks(value, key):
            return ABSENT
        value = step(value, kind, key, write and i == len(path.steps) - 1)
    return value


@dataclass(frozen=True)
class Spec:
    """What a version assumes about the value at one location on entry.

    kind ``array``: ndarray of ``type_``/``dtype``/``shape`` (a graph input); ``value``:
    equal Python or NumPy scalar of the same type (a constant); ``scalar``: a Python int
    (within int64) or float of any value (a graph input, where the value varied); ``identity``: this very
    object (code baked in); ``object``: an object of this exact type, ``length`` items for
    a list or tuple (a reference whose attributes are locations); ``write``: only written,
    any value; ``absent``: an attribute the object does not have (``hasattr`` was False).
    """

    kind: str
    type_: type | None = None
    value: Any = None
    dtype: np.dtype | None = None
    shape: tuple = ()
    length: int | None = None
    #: a dict's keys, in order, where the traced code listed them (``model.keys()``)
    keys: tuple | None = None

    def matches(self, v: Any) -> bool:
        if self.kind == "write":
            return True
        if self.kind == "identity":
            return v is self.value
        if self.kind == "absent":
            return v is ABSENT
        if type(v) is not self.type_:
            return False
        if self.kind == "array":
            return v.dtype == self.dtype and v.shape == self.shape
        if self.kind == "value":
            return bool(v == self.value)
        if self.kind == "scalar":
            return self.type_ is not int or I64_MIN <= v <= I64_MAX
        return (self.length is None or len(v) == self.length) and (self.keys is None or tuple(v) == self.keys)

    def describe(self) -> str:
        if self.kind in ("value", "identity"):
            return f"{self.kind} {self.value!r}"
        if self.kind == "scalar":
            return f"{self.type_.__name__} (any value, a graph input)"
        if self.kind == "object":
            return (f"{self.type_.__name__} object" + (f" of length {self.length}" if self.length is not None else "")
                    + (f" with keys {list(self.keys)}" if self.keys is not None else ""))
        if self.kind == "array":
            return f"ndarray[{self.dtype}, shape={self.shape}]"
        return "no such attribute" if self.kind == "absent" else "written"


def spec_of(value: Any) -> Spec | None:
    """The spec a value read from the heap is specialized on (None: not supported)."""
    typ = type(value)
    if typ is np.ndarray:
        return Spec("array", typ, dtype=value.dtype, shape=value.shape) if value.dtype.name in ELEMENT_TYPES else None
    if typ in STATIC_VALUES or isinstance(value, np.generic):
        return Spec("value", typ, value)
    if isinstance(value, IDENTITY_TYPES):
        return Spec("identity", value=value)
    if typ in CONTAINERS or is_heap_object(value):
        return Spec("object", typ, length=len(value) if typ in (list, tuple) else None)
    return None


#: class attributes a method call goes through: a plain function, or a static or class method of one
Method = types.FunctionType | staticmethod | classmethod | property


def method_of(obj: Any, name: str) -> Method | None:
    """The class attribute ``obj.name`` binds when it is a method not shadowed by the
    instance: a plain function, or a ``staticmethod``/``classmethod`` of one, or a read-only
    ``property`` whose getter is one (the trace inlines the getter) (None otherwise,
    also for an object without a ``__dict__``, ``np.errstate``: its slots are state heap ops
    cannot see, so its methods run in Python, ``split.host_method``)."""
    cls = type(obj)
    if not is_heap_object(obj) or cls.__getattribute__ is not object.__getattribute__ or not hasattr(obj, "__dict__"):
        return None
    found = _class_attribute(cls, name)
    if type(found) is property:  # a data descriptor: the instance's dict cannot shadow it
        return found if type(found.fget) is types.FunctionType else None
    plain = type(found) is types.FunctionType or type(found) in (staticmethod, classmethod) and type(found.__func__) is types.FunctionType
    return found if plain and name not in vars(obj) else None


def bind(method: Method, obj: Any, self_value: Any) -> Any:
    """What ``obj.name`` gives for the class attribute ``method``: a method bound to
    ``self_value`` (``obj`` or its stand-in), a static method's function, or a class method
    bound to ``type(obj)``."""
    if type(method) is staticmethod:
        return method.__func__
    if type(method) is classmethod:
        return types.MethodType(method.__func__, type(obj))
    return types.MethodType(method, self_value)
