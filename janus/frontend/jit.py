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
import logging
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable, Hashable

import numpy as np

from janus.frontend import logs, segments
from janus.frontend.fp_errors import errors_observed, observed_test
from janus.frontend.logs import SWITCH, ConversionError
from janus.frontend.trace.split import BranchToSplit
from janus.frontend.trace.versions import supported, unsupported_message
from janus.frontend.generate import Argument, Graph, Passed, Record, Result, generate
from janus.frontend.guards import MISS, EntryGuards, entry_guards
from janus.frontend.heap.rules import DICTS, HeapMiss
from janus.frontend.profiler import RUNNING, Profile, profiling, run_profiled
from janus.frontend.recursion import node_writes, trees
from janus.frontend.relax import describe_position, key_diff, leaf_labels
from janus.frontend.signature import as_came, describe_key, entry_key, key_and_leaves, leaf_shapes
from janus.frontend.speculation import FULL, Speculation, general_positions, loop_counter_positions
from janus.frontend.values import NotConvertible
from janus.frontend.heap.plan import HeapPlan
from janus.heap import AccessPath, HeapError
from janus.runtime import host_modules
from janus.runtime.entry_choice import COMPILED_TRIAL_CALLS, COMPILED_TRIAL_SECONDS, CompiledCost

DEFAULT_WARMUP = 3
#: a speculated assumption whose guard failed this often is no longer made
MAX_FAILURES = 3
#: a ``python`` guard failing on more than one call in this many of its version's (and
#: ``MAX_FAILURES`` at least) makes its branch a segment boundary: a call taking the side
#: that does not convert then keeps its array work compiled, instead of running in Python
PYTHON_SIDE_SHARE = 4
#: compiled versions kept per function (TorchDynamo's cache_size_limit): argument
#: signatures beyond them run imperatively instead of profiling and compiling again
MAX_VERSIONS = 8
#: why a resume function runs in Python (``JitFunction._cheaper_in_python``)
CHEAPER_IN_PYTHON = "the rest of the call does no array work: Python runs it faster than a launch"
#: what a split version's fused call returns (a module constant: read on every call)
_CONTINUATION = segments.Continuation
#: the clock of the cost rules (tests patch it)
clock = time.perf_counter
#: what a call that runs in Python does besides: ``FallbackWarning`` once per reason, raise, or nothing
FALLBACK_MODES = ("warn", "error", "silent")


@dataclass
class Version:
    """One compiled specialization of the function."""

    key: Hashable
    graph: Graph
    call: Callable[..., list[np.ndarray]]  # (leaves, heap objects=()) -> results
    #: every entry check, for the relaxed positions the key was taken under (rebuilt when they change)
    guards: EntryGuards = field(repr=False)
    calls: int = 0
    compile_seconds: float = 0.0
    #: the function that goes on after the graph's boundary (``segments``), a ``JitFunction``
    resume: Any = None
    #: seconds in the compiled segment (measured for split versions only)
    segment_seconds: float = 0.0
    #: its calls timed against plain ones (``segments.CallCost`` for a split version, else
    #: ``entry_choice.CompiledCost``), until settled
    cost: segments.CallCost | CompiledCost | None = None
    #: the times of its fused calls while they are timed for the cost rule (``JitFunction._timed``), else None
    trial: list[float] | None = None

    def __post_init__(self) -> None:
        self.set_guards(self.guards)

    def set_guards(self, guards: EntryGuards) -> None:
        """Use ``guards`` (made for the current relaxed positions), and the fused call from them."""
        self.guards = guards
        #: ``args -> value`` (``MISS`` when the guards do not match): the entry guards, the
        #: heap checks, the runtime's generated call and the result rebuild (for a version
        #: ending at a boundary: the ``segments.Continuation``) in one function
        #: (``guards.EntryGuards.fuse``), with the stores of a version writing attributes of one
        #: object (``_fused_commits``); None for a version with other heap writes, writing tree
        #: nodes, or with nested arguments
        self.quick: Callable[[tuple], Any] | None = None
        graph, heap, boundary = self.graph, self.graph.heap, self.graph.boundary
        owner = getattr(self.call, "__self__", None)  # the runtime's CompiledFunction (a stub in some tests)
        commits = _fused_commits(heap, owner, guards) if heap is not None and boundary is None else None
        if guards.fuse is None or heap is not None and not heap.inert and commits is None or graph.tree_writes:
            return
        run = (owner.steady_call(bool(commits)) if hasattr(owner, "steady_call")
               else None if heap is not None else self.call)
        if run is None:
            return
        observed, names = observed_test()
        names.update(version=self, rebuild=_rebuild, output=graph.output, SWITCH=SWITCH, RUNNING=RUNNING)
        # what ``JitFunction.__call__`` checks before the version's guards: compiling on, not profiling, and
        # NumPy not asked to raise on floating-point errors (a graph would not)
        prologue = [f"if not SWITCH.enabled or RUNNING or {observed}: return MISS"]
        finish = ["version.calls += 1", *_rebuild_source(graph.output, run if hasattr(run, "python_type") else None)]
        if boundary is not None:  # the segment, then the continuation the caller drives (``segments``)
            names.update(boundary=boundary, resume=self.resume, Continuation=segments.Continuation, Env=segments.Env,
                         clock=time.perf_counter)
            finish = ["version.calls += 1", "version.segment_seconds += clock() - started",
                      f"return Continuation(boundary, resume, Env(results, leaves, {'held' if heap else '[]'}, args))"]
        self.quick = guards.fuse(run, finish, names, None if heap is None else (heap.sources, owner.heap_reads),
                                 () if boundary is None else boundary.held,
                                 prologue if boundary is None else [*prologue, "started = clock()"], commits or ())

    @functools.cached_property
    def traffic(self) -> Any:
        """The runtime's byte counts of ``call`` (its ``CompiledFunction``'s), or None."""
        return getattr(getattr(self.call, "__self__", None), "traffic", None)

    def run(self, leaves: list[np.ndarray], positional: tuple) -> Any:
        """The compiled call, its heap guards first: ``HeapMiss``/``HeapError`` (nothing
        committed) when the heap is not what the version assumed. A version ending at a
        boundary returns the ``segments.Continuation`` that runs the rest of the call."""
        graph = self.graph
        heap, boundary = graph.heap, graph.boundary
        if heap is None and boundary is None and not graph.tree_writes:  # arguments in, results out
            results = self.call(leaves)
            self.calls += 1
            return _rebuild(graph.output, results, leaves, positional)
        held: list = []
        started = time.perf_counter() if boundary is not None else 0.0
        if heap is None:
            results = self.call(leaves)
        else:
            objects = heap.objects(positional)
            entry = self.guards.check_heap(objects, leaves)
            if boundary is not None:
                held = boundary.hold(objects)
            results = heap.finish(objects, entry, leaves, self.call(leaves, objects), self.traffic)
        if self.graph.tree_writes:
            node_writes.commit(self.graph.tree_writes, positional, results)
        self.calls += 1
        if boundary is not None:
            self.segment_seconds += time.perf_counter() - started
            return segments.Continuation(boundary, self.resume, segments.Env(results, leaves, held, positional))
        return _rebuild(self.graph.output, results, leaves, positional)


