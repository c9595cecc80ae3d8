"""Bytecode-level profiler: what imperative runs did, per code object and offset.

It observes every instruction the function's Python frames execute: through
``sys.monitoring`` INSTRUCTION events on CPython 3.12 and 3.13 (3.12's ``sys.settrace``
delivers no opcode events), through ``sys.settrace`` with opcode events on 3.11; both hooks
feed the same observer, in terms of the decoded bytecode (``trace.bytecode``). A conditional jump's
outcome is known at the next opcode event of the same frame (did execution land on the
jump target?); a ``FOR_ITER`` counts iterations until it jumps out, and so does a
backward conditional jump (the bottom test of a ``while`` loop: iterations are the jumps
back plus one, per entry of the loop; a ``break`` leaves a stale count that can only make
speculation fail a guard). A Python scalar that a ``STORE_FAST`` stores right after a
``CALL`` (``v = float(t)``) is read from the frame's locals at the next instruction: the
value guards of ``scalars`` need it. Code from NumPy is not traced: the graph generator
treats NumPy calls as ops, not as bytecode.

A deep recursion observed frame by frame costs about 2000x its plain run (fib(25): 250,000
frames), while its deeper frames add counts, not knowledge: a code object's frames stop being
observed for the rest of a run once ``QUIET_FRAMES`` of them in a row taught the profile
nothing new about it (``Profile.unobserved`` names those codes). The graph generator reads
key sets (the ways a branch went, the trip counts and values seen, the callees, the return
kinds; ``branch_runs`` per run), not counts, and of them what the observed frames saw: a side
only unobserved frames took is speculated away under a guard, like any side profiling never
saw (a failing guard reruns the call in Python; failing ``MAX_FAILURES`` times unspeculates it).
"""

from __future__ import annotations

import sys
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from types import CodeType, FrameType
from typing import Any, Callable

from janus.frontend.trace.bytecode import CALLS, decode
from janus.frontend.trace.versions import DIALECT

Site = tuple[CodeType, int]


def describe(value: Any) -> tuple:
    """A hashable summary of a value: its type, and dtype and shape for arrays (looked up
    on the type first: an instance ``__getattr__`` must not run for the profile)."""
    typ = type(value)
    if hasattr(typ, "shape") and hasattr(typ, "dtype"):
        try:
            return (typ.__name__, str(value.dtype), tuple(value.shape))
        except AttributeError:  # e.g. an object seen inside its own __init__
            pass
    return (typ.__name__,)


#: tuples nested deeper are summarized as ``DEEP_TUPLE``: a hand-written tape of a tree
#: 800 nodes deep nests as deep, and looking all the way in would exceed Python's
#: recursion limit inside the profiled run (and cost O(depth) per return)
MAX_SUMMARY_DEPTH = 16
DEEP_TUPLE = ("tuple nested deeper than %d" % MAX_SUMMARY_DEPTH,)

#: a code object's frames are observed until this many of them in a row (in the order they
#: start or resume) taught the profile nothing new about it; its further frames in the run
#: run unobserved. Python's default recursion limit: no chain of nested frames is longer, so
#: a quiet stretch reaches at least one base case of a recursion. None: every frame is observed.
QUIET_FRAMES: int | None = 1000

#: modules whose code is never observed besides NumPy's (see ``_Observer.observed``)
UNOBSERVED_MODULES = frozenset({__name__, "janus.frontend.jit", "janus.frontend.fp_errors"})


def summarize(value: Any, depth: int = 0) -> tuple:
    """``describe``, looking into tuples: ``("tuple", item summaries)`` (recursive results)."""
    if type(value) is tuple:
        if depth >= MAX_SUMMARY_DEPTH:
            return DEEP_TUPLE
        return ("tuple", tuple(summarize(v, depth + 1) for v in value))
    return describe(value)


