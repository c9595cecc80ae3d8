"""``janus.grad`` and ``janus.value_and_grad``: gradients, compiled or on the eager tape.

JAX semantics: the function returns a scalar float (a 0-d array or NumPy scalar; with
``has_aux``, a pair ``(scalar, aux)``) and ``argnums`` (an int or a tuple) picks the
positional arguments to differentiate. An argument may be a pytree of parameters (lists,
tuples and dicts of float arrays); its gradient has the same structure.

What ``grad`` returns is a ``janus.jit`` function (``GradFunction``) of a trampoline that
calls a ``GradSpec``. Run in Python (profiling, fallback), the spec runs the function on
the eager tape (``tape``). Traced by the graph generator — the trampoline itself, or a
jitted train step that calls ``janus.grad(loss)(params, ...)`` — the spec's
``janus_trace`` traces the function into a private ``func.func`` of the same module,
marked ``janus.grad = {argnums = [...]}``, and emits a ``func.call`` of the ``_grad``
function the ``janus-autodiff`` pass derives from it (the backend runs that pass first).
A dict or list of parameters reaches the trace as a heap object; its items are read in
the caller and differentiated as a tree (``_containers``). ``grad(f)`` returns the same
``GradFunction`` for the same ``f`` and options, so one written inside a loop compiles once.
"""

from __future__ import annotations

import inspect
import re
import types
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from janus.frontend.emitter import function_text
from janus.frontend.heap.grad_state import GradHeap, is_object, parameter_names, shallow_copy
from janus.frontend.trace.frame import bind_arguments
from janus.frontend.trace.interpreter import Tracer
from janus.frontend.heap.access import HeapRef
from janus.frontend.jit import DEFAULT_WARMUP, JitFunction
from janus.frontend.tape import Tape, Traced, unwrap
from janus.frontend.values import NotConvertible, Tensor

Argnums = int | tuple[int, ...]


