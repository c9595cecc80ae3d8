"""``janus.jit``: profile a few imperative runs, then call a speculative compiled graph.

Per entry signature (see ``signature``) a function is in one of three states: warming
up (imperative runs under the profiler), compiled (a cached version whose entry guards,
``guards.EntryGuards``, check the signature, the globals it baked in and the heap it
touches), or imperative for good (the graph generator said why). A failed guard reruns
the call imperatively under the profiler, so the broken assumption is in the profile
when the graph is regenerated.
"""

from __future__ import annotations

import functools
import inspect
import time
import warnings
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable, Hashable

import numpy as np

from janus.frontend.trace.bytecode import SUPPORTED_VERSION, supported
from janus.frontend.generate import Graph, Result, generate
from janus.frontend.guards import EntryGuards, entry_guards
from janus.frontend.heap.rules import HeapMiss
from janus.frontend.profiler import Profile, profiling, run_profiled
from janus.frontend.relax import describe_position, value_diff
from janus.frontend.signature import describe_key, entry_key, key_and_leaves, leaf_shapes, shape_diff
from janus.frontend.speculation import FULL, Speculation, general_positions
from janus.frontend.values import NotConvertible
from janus.heap import HeapError

DEFAULT_WARMUP = 3
#: a speculated assumption whose guard failed this often is no longer made
MAX_FAILURES = 3
#: compiled versions kept per function (TorchDynamo's cache_size_limit): argument
#: signatures beyond them run imperatively instead of profiling and compiling again
MAX_VERSIONS = 8


@dataclass
class Version:
    """One compiled specialization of the function."""

    key: Hashable
    graph: Graph
    call: Callable[..., list[np.ndarray]]  # (leaves, heap objects=()) -> results
    #: every entry check, for the relaxed positions the key was taken under (rebuilt when they change)
    guards: EntryGuards = field(repr=False)
    calls: int = 0

    def run(self, leaves: list[np.ndarray], positional: tuple) -> Any:
        """The compiled call, its heap guards first: ``HeapMiss``/``HeapError`` (nothing
        committed) when the heap is not what the version assumed."""
        heap = self.graph.heap
        if heap is None:
            results = self.call(leaves)
        else:
            objects = heap.objects(positional)
            entry = self.guards.check_heap(objects, leaves)
            traffic = getattr(getattr(self.call, "__self__", None), "traffic", None)  # the runtime's byte counts
            results = heap.finish(objects, entry, leaves, self.call(leaves, objects), traffic)
        self.calls += 1
        return _rebuild(self.graph.output, results)


def _rebuild(shape: Any, results: list[np.ndarray]) -> Any:
    """The Python value ``shape`` describes; 0-d array results become NumPy scalars, as in NumPy."""
    if isinstance(shape, Result):
        value = results[shape.index]
        if shape.python is not None:  # a Python scalar result (a 0-d array when a heap structure holds it too)
            return shape.python(value)
        return value[()] if value.ndim == 0 else value
    if type(shape) in (list, tuple):
        return type(shape)(_rebuild(s, results) for s in shape)
    return shape.copy() if isinstance(shape, np.ndarray) else shape