@dataclass
class Profile:
    """Observations accumulated over every profiled run of one jit function."""

    #: conditional jump site -> how often it was taken (True) or fell through (False)
    branches: dict[Site, Counter] = field(default_factory=lambda: defaultdict(Counter))
    #: conditional jump site -> in how many runs it was taken (True) or fell through (False) at
    #: least once by a call not made from its own function (a recursion's outermost call: the
    #: one a trace's ``python`` guard there decides on; its recursive calls run in the graph)
    branch_runs: dict[Site, Counter] = field(default_factory=lambda: defaultdict(Counter))
    #: FOR_ITER or backward conditional jump site -> trip counts of the loops that ran to exhaustion
    trip_counts: dict[Site, Counter] = field(default_factory=lambda: defaultdict(Counter))
    #: STORE_FAST right after a CALL -> (type, value) of the Python scalars it stored (two at most)
    values: dict[Site, Counter] = field(default_factory=lambda: defaultdict(Counter))
    #: call site -> code objects called there
    callees: dict[Site, set[CodeType]] = field(default_factory=lambda: defaultdict(set))
    #: code object -> summaries of its argument tuples
    arguments: dict[CodeType, Counter] = field(default_factory=lambda: defaultdict(Counter))
    #: code object -> summaries of the values it returned (the result types of recursive
    #: functions; an exception unwinding a frame counts as returning None)
    returns: dict[CodeType, Counter] = field(default_factory=lambda: defaultdict(Counter))
    #: labels of heap locations holding a Python int or float whose value changed between
    #: calls (a step counter): read as graph inputs from then on (``heap.access``)
    varying_heap: set[str] = field(default_factory=set)
    #: of those, the ones whose graph converted less than with their exact values (kept exact)
    exact_heap: set[str] = field(default_factory=set)
    #: conditional jump sites whose side that does not convert calls took often (a ``python``
    #: guard failing on many calls): a segment boundary there from then on (``trace.branching``)
    python_sides: set[Site] = field(default_factory=set)
    #: code objects some of whose frames ran unobserved (``QUIET_FRAMES``): the counts above are
    #: of the observed frames only; the key sets are what the graph generator reads
    unobserved: set[CodeType] = field(default_factory=set)
    runs: int = 0

    def branch_outcome(self, site: Site) -> bool | None:
        """The one way the branch always went, or None (never seen, or both ways)."""
        seen = self.branches.get(site)
        if not seen or len(seen) != 1:
            return None
        return next(iter(seen))

    def runs_taking(self, site: Site, taken: bool) -> int:
        """In how many profiled runs the branch at ``site`` went the way ``taken`` at least once
        (a branch in a recursive function runs many times per run)."""
        seen = self.branch_runs.get(site)
        return seen[taken] if seen else 0

    def trip_count(self, site: Site) -> int | None:
        """The one trip count the loop at ``site`` always had, or None."""
        seen = self.trip_counts.get(site)
        return next(iter(seen)) if seen and len(seen) == 1 else None


