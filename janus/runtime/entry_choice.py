"""Which of two ways runs a function's calls, timed: a recursion entry's dispatch export or
its host twin (``EntryChoice``); a compiled version or the plain Python function
(``CompiledCost``, ``janus.jit``'s cost rule of compiled versions, see there).

``janus-recursion-to-dispatch`` runs a scalar state machine as native code in one
dispatch, and gives a public function calling such machines a twin, ``<name>.host``,
calling the host (VM) machines instead. A dispatch has a fixed cost (a launch and a
read-back, about 1.5 us on local-sync); the host machine pays a few dozen nanoseconds per
activation. Which is cheaper depends on how deep the call recurses, i.e. on the argument
values, so the calls are timed: no rule over the module's shape can see the trip count.

The policy, per function: the first calls alternate between the dispatch export (path 0)
and the twin (path 1), the first call of each a warm-up, until each has ``WINDOW`` timed
calls; then every call takes the path with the lower median (the twin only when below
``MARGIN`` times the dispatch's). The twin is not tried while the dispatch calls take
``HOST_MAX_SECONDS`` or more (a deep recursion, many times slower on the host), and a
twin call ``REJECT_FACTOR`` times slower than the dispatch median ends its trial: a trial
costs at most one slow call. Settled on the twin, a call that slow (the arguments now
recurse deeper, or the machine was busy) starts a new trial. Settled on the dispatch
export, a new trial starts after ``EXPLORE_EVERY`` calls, twice as many after each trial
that ends there, and at least as many as keep the last trial's extra time under
``EXPLORE_COST`` of the calls' (up to ``MAX_EXPLORE_EVERY``): one noisy trial does not
decide for good, and a deep recursion pays one slow call per interval at most.
"""

from __future__ import annotations

import math

from janus.runtime.drivers import median

#: timed calls per path the choice compares (medians)
WINDOW = 3
#: the twin is chosen only when its median is below this fraction of the dispatch's
MARGIN = 0.9
#: dispatch calls this slow (median) never try the twin
HOST_MAX_SECONDS = 50e-6
#: a twin call this many times slower than the dispatch median ends its trial
REJECT_FACTOR = 2.0
#: calls on the dispatch export before the next trial, at first and at most
EXPLORE_EVERY = 16
MAX_EXPLORE_EVERY = 1024
#: the share of the dispatch calls' time that trials of a slower twin may add
EXPLORE_COST = 0.01
DISPATCH, HOST = 0, 1


