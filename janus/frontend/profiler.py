"""Bytecode-level profiler: what imperative runs did, per code object and offset.

It runs the function under ``sys.settrace`` with opcode events. A conditional jump's
outcome is known at the next opcode event of the same frame (did execution land on the
jump target?); a ``FOR_ITER`` counts iterations until it jumps out, and so does a
backward conditional jump (the bottom test of a ``while`` loop: iterations are the jumps
back plus one, per entry of the loop; a ``break`` leaves a stale count that can only make
speculation fail a guard). A Python scalar that a ``STORE_FAST`` stores right after a
``CALL`` (``v = float(t)``) is read from the frame's locals at the next opcode event: the
value guards of ``scalars`` need it. Code from NumPy is not traced: the graph generator
treats NumPy calls as ops, not as bytecode.
"""

from __future__ import annotations

import sys
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from types import CodeType, FrameType
from typing import Any, Callable

from janus.frontend.trace.bytecode import decode

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


def summarize(value: Any) -> tuple:
    """``describe``, looking into tuples: ``("tuple", item summaries)`` (recursive results)."""
    if type(value) is tuple:
        return ("tuple", tuple(summarize(v) for v in value))
    return describe(value)


@dataclass
class Profile:
    """Observations accumulated over every profiled run of one jit function."""

    #: conditional jump site -> how often it was taken (True) or fell through (False)
    branches: dict[Site, Counter] = field(default_factory=lambda: defaultdict(Counter))
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
    runs: int = 0

    def branch_outcome(self, site: Site) -> bool | None:
        """The one way the branch always went, or None (never seen, or both ways)."""
        seen = self.branches.get(site)
        if not seen or len(seen) != 1:
            return None
        return next(iter(seen))

    def trip_count(self, site: Site) -> int | None:
        """The one trip count the loop at ``site`` always had, or None."""
        seen = self.trip_counts.get(site)
        return next(iter(seen)) if seen and len(seen) == 1 else None


class _Tracer:
    """The settrace callbacks; per-frame state for the jump awaiting its outcome."""

    def __init__(self, profile: Profile) -> None:
        self.profile = profile
        self.pending: dict[FrameType, tuple[int, int]] = {}  # frame -> (offset, target)
        self.loops: dict[tuple[FrameType, int], int] = {}
        self.stores: dict[FrameType, tuple[Site, str]] = {}  # frame -> STORE_FAST awaiting its value

    def on_call(self, frame: FrameType, event: str, arg: Any) -> Callable | None:
        if event != "call" or frame.f_globals.get("__name__", "").startswith("numpy"):
            return None
        code = frame.f_code
        names = code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]
        self.profile.arguments[code][tuple(describe(frame.f_locals[n]) for n in names)] += 1
        caller = frame.f_back
        if caller is not None:
            self.profile.callees[(caller.f_code, caller.f_lasti)].add(code)
        frame.f_trace_opcodes = True
        return self.on_event

    def on_event(self, frame: FrameType, event: str, arg: Any) -> Callable:
        if event == "return":
            self.profile.returns[frame.f_code][summarize(arg)] += 1
        if event != "opcode":
            return self.on_event
        code, offset = frame.f_code, frame.f_lasti
        jump = self.pending.pop(frame, None)
        if jump is not None:
            self.record_jump(frame, jump, offset)
        store = self.stores.pop(frame, None)
        if store is not None:
            self.record_value(store, frame.f_locals.get(store[1]))
        bc = decode(code)
        ins = bc.at(offset)
        if ins.is_conditional_jump or ins.opname == "FOR_ITER":
            self.pending[frame] = (offset, ins.target)
        elif ins.opname == "STORE_FAST" and bc.instrs[bc.index[offset] - 1].opname == "CALL":
            self.stores[frame] = ((code, offset), ins.argval)
        return self.on_event

    def record_value(self, store: tuple[Site, str], value: Any) -> None:
        seen = self.profile.values[store[0]]
        key = (type(value), value)
        if type(value) in (bool, int, float) and (key in seen or len(seen) < 2):
            seen[key] += 1

    def record_jump(self, frame: FrameType, jump: tuple[int, int], landed: int) -> None:
        offset, target = jump
        site = (frame.f_code, offset)
        taken = landed == target
        key = (frame, offset)
        if decode(frame.f_code).at(offset).opname != "FOR_ITER":
            self.profile.branches[site][taken] += 1
            if target < offset:  # a loop's back edge: taken means one more iteration
                if taken:
                    self.loops[key] = self.loops.get(key, 0) + 1
                else:
                    self.profile.trip_counts[site][self.loops.pop(key, 0) + 1] += 1
            return
        if taken:
            self.profile.trip_counts[site][self.loops.pop(key, 0)] += 1
        else:
            self.loops[key] = self.loops.get(key, 0) + 1


_running: list[Profile] = []  # the profiled runs in progress, innermost last


def profiling() -> bool:
    """Whether a profiled run is in progress: jit functions it calls (itself, when
    recursive) then run as plain Python, observed as part of that run."""
    return bool(_running)


def run_profiled(fn: Callable, args: tuple, kwargs: dict, profile: Profile) -> Any:
    """Call ``fn(*args, **kwargs)`` imperatively, adding what it did to ``profile``."""
    tracer = _Tracer(profile)
    previous = sys.gettrace()
    _running.append(profile)
    sys.settrace(tracer.on_call)
    try:
        return fn(*args, **kwargs)
    finally:
        sys.settrace(previous)
        _running.pop()
        profile.runs += 1