class _Observer:
    """What one profiled run saw, instruction by instruction; per-frame state for the jump
    awaiting its outcome. The hooks (``_SetTrace``, ``_Monitoring``) call ``start``,
    ``instruction`` and ``leave``."""

    def __init__(self, profile: Profile) -> None:
        self.profile = profile
        self.pending: dict[FrameType, tuple[int, int]] = {}  # frame -> (offset, target)
        self.loops: dict[tuple[FrameType, int], int] = {}
        self.stores: dict[FrameType, tuple[Site, str]] = {}  # frame -> STORE_FAST awaiting its value
        self.outcomes: set[tuple[Site, bool]] = set()  # the ways branches went in this run
        self.live: set[FrameType] = set()  # observed frames not returned (or yielded) yet
        self.quiet: dict[CodeType, int] = {}  # code -> its frames started since it last taught something
        #: id -> code whose frames run unobserved for the rest of the run (by id: a code object
        #: hashes its bytecode and constants on every lookup; held, so no id is reused)
        self.skipped: dict[int, CodeType] = {}

    @staticmethod
    def observed(frame: FrameType) -> bool:
        """Code from NumPy is not observed (the graph generator treats its calls as ops), nor
        the hooks' own (``__exit__`` runs while they are on), nor the dispatch of a jit
        function called inside the run (``JitFunction.__call__``: a graph traces the plain
        function through ``janus_trace``)."""
        module = frame.f_globals.get("__name__", "")
        return not module.startswith("numpy") and module not in UNOBSERVED_MODULES

    def start(self, frame: FrameType) -> bool:
        """A frame starts (or a generator resumes): whether it is observed. A frame of a code
        gone quiet (``QUIET_FRAMES``) is not, nor recorded as a callee: its first frames
        recorded the call sites that the graph generator reads (a code calling itself)."""
        code = frame.f_code
        if id(code) in self.skipped:
            return False
        quiet = self.quiet.get(code, 0)
        if not self.observed(frame):
            self.skipped[id(code)] = code
            return False
        if QUIET_FRAMES is not None and quiet >= QUIET_FRAMES:
            self.skipped[id(code)] = code
            self.profile.unobserved.add(code)
            return False
        self.quiet[code] = quiet + 1
        self.live.add(frame)
        self.enter(frame)
        return True

    def learned(self, code: CodeType) -> None:
        """The profile learned something new about ``code``: its frames are observed again for
        ``QUIET_FRAMES`` more."""
        self.quiet[code] = 0

    def count(self, seen: Counter, key: Any, code: CodeType) -> None:
        """One more observation ``key`` about ``code``."""
        if key not in seen:
            self.learned(code)
        seen[key] += 1

    def enter(self, frame: FrameType) -> None:
        """An observed frame starts (or a generator resumes)."""
        code = frame.f_code
        names = code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]
        self.count(self.profile.arguments[code], tuple(describe(frame.f_locals[n]) for n in names), code)
        if frame.f_back is not None:
            self.called(frame.f_back, code)

    def called(self, caller: FrameType, code: CodeType) -> None:
        """``caller`` called (or resumed) a frame of ``code``."""
        callees = self.profile.callees[(caller.f_code, caller.f_lasti)]
        if code not in callees:
            callees.add(code)
            self.learned(caller.f_code)

    def leave(self, frame: FrameType, value: Any) -> None:
        """An observed frame returns or yields ``value`` (None when an exception unwinds it)."""
        self.live.discard(frame)
        self.count(self.profile.returns[frame.f_code], summarize(value), frame.f_code)

    def instruction(self, frame: FrameType, reported: int) -> None:
        """``frame`` is about to execute the instruction at ``reported``."""
        code = frame.f_code
        bc = decode(code)
        offset = bc.landing(reported)
        jump = self.pending.pop(frame, None)
        if jump is not None:
            self.record_jump(frame, jump, offset)
        store = self.stores.pop(frame, None)
        if store is not None:
            self.record_value(store, frame.f_locals.get(store[1]))
        if offset != reported:  # a jump decoded into the conditional jump before it
            return
        ins = bc.at(offset)
        if ins.is_conditional_jump or ins.opname == "FOR_ITER":
            self.pending[frame] = (offset, ins.target)
        elif ins.opname == "STORE_FAST" and bc.instrs[bc.index[offset] - 1].opname in CALLS:
            self.stores[frame] = ((code, offset), ins.argval)

    def record_value(self, store: tuple[Site, str], value: Any) -> None:
        seen = self.profile.values[store[0]]
        key = (type(value), value)
        if type(value) in (bool, int, float) and (key in seen or len(seen) < 2):
            self.count(seen, key, store[0][0])

    def record_jump(self, frame: FrameType, jump: tuple[int, int], landed: int) -> None:
        offset, target = jump
        site = (frame.f_code, offset)
        taken = landed == target
        key = (frame, offset)
        code = frame.f_code
        if decode(code).at(offset).opname != "FOR_ITER":
            self.count(self.profile.branches[site], taken, code)
            outermost = frame.f_back is None or frame.f_back.f_code is not code
            if outermost and (site, taken) not in self.outcomes:
                self.outcomes.add((site, taken))
                self.profile.branch_runs[site][taken] += 1
                self.learned(code)  # one more run took that side
            if target < offset:  # a loop's back edge: taken means one more iteration
                if taken:
                    self.loops[key] = self.loops.get(key, 0) + 1
                else:
                    self.count(self.profile.trip_counts[site], self.loops.pop(key, 0) + 1, code)
            return
        if taken:
            self.count(self.profile.trip_counts[site], self.loops.pop(key, 0), code)
        else:
            self.loops[key] = self.loops.get(key, 0) + 1


class _SetTrace:
    """CPython 3.11's hook: ``sys.settrace`` with opcode events, on observed frames only (the
    global trace function still sees every frame start)."""

    def __init__(self, observer: _Observer) -> None:
        self.observer = observer

    def on_call(self, frame: FrameType, event: str, arg: Any) -> Callable | None:
        if event != "call":
            return None
        if not self.observer.start(frame):
            if frame.f_trace is not None:  # a generator observed before it went quiet resumes
                frame.f_trace_opcodes = False
                frame.f_trace = None
            return None
        frame.f_trace_opcodes = True
        return self.on_event

    def on_event(self, frame: FrameType, event: str, arg: Any) -> Callable:
        if event == "return":
            self.observer.leave(frame, arg)
        elif event == "opcode":
            self.observer.instruction(frame, frame.f_lasti)
        return self.on_event

    def __enter__(self) -> None:
        self.previous = sys.gettrace()
        sys.settrace(self.on_call)

    def __exit__(self, *exc: object) -> None:
        sys.settrace(self.previous)