def _fused_commits(heap: HeapPlan, owner: Any, guards: EntryGuards) -> list[tuple[AccessPath, int]] | None:
    """The heap writes a version's fused call stores itself (location, result index): for a
    plan whose commit is one store per attribute (``HeapPlan.stores_only``) of fresh arrays
    (``CompiledFunction.written``), every location read or written an attribute of one
    object (distinct names: distinct locations), no in-place or argument-aliasing guard;
    else None (``Version.run`` and the runtime commit)."""
    if not heap.stores_only or guards.in_place or guards.arguments_written or not hasattr(owner, "written"):
        return None
    written = owner.written()
    if not written or {path for path, _ in written} != {path for path, _ in heap.writes}:
        return None
    paths = [*owner.heap_reads, *(path for path, _ in written)]
    if not all(path.steps and path.steps[-1][0] == "attr" for path in paths) or len({p.parent for p in paths}) != 1:
        return None
    return written


def _rebuild_source(shape: Any, steady: Any = None) -> list[str]:
    """Lines returning ``_rebuild(output, results, leaves, args)``: direct for one result, as it
    is when the runtime's generated call (``steady``, a ``fast_path.SteadyCall``) gives it as the
    Python scalar it stands for, or as an array of at least one dimension (no 0-d test)."""
    if type(shape) is Result:
        if shape.python is not None and steady is not None and steady.python_type(shape.index) is shape.python:
            return [f"return results[{shape.index}]"]
        if shape.python is not None:
            return [f"return output.python(results[{shape.index}])"]
        if steady is not None and steady.array_result(shape.index):
            return [f"return results[{shape.index}]"]
        return [f"value = results[{shape.index}]", "return value[()] if value.ndim == 0 else value"]
    return ["return rebuild(output, results, leaves, args)"]


def _rebuild(shape: Any, results: list[np.ndarray], leaves: list[np.ndarray], args: tuple) -> Any:
    """The Python value ``shape`` describes; 0-d array results become NumPy scalars, as in NumPy."""
    if isinstance(shape, Argument):
        return shape.value(leaves)
    if isinstance(shape, Passed):
        return args[shape.index]
    if isinstance(shape, Result):
        value = results[shape.index]
        if shape.python is not None:  # a Python scalar result (a 0-d array when a heap structure holds it too)
            return shape.python(value)
        return value[()] if value.ndim == 0 else value
    if type(shape) in (list, tuple):
        return type(shape)(_rebuild(s, results, leaves, args) for s in shape)
    if type(shape) in DICTS:
        return type(shape)((k, _rebuild(v, results, leaves, args)) for k, v in shape.items())
    if isinstance(shape, Record):
        return shape.rebuild(lambda s: _rebuild(s, results, leaves, args))
    return shape.copy() if isinstance(shape, np.ndarray) else shape


@dataclass(frozen=True)
class Lowered:
    """What ``JitFunction.lower`` returns: the module text before and after the janus passes."""

    mlir: str  # as the graph generator wrote it
    lowered: str  # after ``pipeline``: upstream dialects only, what IREE compiles
    pipeline: str

    def __str__(self) -> str:
        return self.lowered