def tree_map(fn: Callable[[Any], Any], value: Any) -> Any:
    """``value`` with each leaf (anything but a list, tuple or dict) replaced by ``fn(leaf)``;
    lists and tuples keep their type (an argument list stays read-only while traced)."""
    if isinstance(value, dict):
        return {k: tree_map(fn, v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)([tree_map(fn, v) for v in value])
    return fn(value)


def plain(value: Any) -> Any:
    """``value`` with list subclasses made plain lists (gradients are new lists)."""
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return (tuple if isinstance(value, tuple) else list)(plain(v) for v in value)
    return value


@dataclass(frozen=True, eq=False)
class GradSpec:
    """What to differentiate and what to return; calling it runs the eager tape."""

    fn: Callable
    argnums: Argnums
    has_aux: bool
    with_value: bool

    @property
    def positions(self) -> tuple[int, ...]:
        return (self.argnums,) if isinstance(self.argnums, int) else tuple(self.argnums)

    def check_positions(self, nargs: int) -> None:
        if any(not 0 <= i < nargs for i in self.positions):
            raise TypeError(f"janus.grad: argnums {self.argnums} out of range for {nargs} positional arguments")

    def split(self, result: Any) -> tuple[Any, Any]:
        if not self.has_aux:
            return result, None
        if not isinstance(result, (tuple, list)) or len(result) != 2:
            raise TypeError("janus.grad(has_aux=True): the function must return a pair (scalar, aux)")
        return result[0], result[1]

    def package(self, value: Any, aux: Any, grads: list[Any]) -> Any:
        g = grads[0] if isinstance(self.argnums, int) else tuple(grads)
        if self.with_value:
            return ((value, aux) if self.has_aux else value), g
        return (g, aux) if self.has_aux else g

    # ---- eager: the tape ---------------------------------------------------------------
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self.check_positions(len(args))
        tape, inputs = Tape(), []

        def leaf(value: Any) -> Traced:
            if type(value) is float:
                value = np.float64(value)
            if not isinstance(value, (np.ndarray, np.generic)) or np.result_type(value).kind != "f":
                raise TypeError(f"janus.grad: differentiated arguments must hold float arrays or floats, not {value!r}")
            inputs.append(tape.input(value))
            return inputs[-1]

        traced = list(args)
        for i in self.positions:
            if is_object(args[i]):
                traced[i] = shallow_copy(args[i], {k: leaf(getattr(args[i], k)) for k in parameter_names(args[i])})
            else:
                traced[i] = tree_map(leaf, args[i])
        with tape:
            loss, aux = self.split(self.fn(*traced, **kwargs))
        value = unwrap(loss)
        if np.shape(value) != () or np.result_type(value).kind != "f":
            raise TypeError(f"janus.grad: the function must return a scalar float, not {value!r}")
        if isinstance(loss, Traced):
            cotangents = iter(tape.backward(loss, inputs))
        else:  # the result does not depend on the arguments
            cotangents = iter(np.zeros_like(t.value) for t in inputs)

        def gradient(x: Any) -> Any:
            if type(x) is float:
                return float(next(cotangents))
            g = np.asarray(next(cotangents), np.result_type(x))
            return g[()] if isinstance(x, np.generic) else g

        grads = [{k: gradient(getattr(args[i], k)) for k in parameter_names(args[i])} if is_object(args[i])
                 else plain(tree_map(gradient, args[i])) for i in self.positions]
        return self.package(value, unwrap(aux), grads)

    # ---- traced: a private function and a call of its _grad -----------------------------
    def janus_trace(self, tracer: Tracer, args: list[Any], kwargs: dict[str, Any]) -> Any:
        fn = self.fn
        self.check_positions(len(args))
        positions = self.positions
        if isinstance(fn, types.MethodType):  # ``self.loss``: self is a first, non-differentiated argument
            fn, args, positions = fn.__func__, [fn.__self__, *args], tuple(i + 1 for i in positions)
        if not isinstance(fn, types.FunctionType) or fn.__closure__:
            raise NotConvertible(f"janus.grad of {getattr(fn, '__qualname__', fn)}: only functions and methods without free variables are traced")
        args = [_containers(tracer, a) if i in positions else a for i, a in enumerate(args)]
        outer, inner, wrt = [], [], []
        heap = GradHeap(tracer, tracer.em, inner, outer, wrt)

        def parameter(value: Any, differentiated: bool) -> Any:
            if isinstance(value, HeapRef) and differentiated:
                heap.differentiate(value)
                return value
            if not isinstance(value, Tensor):
                if differentiated:
                    raise NotConvertible(f"janus.grad with respect to a Python {type(value).__name__} (a graph constant)")
                return value
            if not value.static:
                raise NotConvertible("janus.grad of arrays with ? dims (gradients need static shapes)")
            if differentiated and value.dtype.kind != "f":
                raise NotConvertible(f"janus.grad with respect to a {value.dtype.name} array")
            if differentiated:
                wrt.append(len(inner))
            outer.append(value)
            inner.append(Tensor(f"%arg{len(inner)}", value.shape, value.dtype))
            return inner[-1]

        params = [tree_map(lambda v, d=i in positions: parameter(v, d), a) for i, a in enumerate(args)]
        keywords = {k: tree_map(lambda v: parameter(v, False), v) for k, v in kwargs.items()}
        bound = bind_arguments(fn.__code__, fn.__defaults__ or (), fn.__kwdefaults__ or {}, params, keywords)
        em, caller = tracer.em.sibling(), tracer.em
        em.define(*inner)
        tracer.em, tracer.heap.scope = em, heap
        try:
            loss, aux = self.split(tracer.run(fn.__code__, fn.__globals__, bound))
            objects = {i: heap.parameters(args[i]) for i in positions if isinstance(args[i], HeapRef)}
        finally:
            tracer.em, tracer.heap.scope = caller, heap.enclosing
        if not (isinstance(loss, Tensor) and loss.shape == () and loss.dtype.kind == "f"):
            raise NotConvertible(f"janus.grad of {fn.__qualname__}: the result is not a 0-d float array computed from the arguments")
        outputs = [loss]

        def output(v: Any) -> int | _Static:
            if not isinstance(v, Tensor):
                return _Static(v)
            outputs.append(v)
            return len(outputs) - 1

        aux_shape = tree_map(output, aux)
        name = f"{re.sub(r'[^A-Za-z0-9_]', '_', fn.__name__)}_d{len(tracer.functions)}"
        attrs = f"janus.grad = {{argnums = [{', '.join(map(str, wrt))}]}}"
        tracer.functions.append(function_text(name, inner, outputs, em.function_lines(), private=True, attributes=attrs))
        tracer.needs_autodiff = True

        seeds = [caller.literal(np.full(t.static_shape(), 1.0 if i == 0 else 0.0, t.dtype))
                 for i, t in enumerate(outputs) if t.dtype.kind == "f"]
        operands = outer + seeds
        result_types = [t.type for t in outputs] + [inner[i].type for i in wrt]
        signature = f"({', '.join(t.type for t in operands)}) -> ({', '.join(result_types)})"
        tracer.functions.append(f"  func.func private @{name}_grad{signature}")  # defined by janus-autodiff
        base = caller.call(f"{name}_grad", operands, result_types)
        results = [Tensor(f"{base}#{i}", t.shape, t.dtype) for i, t in enumerate(outputs + [inner[i] for i in wrt])]
        grad_results = results[len(outputs):]
        gradients = {inner[j].name: g for j, g in zip(wrt, grad_results)}  # by the function's argument
        grads = [{k: gradients[t.name] for k, t in objects[i].items()} if i in objects
                 else plain(tree_map(lambda v: gradients[v.name] if isinstance(v, Tensor) else v, params[i]))
                 for i in positions]
        aux_value = tree_map(lambda s: s.value if isinstance(s, _Static) else results[s], aux_shape)
        return self.package(results[0], aux_value, grads)


def _containers(tracer: Tracer, value: Any) -> Any:
    """A differentiated dict or list argument (a heap object to the caller's graph) as a
    tree of its items, each read from the heap in the caller, so that the parameter tree
    is differentiated like one passed by value and its gradient has its structure."""
    if not isinstance(value, HeapRef) or type(value.obj) not in (dict, list):
        return value
    keys = value.obj.keys() if type(value.obj) is dict else range(len(value.obj))
    items = {k: _containers(tracer, tracer.heap.read(value, "item", k)) for k in keys}
    return items if type(value.obj) is dict else list(items.values())


@dataclass(frozen=True)
class _Static:
    """A non-array leaf of ``aux``, kept as it is."""

    value: Any


SPEC_GLOBAL = "__janus_grad_spec__"


def trampoline(spec: GradSpec) -> Callable:
    """A plain function with ``spec.fn``'s parameters that calls ``spec`` (what the jit
    machinery profiles and traces)."""
    fn = spec.fn
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        params = None
    name = f"{'value_and_grad' if spec.with_value else 'grad'}_{re.sub(r'[^A-Za-z0-9_]', '_', getattr(fn, '__name__', 'f'))}"
    if params is None or any(p.kind is not p.POSITIONAL_OR_KEYWORD for p in params):
        def call(*args: Any, **kwargs: Any) -> Any:
            return spec(*args, **kwargs)

        call.__name__ = name
        return call
    names = ", ".join(p.name for p in params)
    namespace = {SPEC_GLOBAL: spec}
    exec(f"def {name}({names}):\n    return {SPEC_GLOBAL}({names})\n", namespace)
    function = namespace[name]
    function.__defaults__ = tuple(p.default for p in params if p.default is not p.empty) or None
    return function


class GradFunction(JitFunction):
    """What ``janus.grad`` returns: a jit function computing the gradients (eager tape while
    warming up or falling back, a compiled ``@f_grad`` afterwards)."""

    #: its trampoline's one call is the gradient: split there, all of it would run in Python anyway
    SPLITS = False

    def __init__(self, spec: GradSpec, warmup: int) -> None:
        super().__init__(trampoline(spec), warmup)
        self.spec = spec
        kind = "value_and_grad" if spec.with_value else "grad"
        self.__qualname__ = f"janus.{kind}({getattr(spec.fn, '__qualname__', spec.fn)})"

        if isinstance(spec.fn, types.MethodType):
            self.fallbacks[None] = ("a bound method: compiled only where a jitted caller traces it "
                                    "(its object is then a heap argument); called directly it runs on the tape")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if isinstance(self.spec.fn, types.MethodType):  # no profiling: it would never compile
            return self.spec(*args, **kwargs)
        return super().__call__(*args, **kwargs)

    def janus_trace(self, tracer: Tracer, args: list[Any], kwargs: dict[str, Any]) -> Any:
        return self.spec.janus_trace(tracer, args, kwargs)


CACHE_ATTRIBUTE = "__janus_grad_functions__"


def _grad_function(fn: Callable, argnums: Argnums, has_aux: bool, with_value: bool, warmup: int) -> GradFunction:
    """The gradient function of ``fn``, made once per (argnums, has_aux, kind, warmup) and
    kept on ``fn`` itself: ``janus.value_and_grad(loss)(params, x)`` written inside a step
    then reuses one profile and one compiled version instead of warming up on every call
    (the cache lives and dies with ``fn``). Bound methods (made anew on each attribute
    access) and callables without attributes get a new one each time."""
    key = (argnums if isinstance(argnums, int) else tuple(argnums), has_aux, with_value, warmup)
    cache: dict = {} if isinstance(fn, types.MethodType) else getattr(fn, CACHE_ATTRIBUTE, None)
    if cache is None:
        cache = {}
        try:
            setattr(fn, CACHE_ATTRIBUTE, cache)
        except (AttributeError, TypeError):  # a builtin or a class with __slots__: not cached
            pass
    if key not in cache:
        cache[key] = GradFunction(GradSpec(fn, key[0], has_aux, with_value), warmup)
    return cache[key]


def grad(fn: Callable, argnums: Argnums = 0, has_aux: bool = False, *, warmup: int = DEFAULT_WARMUP) -> GradFunction:
    """The gradient of scalar-valued ``fn`` with respect to the arguments ``argnums``."""
    return _grad_function(fn, argnums, has_aux, False, warmup)


def value_and_grad(fn: Callable, argnums: Argnums = 0, has_aux: bool = False, *, warmup: int = DEFAULT_WARMUP) -> GradFunction:
    """Like ``grad``, returning ``(value, gradients)`` (``((value, aux), gradients)`` with aux)."""
    return _grad_function(fn, argnums, has_aux, True, warmup)


# Called inside a traced function, the constructors just run (they are pure).
grad.janus_trace = lambda tracer, args, kwargs: grad(*args, **kwargs)  # type: ignore[attr-defined]
value_and_grad.janus_trace = lambda tracer, args, kwargs: value_and_grad(*args, **kwargs)  # type: ignore[attr-defined]
