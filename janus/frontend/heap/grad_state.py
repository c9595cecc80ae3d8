"""Objects and heap state in ``janus.grad``: parameters kept in object attributes.

Two researcher styles, both in the JAX spirit (the differentiated function is pure):

- ``janus.value_and_grad(self.loss, argnums=(0, 1))(self.W, self.b, x, y)``: a bound
  method, with the attribute values passed as arguments;
- ``janus.value_and_grad(loss)(self, x, y)``: an *object* is a differentiated argument
  (as an Equinox module is a pytree): the function sees a shallow copy of it whose float
  array attributes are the differentiated leaves, and its gradient is a dict from those
  attribute names (in ``vars`` order) to arrays. Writes the function makes to its copy are
  not kept (return such values as ``aux``).

Traced, the differentiated function becomes its own ``func.func``, which must not hold
heap ops (``janus-autodiff`` differentiates with respect to function arguments). So while
it is traced the heap tracker's reads go through a ``GradHeap``: each array it reads from
the heap is read in the *caller* (a ``janus.get_attr`` there, checked on every call like
any other read) and becomes an extra argument of the function, differentiated when it is
a float array attribute of a differentiated object. Writes are refused.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from janus.frontend.heap.access import HeapRef, HoistedReads
from janus.frontend.heap.rules import is_heap_object
from janus.frontend.values import Tensor
from janus.heap import AccessPath, Key

if TYPE_CHECKING:
    from janus.frontend.emitter import Emitter
    from janus.frontend.trace.interpreter import Tracer


def is_object(value: Any) -> bool:
    """Whether a differentiated argument is an object (not a pytree node or a leaf)."""
    return type(value) is not dict and is_heap_object(value) and hasattr(value, "__dict__")


def parameter_names(obj: Any) -> list[str]:
    """The attributes of ``obj`` that are differentiated: float arrays, in ``vars`` order."""
    return [k for k, v in vars(obj).items() if type(v) is np.ndarray and v.dtype.kind == "f"]


def shallow_copy(obj: Any, leaves: dict[str, Any]) -> Any:
    """A copy of ``obj`` (same class, so its methods work) with ``leaves`` as attributes."""
    if type(obj).__setattr__ is not object.__setattr__ or hasattr(type(obj), "__slots__"):
        raise TypeError(f"janus.grad: cannot differentiate a {type(obj).__name__} (it overrides __setattr__ or uses __slots__)")
    copy = object.__new__(type(obj))
    vars(copy).update(vars(obj))
    vars(copy).update(leaves)
    return copy


class GradHeap(HoistedReads):
    """The heap tracker's reads while a ``janus.grad`` function is traced (see the module)."""

    DYNAMIC_READ = "janus.grad reads {label}, an array with ? dims (gradients need static shapes)"

    def __init__(self, tracer: "Tracer", caller: "Emitter", inner: list[Tensor], outer: list[Tensor], wrt: list[int]) -> None:
        self.tracer, self.caller = tracer, caller
        self.inner, self.outer, self.wrt = inner, outer, wrt
        self.enclosing: GradHeap | None = tracer.heap.scope  # a janus.grad function being traced around this one
        self.objects: set[AccessPath] = set()  # differentiated objects
        self.arguments: dict[AccessPath, Tensor] = {}  # location -> argument of the function

    def differentiate(self, ref: HeapRef) -> None:
        self.objects.add(ref.path)

    def parameter(self, ref: HeapRef, kind: str, key: Key, value: Tensor) -> Tensor:
        if kind == "attr" and ref.path in self.objects and value.dtype.kind == "f":
            self.wrt.append(len(self.inner))
        self.outer.append(value)
        self.inner.append(Tensor(f"%arg{len(self.inner)}", value.shape, value.dtype))
        self.tracer.em.define(self.inner[-1])
        return self.inner[-1]

    def parameters(self, ref: HeapRef) -> dict[str, Tensor]:
        """The differentiated object's parameters (read now when the function did not)."""
        names = parameter_names(ref.obj)
        for name in names:
            self.read(ref, "attr", name)
        return {name: self.arguments[ref.path.child("attr", name)] for name in names}