class JitFunction:
    """The callable ``janus.jit`` returns; transparent to its callers."""

    #: a call the trace cannot convert ends a compiled segment (``segments``) instead of the whole version
    SPLITS = True
    #: calls timed each way before a split version's cost rule decides (``segments.CallCost``; 0: no rule)
    COST_CALLS = 5
    #: the cost rule of compiled versions (``entry_choice.CompiledCost``): a version clearly slower
    #: than Python on its key gives the key to Python (also off when ``COST_CALLS`` is 0)
    COMPILED_COST = True

    def __init__(self, fn: Callable, warmup: int = DEFAULT_WARMUP, switches: Speculation = FULL,
                 fallback: str = "warn") -> None:
        if fallback not in FALLBACK_MODES:
            raise ValueError(f"janus.jit: fallback must be one of {FALLBACK_MODES}, not {fallback!r}")
        functools.update_wrapper(self, fn)
        self.fn, self.warmup, self.switches, self.fallback = fn, warmup, switches, fallback
        self.signature = inspect.signature(fn)
        self._supported = supported()  # the interpreter cannot change under a function
        params = self.signature.parameters.values()
        plain = all(p.kind is p.POSITIONAL_OR_KEYWORD for p in params)
        #: calls with exactly this many positional arguments need no ``Signature.bind``
        self._plain_arity = len(params) if plain else -1
        #: the trailing parameters' defaults: a positional call that leaves some out gets them
        #: appended (``__call__``), as ``Signature.bind`` would apply them, without its cost
        self._defaults = tuple(p.default for p in params if p.default is not p.empty) if plain else ()
        self._required = self._plain_arity - len(self._defaults)
        #: parameter names as the code object orders its locals (keyword-only, then ``*args``,
        #: then ``**kwargs`` after the positional ones): the order of a call's key
        kind = inspect.Parameter
        order = ((kind.POSITIONAL_ONLY, kind.POSITIONAL_OR_KEYWORD), (kind.KEYWORD_ONLY,), (kind.VAR_POSITIONAL,),
                 (kind.VAR_KEYWORD,))
        self._code_order = [p.name for kinds in order for p in params if p.kind in kinds]
        self._rebound = any(p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params)
        self.clear_cache()

    def clear_cache(self) -> None:
        """Forget every profile, compiled version, fallback and relaxation: the next calls
        warm up again (after the function's globals or closure changed in ways no guard sees)."""
        #: ``specialize=False``: the first call's dims and ints are relaxed before its key is taken
        self._generalize_pending = not self.switches.specialize
        self.profile = Profile()
        self.versions: dict[Hashable, Version] = {}
        self.fallbacks: dict[Hashable, str] = {}  # entry key (or None) -> why imperative
        self.warm: Counter[Hashable] = Counter()
        self.events: list[str] = []
        self.compiles = 0
        #: plain calls a cost rule ran to time them against a version's (``_run_timed_plain``)
        self.timed_plain = 0
        #: seconds spent generating and compiling graphs (janus-bench reports it)
        self.compile_seconds = 0.0
        #: (array leaf, dim) positions relaxed to ``?``; those that could not be
        self.dynamic = frozenset()
        self.unrelaxable: set[tuple[int, int]] = set()
        self.relaxing: dict[Hashable, set[tuple[int, int]]] = {}  # relaxed key -> positions
        #: guard failures per (site, kind), and the branch sites no longer speculated
        self.failures: Counter[tuple[Any, str]] = Counter()
        #: heap location label -> the type of the Python scalar whose value varied there (``HeapMiss.varied``)
        self.varied_types: dict[str, type] = {}
        self.unspeculated: frozenset = frozenset()
        self._fast = None
        #: generation failed for a reason that holds for any arguments: every call is plain
        self.imperative = False
        self._settled_python = None  # see ``_settle_in_python``
        #: a plain call timed by a cost rule is running: its recursive calls are plain too
        self._timing_plain = False
        self._reported: set[str] = set()  # fallback reasons already warned about
        #: resume functions (``segments``) by the point they resume at, kept across regenerations
        self.resumes: dict[Any, JitFunction] = {}
        self._chained = False  # see ``call_chained``
        #: the function the user jitted (a resume function's: the one it resumes), which warns of splits
        self.owner: JitFunction = self

    def report(self, globals: bool = False) -> list[str]:
        """``janus.explain``'s lines (see there)."""
        lines = [f"janus.jit {self.__qualname__}: {self.profile.runs} profiled run(s), warmup {self.warmup}, "
                 f"{self.switches.describe()}, {self.compile_seconds:.3f} s compiling"]
        for key, version in self.versions.items():
            lines.append(f"compiled: {describe_args(self, key)} ({version.calls} compiled call(s), "
                         f"compiled in {version.compile_seconds:.3f} s)")
            describe_driver = getattr(getattr(version.call, "__self__", None), "describe_driver", None)
            if describe_driver is not None:  # the runtime's CompiledFunction: which driver runs the calls
                lines.append(f"  {describe_driver()}")
            lines.extend(f"  entry guard: {line}" for line in version.guards.describe(modules=globals))
            lines.extend(f"  guard {gid}: {kind} at {source}" for gid, kind, source in version.graph.guards)
            lines.extend(f"  {line}" for line in self._segments(version, {id(self)}))
            if version.graph.boundary is not None:
                lines.append(f"  {_time_split(version)}")
        for key, reason in self.fallbacks.items():
            lines.append(f"imperative: {describe_args(self, key)}: {reason}")
        lines.extend(f"event: {event}" for event in self.events)
        return lines

    def _segments(self, version: Version, seen: set[int]) -> list[str]:
        """A split version's Python operation and what follows it (``janus.explain``);
        ``seen``: the resume functions listed above (a loop's boundary resumes at one)."""
        boundary = version.graph.boundary
        if boundary is None:
            return []
        lines = [f"segment: {version.segment_seconds:.6f} s compiled",
                 f"python: {boundary.description} at {boundary.source} ({boundary.runs} run(s), "
                 f"{boundary.python_seconds:.6f} s in Python): {boundary.reason}",
                 f"then: {boundary.then_seconds:.6f} s in what follows (below)"]
        for rest in (version.resume, boundary.after_loop):  # a step of a loop over a lazy iterator: its exit too
            if rest is None:
                continue
            if id(rest) in seen:
                below = [f"(the resume function above, {rest.__name__}, again)"]
            else:
                seen = seen | {id(rest)}
                below = rest.continuation_report(seen)
            if rest is boundary.after_loop and below:
                lines.append("then, when it has no next item:")
            lines += [f"  {line}" for line in below]
        return lines

    def split_versions(self) -> list[Version]:
        """The versions ending at a segment boundary, this function's and (recursively) its resume functions'."""
        found, seen, todo = [], {id(self)}, [self]
        while todo:
            for version in todo.pop().versions.values():
                if version.graph.boundary is not None:
                    found.append(version)
                    if id(version.resume) not in seen:
                        seen.add(id(version.resume))
                        todo.append(version.resume)
        return found

    def continuation_report(self, seen: set[int]) -> list[str]:
        """The lines of a resume function under the boundary it follows: its compiled segments
        (each, recursively, with its own boundary) and its runs in Python."""
        lines = []
        for key, version in self.versions.items():
            lines.append(f"compiled segment: {describe_args(self, key)} ({version.calls} compiled call(s))")
            lines.extend(f"  {line}" for line in self._segments(version, seen))
        lines.extend(f"python: the rest for {describe_args(self, key)}: {reason}" for key, reason in self.fallbacks.items())
        if self.profile.runs:
            lines.append(f"python: the rest, {self.profile.runs} profiled run(s) (warm-up, guard failures)")
        return lines

    def _fall_back(self, key: Hashable, reason: str) -> None:
        """Record why calls with ``key`` run in Python, and tell the user once per reason
        (``fallback``: warn, raise ``ConversionError``, or only log)."""
        self.fallbacks[key] = reason
        message = self._fallback_message(key)
        logs.fallbacks.info(message)
        if self.fallback == "error":
            raise ConversionError(message)
        if self.fallback == "warn" and reason not in self._reported:
            self._reported.add(reason)
            logs.warn(f"{message} (janus.explain({self.__name__}) tells more; "
                      "janus.jit(..., fallback='silent') silences this)")

    def _fallback_message(self, key: Hashable) -> str:
        return f"janus.jit {self.__qualname__}: {describe_args(self, key)} runs in Python: {self.fallbacks[key]}"

    def _in_python(self, key: Hashable, args: tuple, kwargs: dict) -> Any:
        """A call whose signature has a recorded fallback: plain Python, or, with
        ``fallback="error"``, ``ConversionError`` on every such call (not only the first)."""
        if self.fallback == "error":
            raise ConversionError(self._fallback_message(key))
        return self.fn(*args, **kwargs)

    def _settle_in_python(self, key: Hashable) -> None:
        """Calls like this one (``key``; None: any arguments) run in Python from now on without
        the key walk: ``__call__`` first tries the key's compiled argument guards
        (``EntryGuards.match``, which holds exactly when the walk would give ``key``), then calls
        the plain function. A call they do not match takes the full path (a new key or new
        types are seen as before); so does any call with keyword arguments. Not with
        ``fallback="error"`` (every such call raises), nor where the guards of ``key`` do not
        compile (nested arguments) or the call's arguments are not its positional ones."""
        if self.fallback == "error" or self._rebound:
            return
        if key is None:
            self._settled_python = _any_arguments
            return
        self._settled_python = entry_guards(key, self.dynamic, self.signature_names).match

    def _event(self, text: str) -> None:
        """A change of compiled state, for ``janus.explain`` and the ``recompiles`` log."""
        self.events.append(text)
        logs.recompiles.info("janus.jit %s: %s", self.__qualname__, text)

    def janus_trace(self, tracer: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
        """Called from code being traced: trace the plain function (inlined, or an invoke when recursive)."""
        return tracer.call(self.fn, args, kwargs)

    def __get__(self, obj: Any, objtype: type | None = None) -> Callable:
        """``obj.method``: the jit function with ``obj`` first (``janus.explain`` sees through it)."""
        return self if obj is None else functools.partial(self, obj)

    def lower(self, *args: Any, **kwargs: Any) -> Lowered:
        """The MLIR a call with these arguments compiles to, as generated and after the pass
        pipeline, without compiling it. Generation speculates on what profiled runs did, so
        a function that has not run yet runs once here, under the profiler."""
        positional = args if not kwargs and len(args) == self._plain_arity else self._bind(args, kwargs)
        if positional is None:
            raise ConversionError(f"janus.jit {self.__qualname__}: these arguments do not bind as positional ones")
        from janus.frontend.backend import lower_graph

        try:
            key = entry_key(positional, self.dynamic)
            if not self.profile.runs:
                run_profiled(self.fn, args, kwargs, self.profile)
            graph = generate(self.fn, positional, self.profile, leaf_shapes(key), self.unspeculated, self.dynamic,
                             self.switches)
        except NotConvertible as e:
            raise ConversionError(f"janus.jit {self.__qualname__}: {e}") from None
        pipeline, lowered = lower_graph(graph)
        return Lowered(graph.text, lowered, pipeline)

    @property
    def _fast(self) -> Version | None:
        """The version the last call hit when its guards have a ``match``, tried before the full key walk."""
        return self._fast_version

    @_fast.setter
    def _fast(self, version: Version | None) -> None:
        self._fast_version = version
        if version is not None:  # a compiled call: the settled Python key is not the last one seen
            self._settled_python = None
        # a version's fused call takes the key's values as the caller's positional arguments; with
        # keyword-only or variadic parameters they are not (see ``_bind``); and not while a split
        # version's cost rule times it (``_run_compiled`` runs the fused call then)
        self._quick = (None if version is None or self._rebound or version.cost is not None
                       or version.guards.dynamic is not self.dynamic else version.quick)
        if self._quick is not None and version.trial is not None:  # type: ignore[union-attr]
            self._quick = self._timed(version, self._quick)  # type: ignore[arg-type]

    @property
    def dynamic(self) -> frozenset[tuple[int, int]]:
        """(array leaf, dim) positions relaxed to ``?``."""
        return self._dynamic

    @dynamic.setter
    def dynamic(self, positions: frozenset[tuple[int, int]]) -> None:
        self._dynamic = positions
        # the fused call's guards were made for the old positions, and so was a settled key
        self._quick = self._settled_python = None

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if len(args) < self._plain_arity and len(args) >= self._required and not kwargs:  # ``train(x, y)``, lr defaulted
            args += self._defaults[len(args) - self._required:]
        # the compiled call first, the common case (``_fast`` clears a settled Python key when it sets the fused call)
        quick = self._quick
        if quick is not None and not kwargs:  # it checks the switches, profiling and NumPy's errstate too
            try:
                result = quick(args)
            except Exception as error:
                fast = self._fast_version
                return self._failed(fast, fast.key, args, args, kwargs, error)  # type: ignore[union-attr]
            if result is not MISS:
                if type(result) is _CONTINUATION:  # a split version's segment committed (``_run_compiled``)
                    return result if self._chained else segments.drive(result)
                return result
        settled = self._settled_python
        if settled is not None and not kwargs and settled(args) is not None:
            return self.fn(*args)
        if not SWITCH.enabled or self._timing_plain or errors_observed():  # np.errstate(...="raise"): NumPy raises
            return self.fn(*args, **kwargs)  # (a graph would not); a recursive call inside a plain call being timed
        if self.imperative:
            self._settle_in_python(None)
            return self._in_python(None, args, kwargs)
        if profiling():  # called from a run being profiled: part of that run
            return self.fn(*args, **kwargs)
        if not self._supported:
            self._unsupported_interpreter()
            return self._in_python(None, args, kwargs)
        fast = self._fast_version
        if (fast is not None and quick is None and not kwargs and len(args) == self._plain_arity
                and fast.guards.dynamic is self.dynamic):
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
            if None not in self.fallbacks:
                self._fall_back(None, str(e))
            return self._in_python(None, args, kwargs)
        version = self.versions.get(key)
        if version is not None and self._guards(version).globals_hold():
            self._fast = version if version.guards.match is not None else None
            return self._run_compiled(version, key, positional, leaves, args, kwargs)
        if key in self.fallbacks:
            if positional is args and version is None:
                self._settle_in_python(key)
            return self._in_python(key, args, kwargs)
        if version is None and key not in self.warm:
            key = self._relax(key, positional)
            version = self.versions.get(key)
        if version is not None:
            if self._guards(version).globals_hold():
                return self._run_compiled(version, key, positional, key_and_leaves(positional, self.dynamic)[1], args, kwargs)
            self._event(f"a global read by version {describe_args(self, key)} was rebound; re-profiling")
            del self.versions[key]
            self.warm[key] = 0
        if len(self.versions) >= MAX_VERSIONS:
            self._fall_back(key, f"{len(self.versions)} versions are compiled already (janus.frontend.jit.MAX_VERSIONS); "
                                 "this signature runs imperatively")
            return self.fn(*args, **kwargs)
        return self._run_profiled(key, positional, args, kwargs)

    def _guards(self, version: Version) -> EntryGuards:
        """The guards of a version the key walk just hit, for the current relaxed positions
        (what a key node accepts depends on them)."""
        if version.guards.dynamic is not self.dynamic:
            version.set_guards(self._entry_guards(version.key, version.graph))
        return version.guards

    def _entry_guards(self, key: Hashable, graph: Graph) -> EntryGuards:
        return entry_guards(key, self.dynamic, self.signature_names, graph.globals_read, graph.heap)

    def _bind(self, args: tuple, kwargs: dict) -> tuple | None:
        """The parameters' values, defaults applied, in the code object's order (``*args``
        as a tuple, ``**kwargs`` as a dict); None (run imperatively) when the call does not
        bind (Python raises the caller's TypeError)."""
        try:
            bound = self.signature.bind(*args, **kwargs)
        except TypeError:
            return None
        bound.apply_defaults()
        if not self._rebound:
            return bound.args
        values = bound.arguments
        return tuple(values[name] for name in self._code_order)

    def _relax(self, key: Hashable, positional: tuple) -> Hashable:
        """A new signature that differs from a known one only in array sizes: relax those
        dims to ``?`` (JANUS: exact shape, then partially known shape) and compile the
        relaxed version on this call, so later sizes hit it. Likewise for list lengths and
        int values (value -> type, see ``relax``)."""
        for known in [*self.versions, *self.warm]:
            diff = key_diff(known, key)
            diff = diff - self.dynamic if diff else None  # relaxed dims that differ: equalities, kept exact
            if not diff or diff & self.unrelaxable:
                continue
            self.dynamic |= diff
            relaxed = entry_key(positional, self.dynamic)
            self.relaxing[relaxed] = diff
            leaves = leaf_labels(key, self.signature_names)
            dims = ", ".join(describe_position(p, self.signature_names, leaves) for p in sorted(diff, key=repr))
            self._event(f"new sizes for {describe_args(self, key)}: relaxing ({dims}) to ?")
            self.warm[relaxed] = max(self.warm[relaxed], self.warmup - 1)
            return relaxed
        return key

    def _generalize(self, positional: tuple) -> None:
        """``specialize=False``: relax every dim and int of the first call, undone as usual
        (``_build``) when the graph cannot take them relaxed."""
        self._generalize_pending = False
        try:
            positions = (general_positions(positional) if not self.switches.specialize
                         else loop_counter_positions(positional)) - self.unrelaxable
        except NotConvertible:
            return  # the call runs imperatively below, with the reason recorded
        if not positions:
            return
        self.dynamic |= positions
        self.relaxing[entry_key(positional, self.dynamic)] = positions
        self._event("specialize=False: array dims and int arguments relaxed from the first compile"
                    if not self.switches.specialize else "ints relaxed from the first compile (a loop's counter)")

    @property
    def signature_names(self) -> list[str]:
        """Array leaf names for messages (positional parameter names; approximate for nested args)."""
        return list(self.signature.parameters)

    def call_chained(self, *args: Any) -> Any:
        """A resume function called by the continuation before it: a ``Continuation`` it
        returns is given back to the driving loop (``segments.drive``), not run here."""
        outer, self._chained = self._chained, True
        try:
            return self(*args)
        finally:
            self._chained = outer

    def _run_compiled(
        self, version: Version, key: Hashable, positional: tuple, leaves: list[np.ndarray], args: tuple, kwargs: dict
    ) -> Any:
        cost = version.cost
        if cost is not None:
            if cost.wants_plain():
                return self._run_timed_plain(version, key, args, kwargs)
            started, warming = clock(), self._resume_runs()
        # a compiled version's calls timed where they do not take its fused call (its first, cold, among them)
        trial = version.trial is not None
        if trial:
            started = clock()
        try:
            # a split version being timed runs as it will once settled: through its fused call
            quick = version.quick if cost is not None and positional is args else None
            result = MISS if quick is None else quick(args)
            if result is MISS:
                result = version.run(leaves, positional)
            if type(result) is not segments.Continuation:
                if trial:
                    self._trial_call(version, clock() - started)
                return result
        except Exception as error:
            return self._failed(version, key, positional, args, kwargs, error)
        # the segment committed: what follows (Python, then the resume function) is outside the handlers above
        if self._chained:
            return result
        value = segments.drive(result)
        if cost is not None:
            cost.record(clock() - started, steady=self._resume_runs() == warming)
        return value

    def _failed(self, version: Version, key: Hashable, positional: tuple, args: tuple, kwargs: dict,
                error: Exception) -> Any:
        """A compiled call of ``version`` raised ``error`` (nothing was committed): a heap check
        or a guard failed (rerun in Python, regenerate) or the module failed (Python for good
        for ``key``); any other error is the caller's."""
        self._fast = None
        if isinstance(error, (HeapMiss, HeapError)):
            del self.versions[key]
            varied = getattr(error, "varied", None) not in (None, *self.profile.exact_heap)
            # failures in a row, each by a version that never ran: regenerating assumes the same again
            self.failures[(key, "heap")] = (0 if version.calls else self.failures[(key, "heap")]) + (not varied)
            if self.failures[(key, "heap")] >= MAX_FAILURES:
                reason = f"heap check failed {MAX_FAILURES} times in a row ({error})"
                self._event(f"{reason}: {describe_args(self, key)} runs imperatively for good")
                self._fall_back(key, reason)
                return self.fn(*args, **kwargs)
            self._event(f"heap check failed for {describe_args(self, key)} ({error}); ran imperatively and regenerated")
            if varied:  # a counter: a graph input from now on
                self.profile.varying_heap.add(error.varied)
                self.varied_types[error.varied] = error.varied_type
            return self._regenerate(key, positional, args, kwargs)
        if isinstance(error, _guard_failure()):
            return self._guard_failed(version, key, positional, args, kwargs, error)
        if isinstance(error, RuntimeError):  # the compiled module failed (not a guard)
            del self.versions[key]
            reason = f"the compiled call failed: {str(error).splitlines()[0] if str(error) else type(error).__name__}"
            self._event(f"{reason}; {describe_args(self, key)} runs imperatively")
            self._fall_back(key, reason)
            return self.fn(*args, **kwargs)
        raise error

    def _guard_failed(self, version: Version, key: Hashable, positional: tuple, args: tuple, kwargs: dict,
                      failure: Any) -> Any:
        site = version.graph.guard_sites.get(failure.guard_id)
        failed = self.failures[(site, failure.kind)] + 1
        if failure.kind == "python" and failed >= MAX_FAILURES and self.SPLITS and site is not None \
                and site not in self.profile.python_sides and PYTHON_SIDE_SHARE * failed > version.calls:
            self.profile.python_sides.add(site)
            self._event(f"python guard at {failure.source} failed on {failed} calls, {version.calls} compiled: "
                        "the branch becomes a segment boundary")
            del self.versions[key]
            return self._regenerate(key, positional, args, kwargs)
        if failure.kind == "python" and failed >= MAX_FAILURES and failed > version.calls:  # the graph's side is the rarer one
            del self.versions[key]
            self._fall_back(key, f"the branch at {failure.source} mostly takes the side that runs in Python")
            self._event(f"python guard at {failure.source} failed more often than the version ran: imperative for good")
            return self.fn(*args, **kwargs)
        if failure.kind in ("raise", "python"):  # Python raises, or takes the side the graph leaves to it
            return self._run_raising(failure, site, args, kwargs)
        self.failures[(site or failure.source, failure.kind)] += 1
        if self.failures[(site or failure.source, failure.kind)] >= MAX_FAILURES:
            if site is None:  # regenerating would make the same assumption again
                del self.versions[key]
                self._fall_back(key, f"{failure.kind} guard at {failure.source} failed {MAX_FAILURES} times")
                self._event(f"{failure.kind} guard at {failure.source} failed {MAX_FAILURES} times: imperative for good")
                return self.fn(*args, **kwargs)
            self.unspeculated |= {site}
            self._event(f"{failure.kind} guard at {failure.source} failed {MAX_FAILURES} times: no longer speculated")
        self._event(
            f"guard {failure.guard_id} ({failure.kind}) at {failure.source} failed for {describe_args(self, key)}; "
            "ran imperatively and regenerated"
        )
        del self.versions[key]
        return self._regenerate(key, positional, args, kwargs)

    def _regenerate(self, key: Hashable, positional: tuple, args: tuple, kwargs: dict) -> Any:
        """This call runs profiled, and its version is made again on it (the last warm-up run)."""
        self.warm[key] = self.warmup - 1
        return self._run_profiled(key, positional, args, kwargs)

    def _resume_runs(self) -> int:
        """Profiled runs of the resume functions so far (a call that made one is not timed)."""
        return sum(resume.profile.runs for resume in self.resumes.values())

    def _timed(self, version: Version, quick: Callable[[tuple], Any]) -> Callable[[tuple], Any]:
        """``quick`` timed, for the cost rule of a compiled version: after ``COMPILED_TRIAL_CALLS``
        calls it either starts timing plain calls (``CompiledCost``: the version's calls are slow
        enough to be worth it) or is the untimed fused call again."""
        def timed(args: tuple) -> Any:
            started = clock()
            result = quick(args)
            if result is not MISS:
                self._trial_call(version, clock() - started)
            return result

        return timed

    def _trial_call(self, version: Version, seconds: float) -> None:
        """A compiled call of ``version`` took ``seconds`` while its calls are timed."""
        times = version.trial
        if times is None:
            return
        times.append(seconds)
        if seconds < COMPILED_TRIAL_SECONDS or len(times) > COMPILED_TRIAL_CALLS:  # (a quick call decides)
            version.trial = None
            if CompiledCost.worth_timing(times):
                version.cost = CompiledCost(self.COST_CALLS, times)
            if self._fast_version is version:  # plain calls timed next (``_run_compiled``), or the fused call untimed
                self._fast = version

    def _compiled_cost(self, graph: Any) -> bool:
        """Whether a new compiled version's calls are timed against Python. Not a graph that
        launches nothing, and not in a distributed run (a host module registered): every rank
        must keep the same versions, and each one's clock would decide alone."""
        return self.COMPILED_COST and not graph.idle and not host_modules.active()

    def _run_timed_plain(self, version: Version, key: Hashable, args: tuple, kwargs: dict) -> Any:
        """A plain call timed for the cost rule; the last one settles it: the version stays,
        or calls with ``key`` run in Python from now on."""
        cost = version.cost
        self.timed_plain += 1
        self._timing_plain = True
        try:
            started = clock()
            value = self.fn(*args, **kwargs)
            cost.plain.append(clock() - started)
        finally:
            self._timing_plain = False
        if cost.settled():
            version.cost = None
            if cost.python_wins():
                self._fast = None
                del self.versions[key]
                self._event(f"cost rule: {cost.describe()}; {describe_args(self, key)} runs in Python")
                self._fall_back(key, f"faster in Python: {cost.describe()}")
            else:
                kind = "split version" if version.graph.boundary is not None else "compiled version"
                self._event(f"cost rule: {cost.describe()}; the {kind} stays")
                self._fast = version if version.guards.match is not None else None  # its fused call, untimed
        return value

    def _run_raising(self, failure: Any, site: Any, args: tuple, kwargs: dict) -> Any:
        """A ``raise`` guard failed: run imperatively (it raises, or an outer handler
        catches), as for a ``python`` guard (the branch side the graph leaves to Python);
        regenerating would give the same graph, so the version is kept."""
        self.failures[(site, failure.kind)] += 1
        if self.failures[(site, failure.kind)] == 1:
            self._event(f"{failure.kind} guard {failure.guard_id} at {failure.source} failed: ran imperatively, version kept")
        return self.fn(*args, **kwargs)

    def _run_profiled(self, key: Hashable, positional: tuple, args: tuple, kwargs: dict) -> Any:
        building = self.warm[key] + 1 >= self.warmup
        before = trees.snapshot(positional) if building else ()  # the trees as the key saw them
        # a resume function's lists as they came (the trace's own, rebuilt per call: a loop's
        # log grows with its iterations, which its key counts anyway); a caller's list that the
        # call appends to keeps the check in ``_build`` (a version per length would not pay)
        came = as_came(positional) if building and self.owner is not self else positional
        result = run_profiled(self.fn, args, kwargs, self.profile)
        self.warm[key] += 1
        if building:
            after = trees.snapshot(positional)
            trees.restore(before)  # the graph is traced on the trees as they came (node writes undone)
            try:
                self._build(key, came)
            finally:
                trees.restore(after)
        return result

    def _build(self, key: Hashable, positional: tuple) -> None:
        from janus.frontend.backend import compile_function

        relaxing = self.relaxing.pop(key, None)
        started = time.perf_counter()
        try:
            if entry_key(positional, self.dynamic) != key:
                raise NotConvertible("the call changed its own arguments (a heap write)")
            graph = self._generate_with_heap_values(key, positional, relaxing)
            if self._cheaper_in_python(graph):
                self._in_python_from_now(key)
                return
            call = _no_launch if graph.idle else compile_function(graph)
            # ``fallback="error"`` raises on every call that runs in Python: no cost rule there
            timed = self.owner is self and self.COST_CALLS > 0 and self.fallback != "error"
            split = graph.boundary is not None
            self.versions[key] = Version(key, graph, call, self._entry_guards(key, graph),
                                         resume=self._resume(graph.boundary),
                                         cost=segments.CallCost(self.COST_CALLS) if timed and split else None,
                                         trial=[] if timed and not split and self._compiled_cost(graph) else None)
            self.compiles += 1
            if relaxing is not None:  # exact versions this one serves are no longer reachable
                for old in [k for k in self.versions if key_diff(k, key)]:
                    del self.versions[old]
            self._event(f"compiled version {self.compiles} for {describe_args(self, key)}")
            if logs.guards.isEnabledFor(logging.INFO):
                logs.guards.info("janus.jit %s: entry guards of %s:\n  %s", self.__qualname__,
                                 describe_args(self, key), "\n  ".join(self.versions[key].guards.describe()))
            logs.graph.info("janus.jit %s: the graph of %s:\n%s", self.__qualname__, describe_args(self, key), graph.text)
        except NotConvertible as e:
            if relaxing is not None:  # keep exact shapes for these dims; this call already ran
                self.dynamic -= relaxing
                self.unrelaxable |= relaxing
                self.warm.pop(key, None)
                self._event(f"? dims not possible ({e}); exact shapes kept")
                return
            if e.any_signature and not self.versions:
                self._imperative_for_good(str(e))
            else:
                self._fall_back(key, str(e))
        except Exception as e:  # a compiler error must not become a wrong (or no) answer
            self._fall_back(key, f"compilation failed: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}")
        finally:
            seconds = time.perf_counter() - started
            self.compile_seconds += seconds
            if key in self.versions:
                self.versions[key].compile_seconds = seconds
            logs.compile_time.info("janus.jit %s: %s took %.3f s to generate and compile",
                                   self.__qualname__, describe_args(self, key), seconds)

    def _generate_with_heap_values(self, key: Hashable, positional: tuple, relaxing: set | None) -> Graph:
        """``_generate``, with the heap ints and floats that varied read as graph inputs
        (``Profile.varying_heap``) where that converts as much as their exact values: a
        value that fixes a shape (``np.zeros(self.n)``) stays a constant, specialized per value."""
        varying = self.profile.varying_heap
        if not varying:
            return self._generate(key, positional, relaxing)
        try:
            graph = self._generate(key, positional, relaxing)
            if graph.boundary is None or graph.boundary.at_branch and any(self.varied_types.get(v) is not bool
                                                                           for v in varying):
                return graph  # (exact values of a counter would take one side each: a version per value; a bool has two)
        except NotConvertible:
            graph = None
        self.profile.varying_heap = set()
        try:
            exact, failure = self._generate(key, positional, relaxing), None
        except NotConvertible as e:
            exact, failure = None, e
        if graph is not None and (exact is None or exact.boundary is not None):
            self.profile.varying_heap = varying
            return graph
        self.profile.exact_heap |= varying
        self._event(f"heap values kept exact ({', '.join(sorted(varying))}): as graph inputs they convert less")
        if exact is None:
            raise failure  # type: ignore[misc]
        return exact

    def _generate(self, key: Hashable, positional: tuple, relaxing: set | None) -> Graph:
        """The graph of ``key``. A relaxed one splits only where the exact shapes split too
        (``reshape`` of a ``?`` dim must keep exact shapes, not split; so must a relaxed int
        whose ``np.arange`` the exact value folds, where the exact graph goes on to the next
        boundary): relaxing never compiles less of the call."""
        def graph(dynamic: frozenset, split: bool, splits_later: bool = False) -> Graph:
            return generate(self.fn, positional, self.profile, leaf_shapes(entry_key(positional, dynamic)),
                            self.unspeculated, dynamic, self.switches, split=split, splits_later=splits_later)

        if relaxing is None or not self.SPLITS:
            return graph(self.dynamic, self.SPLITS)
        try:
            return graph(self.dynamic, False, splits_later=True)
        except BranchToSplit:  # a branch on a relaxed value: the exact values would not branch there
            return graph(self.dynamic, True)
        except NotConvertible as relaxed_failure:
            try:
                graph(self.dynamic - relaxing, False)
            except NotConvertible:  # the exact shapes split too
                relaxed = graph(self.dynamic, True)
                if _split_point(relaxed) == _split_point(self._exact_split(graph, relaxing)):
                    return relaxed
            raise relaxed_failure from None

    def _exact_split(self, graph: Callable[[frozenset, bool], Graph], relaxing: set) -> Graph | None:
        """The exact shapes' graph, split where they split (None when they cannot)."""
        try:
            return graph(self.dynamic - relaxing, True)
        except NotConvertible:
            return None

    def _resume(self, boundary: segments.Boundary | None) -> JitFunction | None:
        """The jit function of what follows ``boundary`` (one per resume point), and the
        warning of a first split at its site."""
        if boundary is None:
            return None
        if boundary.exhausted is not None:
            boundary.after_loop = self._resume_at(boundary, boundary.exhausted)
        resume = self.resumes.get(boundary.point)
        if resume is None:
            resume = self._resume_at(boundary, boundary.point)
            owner = self.owner
            self._event(f"split at {boundary.source}: {boundary.description} runs in Python ({boundary.reason})")
            if owner.fallback == "warn" and boundary.source not in owner._reported:
                owner._reported.add(boundary.source)
                logs.warn(f"janus.jit {owner.__qualname__}: {boundary.description} at {boundary.source} runs in Python "
                          f"between compiled segments ({boundary.reason}); janus.explain({owner.__name__}) tells more",
                          logs.SplitWarning)
        return resume

    def _resume_at(self, boundary: segments.Boundary, point: Any) -> JitFunction:
        """The jit function continuing the function at ``point`` (one per point: a loop's
        boundaries resume at one)."""
        resume = self.resumes.get(point)
        if resume is None:
            # silent: its runs in Python show under the split in ``janus.explain`` ("error" would
            # raise in the middle of a call whose Python part already ran)
            resume = self.resumes[point] = JitFunction(boundary.resume_function(point), self.warmup, self.switches,
                                                       "silent")
            resume.resumes = self.resumes
            resume.owner = self.owner
            resume._generalize_pending = True  # a loop's counter relaxed at once (``loop_counter_positions``)
        return resume

    def _cheaper_in_python(self, graph: Graph) -> bool:
        """A split's cost rule: a resume function's version whose segment does no array work
        (a few scalar ops) and after which the call goes on in Python is cheaper in Python."""
        if self.owner is self or graph.array_work:
            return False
        after = None if graph.boundary is None else self.resumes.get(graph.boundary.point)
        return graph.boundary is None or after is not None and after.rest_in_python()

    def rest_in_python(self) -> bool:
        """Whether every call of this resume function so far was cheaper in Python (none compiled)."""
        return not self.versions and bool(self.fallbacks) and all(r == CHEAPER_IN_PYTHON for r in self.fallbacks.values())

    def _in_python_from_now(self, key: Hashable) -> None:
        """Calls with ``key`` run in Python (the cost rule), and so do the versions of the
        resume functions before it whose segments (no array work) now only lead to Python.
        A resume function none of whose calls compiled runs in Python for any arguments:
        no entry keys, no warm-up runs (its code after the boundary is a few scalar ops
        whatever the values; a loop's resume function compiles its array work first)."""
        self._fall_back(key, CHEAPER_IN_PYTHON)
        changed = True
        while changed:
            changed = False
            for rest in self.resumes.values():
                for known, version in list(rest.versions.items()):
                    if rest._cheaper_in_python(version.graph):
                        del rest.versions[known]
                        rest._fast = None
                        rest._fall_back(known, CHEAPER_IN_PYTHON)
                        changed = True
        for rest in self.resumes.values():
            if not rest.imperative and rest.rest_in_python():
                rest.imperative = True
                rest._event("no call compiled (no array work after the boundary): Python for any arguments")

    def _imperative_for_good(self, reason: str) -> None:
        """Stop keying calls: no argument signature could compile (``certain``)."""
        self.imperative = True
        self.fallbacks = {}
        self.warm.clear()
        self._event("the reason holds for any arguments: imperative for every call, no entry keys computed")
        self._fall_back(None, reason)

    def _unsupported_interpreter(self) -> None:
        if None not in self.fallbacks:
            self._fall_back(None, f"{unsupported_message()}: janus.jit runs {self.__qualname__} as plain Python")


def _split_point(graph: Graph | None) -> tuple | None:
    """Where a graph's segment ends (its boundary's code and offset), or None."""
    boundary = None if graph is None else graph.boundary
    return None if boundary is None else (boundary.point.code, boundary.point.offset)


def _any_arguments(args: tuple) -> tuple:
    """The settled-Python check of a function that runs in Python for any arguments."""
    return args


def _no_launch(leaves: list[np.ndarray], objects: Any = ()) -> list[np.ndarray]:
    """The call of an idle graph (nothing it would do is observable): no launch."""
    return []


def _guard_failure() -> type[Exception]:
    """``GuardFailure``, imported when a compiled call raised (the backend loads IREE; an
    import statement costs about a microsecond on every call)."""
    from janus.frontend.backend import GuardFailure

    return GuardFailure


def _time_split(version: Version) -> str:
    """Where a split version's calls spent their time: the Python operations along the
    chain, and everything else (compiled segments, entry checks, resume functions warming up)."""
    python, seen, level = 0.0, {id(version)}, [version]
    while level:
        python += sum(v.graph.boundary.python_seconds for v in level)
        level = [w for v in level for w in v.resume.versions.values() if w.graph.boundary is not None and id(w) not in seen]
        seen.update(map(id, level))
    boundary = version.graph.boundary
    total = version.segment_seconds + boundary.python_seconds + boundary.then_seconds
    return (f"time split: {total:.6f} s over {version.calls} call(s): {python:.6f} s in the Python operations, "
            f"{total - python:.6f} s in compiled segments and the rest")


def describe_args(jf: JitFunction, key: Hashable) -> str:
    if key is None:
        return "(any arguments)"
    names = list(jf.signature.parameters)
    return ", ".join(f"{n}: {describe_key(k)}" for n, k in zip(names, key))


def explain(fn: Any, *, globals: bool = False) -> str:
    """A readable report: compiled versions with their entry guards and compile times, and
    the calls that run in Python with the reasons. ``fn`` may be a bound method
    (``obj.step``); guards on module globals (``np``) are left out unless ``globals``."""
    if isinstance(fn, functools.partial) and isinstance(fn.func, JitFunction):
        fn = fn.func
    if not isinstance(fn, JitFunction):
        return f"{getattr(fn, '__qualname__', fn)!s} is not a janus.jit function"
    return "\n".join(fn.report(globals))