class _Monitoring:
    """CPython 3.12+'s hook: ``sys.monitoring`` (the callbacks run in the frame the event is
    about: ``sys._getframe(1)``). INSTRUCTION events are set per code object, for all its
    frames at once: they are on while an observed frame of that code runs and off while an
    unobserved one does, switched where execution enters a frame (start, resume) and where
    it goes back to its caller (return, yield, unwind)."""

    def __init__(self, observer: _Observer) -> None:
        self.observer = observer
        self.skipped = observer.skipped
        self.watched: dict[int, CodeType] = {}  # id -> code whose INSTRUCTION events were on in this run
        self.on: set[int] = set()  # ids of the codes whose INSTRUCTION events are on now

    def switch(self, code: CodeType, on: bool) -> None:
        """INSTRUCTION events of ``code`` on or off."""
        sys.monitoring.set_local_events(self.tool, code, sys.monitoring.events.INSTRUCTION if on else 0)
        if on:
            self.on.add(id(code))
            self.watched[id(code)] = code
        else:
            self.on.discard(id(code))

    def start(self, code: CodeType, offset: int) -> None:
        """A frame starts or resumes (as settrace's call event)."""
        key = id(code)
        observed = key not in self.skipped and self.observer.start(sys._getframe(1))
        if observed != (key in self.on):
            self.switch(code, observed)

    def instruction(self, code: CodeType, offset: int) -> None:
        frame = sys._getframe(1)
        if frame in self.observer.live:
            self.observer.instruction(frame, offset)

    def returned(self, code: CodeType, offset: int, value: Any) -> None:
        self.left(sys._getframe(1), value)

    def unwound(self, code: CodeType, offset: int, exception: BaseException) -> None:
        self.left(sys._getframe(1), None)

    def left(self, frame: FrameType, value: Any) -> None:
        """``frame`` returns, yields or unwinds: an observed caller whose code's events are off
        gets them back. (An unobserved caller's are off already: its code went quiet before
        it started, so no frame of that code below it switched them on.)"""
        live = self.observer.live
        if frame in live:
            self.observer.leave(frame, value)
        if len(self.on) < len(self.watched):  # some code's events are off
            caller = frame.f_back
            if caller in live and id(caller.f_code) not in self.on:
                self.switch(caller.f_code, True)

    def __enter__(self) -> None:
        monitoring = sys.monitoring
        events = monitoring.events
        self.tool = next((t for t in (monitoring.PROFILER_ID, 3, 4) if monitoring.get_tool(t) is None), None)
        if self.tool is None:  # other tools hold every id: a run seen by nobody (nothing gets speculated)
            return
        monitoring.use_tool_id(self.tool, "janus profiler")
        for event, callback in ((events.PY_START, self.start), (events.PY_RESUME, self.start),
                                (events.INSTRUCTION, self.instruction),
                                (events.PY_RETURN, self.returned), (events.PY_YIELD, self.returned),
                                (events.PY_UNWIND, self.unwound)):
            monitoring.register_callback(self.tool, event, callback)
        monitoring.set_events(self.tool, events.PY_START | events.PY_RESUME | events.PY_RETURN | events.PY_YIELD
                              | events.PY_UNWIND)

    def __exit__(self, *exc: object) -> None:
        monitoring = sys.monitoring
        if self.tool is None:
            return
        monitoring.set_events(self.tool, 0)
        for code in self.watched.values():
            monitoring.set_local_events(self.tool, code, 0)
        monitoring.free_tool_id(self.tool)


#: the profiled runs in progress, innermost last (read as a truth value on every jit call:
#: ``profiling()`` without the call)
RUNNING: list[Profile] = []


def profiling() -> bool:
    """Whether a profiled run is in progress: jit functions it calls (itself, when
    recursive) then run as plain Python, observed as part of that run."""
    return bool(RUNNING)


def run_profiled(fn: Callable, args: tuple, kwargs: dict, profile: Profile) -> Any:
    """Call ``fn(*args, **kwargs)`` imperatively, adding what it did to ``profile``."""
    observer = _Observer(profile)
    RUNNING.append(profile)
    try:
        with (_Monitoring if DIALECT.monitoring else _SetTrace)(observer):
            return fn(*args, **kwargs)
    finally:
        RUNNING.pop()
        profile.runs += 1