class EntryChoice:
    """The running choice between a function's dispatch export and its host twin.

    A caller invokes path ``path``, counts ``left`` down, and calls ``record(path, seconds)``
    when it reaches 0 or the call took longer than ``limit``; while ``quiet`` it may leave
    most calls untimed (and uncounted)."""

    __slots__ = ("path", "left", "limit", "times", "warm", "interval", "settled", "quiet")

    def __init__(self) -> None:
        self.path = DISPATCH
        #: calls before the next ``record`` (0 during a trial: every call)
        self.left = 0
        #: a call slower than this is recorded whatever ``left`` says
        self.limit = math.inf
        self.times: tuple[list[float], list[float]] = ([], [])
        self.warm = [False, False]
        self.interval = EXPLORE_EVERY
        #: a path is taken (no trial under way): a call recorded now starts a trial; kept apart from
        #: ``left``, which the caller counts down to 0 before it records the call that ends the interval
        self.settled = False
        #: settled on the twin: a caller may time one call in a few (``fast_path.QUIET_SAMPLE``), enough
        #: to see calls turn slow, and skip the clock on the others
        self.quiet = False

    @property
    def timing(self) -> bool:
        """Whether a trial is under way."""
        return not self.settled

    def record(self, path: int, seconds: float) -> None:
        """The call on ``path`` took ``seconds``."""
        if self.settled:  # a slow twin call, or time to explore: both exports timed afresh
            self._trial()
            return
        if not self.warm[path]:
            self.warm[path] = True
        else:
            self.times[path].append(seconds)
        dispatch, host = self.times
        if path == DISPATCH and dispatch and median(dispatch) >= HOST_MAX_SECONDS:
            self._settle(DISPATCH)
        elif path == HOST and seconds > REJECT_FACTOR * median(dispatch):  # its warm-up call too
            self._settle(DISPATCH, seconds)
        elif len(dispatch) >= WINDOW and len(host) >= WINDOW:
            self._settle(HOST if median(host) < MARGIN * median(dispatch) else DISPATCH, median(host))
        else:  # the twin only once a dispatch call was timed: its limit is known
            self.path = HOST if path == DISPATCH and dispatch else DISPATCH

    def _settle(self, path: int, host: float = 0.0) -> None:
        """Take ``path`` from now on (``host``: the twin's time in the trial, seconds)."""
        self.path, self.settled, self.quiet = path, True, path == HOST
        dispatch = median(self.times[DISPATCH])
        if path == HOST:
            self.left, self.limit = 1 << 62, REJECT_FACTOR * dispatch
            self.interval = EXPLORE_EVERY
        else:
            self.left, self.limit = self.interval, math.inf
            paying = math.ceil(max(host - dispatch, 0.0) / (EXPLORE_COST * dispatch))  # calls that pay for the trial
            self.interval = min(max(2 * self.interval, paying), MAX_EXPLORE_EVERY)

    def _trial(self) -> None:
        """Time both exports again."""
        self.times = ([], [])
        self.path, self.left, self.limit, self.settled, self.quiet = DISPATCH, 0, math.inf, False, False

    def describe(self) -> str:
        """For ``janus.explain``."""
        timed = [f"{name} {1e6 * median(t):.3g} us" for name, t in zip(("dispatch", "host"), self.times) if t]
        where = "host machine" if self.path == HOST else "dispatch"
        return f"recursion runs on the {where}" + (f" (median call: {', '.join(timed)})" if timed else "")


#: a compiled version's calls are timed this many times after its first (cold) one
COMPILED_TRIAL_CALLS = 3
#: a compiled version whose best timed call is faster than this is kept without timing Python: a
#: launch-bound call (the per-call floor is the runtime's concern) and a trial would cost more than it saves
COMPILED_TRIAL_SECONDS = 50e-6
#: the key runs in Python when its best compiled call takes more than this many times the best plain one
PYTHON_MARGIN = 1.5


class CompiledCost:
    """A compiled version against the plain function on the same key (``janus.jit``'s cost rule
    for compiled versions, with the interface of a split version's ``segments.CallCost``).

    The version's calls are timed first (``compiled``: its first and ``COMPILED_TRIAL_CALLS``
    more, the best counts: the machine is shared; one call under ``COMPILED_TRIAL_SECONDS``
    ends the timing, not worth it); only a version at least that slow on each of them then has
    up to ``calls`` plain calls timed. A plain call over ``REJECT_FACTOR`` times the
    best compiled one ends the trial at once (compiled stays: a trial costs one slow call);
    else the key moves to Python when the best compiled call is over ``PYTHON_MARGIN`` times the
    best plain one (hysteresis: between the two, the version stays)."""

    __slots__ = ("calls", "compiled", "warming", "plain")

    def __init__(self, calls: int, compiled: list[float]) -> None:
        self.calls, self.compiled, self.warming, self.plain = calls, compiled, [], []

    @staticmethod
    def worth_timing(compiled: list[float]) -> bool:
        """Whether compiled calls this long are worth timing Python against."""
        return min(compiled) >= COMPILED_TRIAL_SECONDS

    def record(self, seconds: float, steady: bool) -> None:
        self.compiled.append(seconds)

    def wants_plain(self) -> bool:
        return not self.settled()

    def settled(self) -> bool:
        return len(self.plain) >= self.calls or bool(self.plain) and self.plain[-1] > REJECT_FACTOR * self.best_compiled()

    def best_compiled(self) -> float:
        return min(self.compiled)

    def python_wins(self) -> bool:
        return self.best_compiled() > PYTHON_MARGIN * min(self.plain)

    def describe(self) -> str:
        return (f"plain Python takes {min(self.plain) * 1e6:.1f} µs per call, the compiled version "
                f"{self.best_compiled() * 1e6:.1f} µs (best of {len(self.plain)} and {len(self.compiled)})")