class JitFunction:
    """The callable ``janus.jit`` returns; transparent to its callers."""

    def __init__(self, fn: Callable, warmup: int = DEFAULT_WARMUP, switches: Speculation = FULL) -> None:
        functools.update_wrapper(self, fn)
        self.fn, self.warmup, self.switches = fn, warmup, switches
        #: ``specialize=False``: the first call's dims and ints are relaxed before its key is taken
        self._generalize_pending = not switches.specialize
        self.signature = inspect.signature(fn)
        self._supported = supported()  # the interpreter cannot change under a function
        params = self.signature.parameters.values()
        #: calls with exactly this many positional arguments need no ``Signature.bind``
        self._plain_arity = len(params) if all(
            p.kind is p.POSITIONAL_OR_KEYWORD and p.default is p.empty for p in params) else -1
        self.profile = Profile()
        self.versions: dict[Hashable, Version] = {}
        self.fallbacks: dict[Hashable, str] = {}  # entry key (or None) -> why imperative
        self.warm: Counter[Hashable] = Counter()
        self.events: list[str] = []
        self.compiles = 0
        #: seconds spent generating and compiling graphs (janus-bench reports it)
        self.compile_seconds = 0.0
        #: (array leaf, dim) positions relaxed to ``?``; those that could not be
        self.dynamic: frozenset[tuple[int, int]] = frozenset()
        self.unrelaxable: set[tuple[int, int]] = set()
        self.relaxing: dict[Hashable, set[tuple[int, int]]] = {}  # relaxed key -> positions
        #: guard failures per (site, kind), and the branch sites no longer speculated
        self.failures: Counter[tuple[Any, str]] = Counter()
        self.unspeculated: frozenset = frozenset()
        #: the version the last call hit when its guards have a ``match``, tried before the full key walk
        self._fast: Version | None = None
        #: generation failed for a reason that holds for any arguments: every call is plain
        self.imperative = False

    def janus_trace(self, tracer: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
        """Called from code being traced: trace the plain function (inlined, or an invoke when recursive)."""
        return tracer.call(self.fn, args, kwargs)

    def __get__(self, obj: Any, objtype: type | None = None) -> Callable:
        return self if obj is None else functools.partial(self, obj)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self.imperative:
            return self.fn(*args, **kwargs)
        if profiling():  # called from a run being profiled: part of that run
            return self.fn(*args, **kwargs)
        if not self._supported:
            self._unsupported_interpreter()
            return self.fn(*args, **kwargs)
        fast = self._fast
        if fast is not None and not kwargs and len(args) == self._plain_arity and fast.guards.dynamic is self.dynamic:
            leaves = fast.guards.match(args)  # type: ignore[misc]  # not None: see ``_fast``
            if leaves is not None:
                return self._run_compiled(fast, fast.key, args, leaves, args, kwargs)
        self._fast = None
        positional = args if not kwargs and len(args) == self._plain_arity else self._bind(args, kwargs)
        if positional is None:
            return self.fn(*args, **kwargs)
        if self._generalize_pending:
            self._generalize(positional)
        try:
            key, leaves = key_and_leaves(positional, self.dynamic)
        except NotConvertible as e:
            self.fallbacks.setdefault(None, str(e))
            return self.fn(*args, **kwargs)
        version = self.versions.get(key)
        if version is not None and self._guards(version).globals_hold():
            self._fast = version if version.guards.match is not None else None
            return self._run_compiled(version, key, positional, leaves, args, kwargs)
        if key in self.fallbacks:
            return self.fn(*args, **kwargs)
        if version is None and key not in self.warm:
            key = self._relax(key, positional)
            version = self.versions.get(key)
        if version is not None:
            if self._guards(version).globals_hold():
                return self._run_compiled(version, key, positional, key_and_leaves(positional, self.dynamic)[1], args, kwargs)
            self.events.append(f"a global read by version {describe_args(self, key)} was rebound; re-profiling")
            del self.versions[key]
            self.warm[key] = 0
        if len(self.versions) >= MAX_VERSIONS:
            self.fallbacks[key] = (f"{len(self.versions)} versions are compiled already (janus.frontend.jit.MAX_VERSIONS); "
                                   "this signature runs imperatively")
            return self.fn(*args, **kwargs)
        return self._run_profiled(key, positional, args, kwargs)

    def _guards(self, version: Version) -> EntryGuards:
        """The guards of a version the key walk just hit, for the current relaxed positions
        (what a key node accepts depends on them)."""
        if version.guards.dynamic is not self.dynamic:
            version.guards = self._entry_guards(version.key, version.graph)
        return version.guards

    def _entry_guards(self, key: Hashable, graph: Graph) -> EntryGuards:
        return entry_guards(key, self.dynamic, self.signature_names, graph.globals_read, graph.heap)

    def _bind(self, args: tuple, kwargs: dict) -> tuple | None:
        """Positional arguments with defaults applied; None (run imperatively) when the call
        does not bind (Python raises the caller's TypeError) or needs keyword-only/variadic
        parameters (recorded as the reason)."""
        try:
            bound = self.signature.bind(*args, **kwargs)
        except TypeError:
            return None
        bound.apply_defaults()
        if bound.kwargs:
            self.fallbacks.setdefault(None, "keyword-only or variadic parameters are not supported")
            return None
        return bound.args

    def _relax(self, key: Hashable, positional: tuple) -> Hashable:
        """A new signature that differs from a known one only in array sizes: relax those
        dims to ``?`` (JANUS: exact shape, then partially known shape) and compile the
        relaxed version on this call, so later sizes hit it. Likewise for list lengths and
        int values (value -> type, see ``relax``)."""
        for known in [*self.versions, *self.warm]:
            diff = shape_diff(known, key) or value_diff(known, key)
            diff = diff - self.dynamic if diff else None  # relaxed dims that differ: equalities, kept exact
            if not diff or diff & self.unrelaxable:
                continue
            self.dynamic |= diff
            relaxed = entry_key(positional, self.dynamic)
            self.relaxing[relaxed] = diff
            dims = ", ".join(describe_position(p, self.signature_names) for p in sorted(diff, key=repr))
            self.events.append(f"new sizes for {describe_args(self, key)}: relaxing ({dims}) to ?")
            self.warm[relaxed] = max(self.warm[relaxed], self.warmup - 1)
            return relaxed
        return key

    def _generalize(self, positional: tuple) -> None:
        """``specialize=False``: relax every dim and int of the first call, undone as usual
        (``_build``) when the graph cannot take them relaxed."""
        self._generalize_pending = False
        try:
            positions = general_positions(positional) - self.unrelaxable
        except NotConvertible:
            return  # the call runs imperatively below, with the reason recorded
        self.dynamic |= positions
        self.relaxing[entry_key(positional, self.dynamic)] = positions
        self.events.append("specialize=False: array dims and int arguments relaxed from the first compile")

    @property
    def signature_names(self) -> list[str]:
        """Array leaf names for messages (positional parameter names; approximate for nested args)."""
        return list(self.signature.parameters)

    def _run_compiled(
        self, version: Version, key: Hashable, positional: tuple, leaves: list[np.ndarray], args: tuple, kwargs: dict
    ) -> Any:
        try:
            return version.run(leaves, positional)
        except (HeapMiss, HeapError) as miss:
            self._fast = None
            self.events.append(f"heap check failed for {describe_args(self, key)} ({miss}); ran imperatively and regenerated")
            del self.versions[key]
            self.warm[key] = self.warmup - 1
            return self._run_profiled(key, positional, args, kwargs)
        except _guard_failure() as failure:  # evaluated only when the call raised
            self._fast = None
            site = version.graph.guard_sites.get(failure.guard_id)
            if failure.kind == "raise":  # Python raises the real exception; the graph stays right for other calls
                return self._run_raising(failure, site, args, kwargs)
            self.failures[(site or failure.source, failure.kind)] += 1
            if self.failures[(site or failure.source, failure.kind)] >= MAX_FAILURES:
                if site is None:  # regenerating would make the same assumption again
                    del self.versions[key]
                    self.fallbacks[key] = f"{failure.kind} guard at {failure.source} failed {MAX_FAILURES} times"
                    self.events.append(f"{failure.kind} guard at {failure.source} failed {MAX_FAILURES} times: imperative for good")
                    return self.fn(*args, **kwargs)
                self.unspeculated |= {site}
                self.events.append(f"{failure.kind} guard at {failure.source} failed {MAX_FAILURES} times: no longer speculated")
            self.events.append(
                f"guard {failure.guard_id} ({failure.kind}) at {failure.source} failed for {describe_args(self, key)}; "
                "ran imperatively and regenerated"
            )
            del self.versions[key]
            self.warm[key] = self.warmup - 1
            return self._run_profiled(key, positional, args, kwargs)
        except RuntimeError as error:  # the compiled module failed (not a guard): nothing was committed
            self._fast = None
            del self.versions[key]
            reason = f"the compiled call failed: {str(error).splitlines()[0] if str(error) else type(error).__name__}"
            self.fallbacks[key] = reason
            self.events.append(f"{reason}; {describe_args(self, key)} runs imperatively")
            return self.fn(*args, **kwargs)

    def _run_raising(self, failure: Any, site: Any, args: tuple, kwargs: dict) -> Any:
        """A ``raise`` guard failed: run imperatively (it raises, or an outer handler
        catches); regenerating would give the same graph, so the version is kept."""
        self.failures[(site, "raise")] += 1
        if self.failures[(site, "raise")] == 1:
            self.events.append(f"raise guard {failure.guard_id} at {failure.source} failed: ran imperatively, version kept")
        return self.fn(*args, **kwargs)

    def _run_profiled(self, key: Hashable, positional: tuple, args: tuple, kwargs: dict) -> Any:
        result = run_profiled(self.fn, args, kwargs, self.profile)
        self.warm[key] += 1
        if self.warm[key] >= self.warmup:
            self._build(key, positional)
        return result

    def _build(self, key: Hashable, positional: tuple) -> None:
        from janus.frontend.backend import compile_function

        relaxing = self.relaxing.pop(key, None)
        started = time.perf_counter()
        try:
            if entry_key(positional, self.dynamic) != key:
                raise NotConvertible("the call changed its own arguments (a heap write)")
            graph = generate(self.fn, positional, self.profile, leaf_shapes(key), self.unspeculated, self.dynamic,
                             self.switches)
            self.versions[key] = Version(key, graph, compile_function(graph), self._entry_guards(key, graph))
            self.compiles += 1
            if relaxing is not None:  # exact versions this one serves are no longer reachable
                for old in [k for k in self.versions if shape_diff(k, key) is not None or value_diff(k, key)]:
                    del self.versions[old]
            self.events.append(f"compiled version {self.compiles} for {describe_args(self, key)}")
        except NotConvertible as e:
            if relaxing is not None:  # keep exact shapes for these dims; this call already ran
                self.dynamic -= relaxing
                self.unrelaxable |= relaxing
                self.warm.pop(key, None)
                self.events.append(f"? dims not possible ({e}); exact shapes kept")
                return
            self.fallbacks[key] = str(e)
            if e.any_signature and not self.versions:
                self._imperative_for_good(str(e))
        except Exception as e:  # a compiler error must not become a wrong (or no) answer
            self.fallbacks[key] = f"compilation failed: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
        finally:
            self.compile_seconds += time.perf_counter() - started

    def _imperative_for_good(self, reason: str) -> None:
        """Stop keying calls: no argument signature could compile (``certain``)."""
        self.imperative = True
        self.fallbacks = {None: reason}
        self.warm.clear()
        self.events.append("the reason holds for any arguments: imperative for every call, no entry keys computed")

    def _unsupported_interpreter(self) -> None:
        if None not in self.fallbacks:
            version = ".".join(map(str, SUPPORTED_VERSION))
            self.fallbacks[None] = f"this interpreter is not CPython {version}; janus.jit runs imperatively"
            warnings.warn(self.fallbacks[None], RuntimeWarning, stacklevel=3)


def _guard_failure() -> type[Exception]:
    """``GuardFailure``, imported when a compiled call raised (the backend loads IREE; an
    import statement costs about a microsecond on every call)."""
    from janus.frontend.backend import GuardFailure

    return GuardFailure


def describe_args(jf: JitFunction, key: Hashable) -> str:
    if key is None:
        return "(any arguments)"
    names = list(jf.signature.parameters)
    return ", ".join(f"{n}: {describe_key(k)}" for n, k in zip(names, key))


def jit(fn: Callable | None = None, *, warmup: int = DEFAULT_WARMUP, speculate: bool = True, unroll: bool = True,
        specialize: bool = True) -> Any:
    """Compile ``fn`` speculatively after ``warmup`` profiled imperative calls.

    Usable as ``@jit``, ``@jit(warmup=2)`` or ``jit(f)``, on functions and methods; a jit
    function (``janus.grad`` returns one) is returned as it is. ``speculate``, ``unroll``
    and ``specialize`` switch speculative optimizations off (see ``speculation``).
    """
    switches = Speculation(speculate, unroll, specialize)
    if fn is None:
        return lambda f: jit(f, warmup=warmup, speculate=speculate, unroll=unroll, specialize=specialize)
    return fn if isinstance(fn, JitFunction) else JitFunction(fn, warmup, switches)


def explain(fn: Any) -> str:
    """A readable report: compiled versions with their entry guards, and fallbacks with reasons."""
    if not isinstance(fn, JitFunction):
        return f"{getattr(fn, '__qualname__', fn)!s} is not a janus.jit function"
    lines = [f"janus.jit {fn.__qualname__}: {fn.profile.runs} profiled run(s), warmup {fn.warmup}, "
             f"{fn.switches.describe()}"]
    for key, version in fn.versions.items():
        lines.append(f"compiled: {describe_args(fn, key)} ({version.calls} compiled call(s))")
        describe_driver = getattr(getattr(version.call, "__self__", None), "describe_driver", None)
        if describe_driver is not None:  # the runtime's CompiledFunction: which driver runs the calls
            lines.append(f"  {describe_driver()}")
        lines.extend(f"  entry guard: {line}" for line in version.guards.describe())
        lines.extend(f"  guard {gid}: {kind} at {source}" for gid, kind, source in version.graph.guards)
    for key, reason in fn.fallbacks.items():
        lines.append(f"imperative: {describe_args(fn, key)}: {reason}")
    lines.extend(f"event: {event}" for event in fn.events)
    return "\n".join(lines)
