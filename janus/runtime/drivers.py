"""Which of two IREE drivers runs a function's calls, chosen by timing them as they run.

On the CPU, ``local-sync`` runs a call on the caller's thread (about 10 us per call) and
``local-task`` spreads each dispatch over a thread pool (75-90 us per call, up to one core
per worker faster on large dispatches). Which wins depends on the graph (a 64x784x128 GAN
step: 1.9 ms vs 0.9 ms on this idle 2-core machine) and on the machine's load right now
(with the other core busy, local-task gained nothing on the same step and took twice as
long on LeNet-5's many small dispatches), so a FLOP count cannot decide it: the calls
themselves are timed. Both drivers run the same compiled code (one workgroup computes
each output element either way), so the results do not depend on the choice.

The policy, per function: every call is timed. Calls go to the first driver until
``WINDOW`` of them show a median of at least ``MIN_SECONDS`` (looked at after a call of
at least ``MIN_SECONDS``; when a later first-driver call brings that median under
``MIN_SECONDS`` again, the slow calls were a blip and the comparison starts over); then alternately to the
second driver (its first call is a warm-up, not counted) and the first, so that both are
timed under the same load, until the second has ``WINDOW`` timed calls, or one
call ``REJECT_FACTOR`` times slower than the first driver's median (a recursive model's
hundreds of tiny dispatches: 3 ms on local-sync, 100 ms on local-task). From then on each
call goes to the driver with the lower median of its last ``WINDOW`` calls (the second
only when below ``MARGIN`` times the first's), except that now and then one call goes to
the other driver so that its time stays current as the machine's load changes: after ``EXPLORE_EVERY`` calls, then twice as many each time the
choice stood (up to ``MAX_EXPLORE_EVERY``), back to ``EXPLORE_EVERY`` when it changed.
"""

from __future__ import annotations

from collections import deque

#: calls faster than this on the first driver never try the second (its per-call cost
#: alone would be a large part of them)
MIN_SECONDS = 1e-3
#: timed calls per driver the choice is the median of
WINDOW = 3
#: a second-driver call this many times slower than the first's median ends its trial
REJECT_FACTOR = 2.0
#: the second driver is chosen only when its median is below this fraction of the first's
#: (equal times keep the preset's driver, whose per-call cost is lower)
MARGIN = 0.9
#: calls between two calls on the other driver, at first and at most
EXPLORE_EVERY = 16
MAX_EXPLORE_EVERY = 1024


class DriverChoice:
    """The running choice between driver 0 (the preset's) and driver 1 for one function."""

    __slots__ = ("times", "compared", "warm", "tried", "last", "current", "calls", "interval", "explore_at", "quiet")

    def __init__(self) -> None:
        #: the last call times of each driver (seconds), at most ``WINDOW``
        self.times: tuple[deque[float], deque[float]] = (deque(maxlen=WINDOW), deque(maxlen=WINDOW))
        #: whether the calls were slow enough to try driver 1 (from then on, for good)
        self.compared = False
        self.warm = False  # whether driver 1 made its warm-up call
        self.tried = False  # whether driver 1's first timed calls are done
        self.last = 0  # the driver of the last call
        self.current = 0  # the driver most calls go to
        self.calls = 0
        self.interval = EXPLORE_EVERY
        self.explore_at = 0  # the call count at which the other driver runs next
        #: not compared, and the last ``WINDOW`` calls were fast: recording another fast call changes nothing
        self.quiet = False

    def next(self) -> int:
        """The driver for the next call (two attribute reads while ``compared`` is False)."""
        if not self.compared:
            return 0
        if not self.tried:
            return 0 if self.last == 1 and self.times[1] else 1
        return 1 - self.current if self.calls >= self.explore_at else self.current

    def record(self, driver: int, seconds: float) -> None:
        """The call ``next`` chose took ``seconds``."""
        self.calls += 1
        self.last = driver
        if driver == 1 and not self.warm:
            self.warm = True
            return
        times = self.times[driver]
        times.append(seconds)
        if not self.compared:  # the median only after a slow call: fast calls pay no sort
            self.compared = seconds >= MIN_SECONDS and len(times) == WINDOW and median(times) >= MIN_SECONDS
            self.quiet = not self.compared and len(times) == WINDOW and max(times) < MIN_SECONDS
            return
        if driver == 0 and median(times) < MIN_SECONDS:  # the slow calls were a blip: start over
            self._forget_comparison()
            return
        if not self.tried:
            if driver == 0 or len(times) < WINDOW and seconds <= REJECT_FACTOR * median(self.times[0]):
                return
            self.tried = True
            self._choose()
            self.explore_at = self.calls + self.interval
            return
        before = self._choose()
        if self.current != before:
            self.interval = EXPLORE_EVERY
        elif driver != self.current:  # an exploration that left the choice as it was
            self.interval = min(2 * self.interval, MAX_EXPLORE_EVERY)
        else:
            return
        self.explore_at = self.calls + self.interval

    def _forget_comparison(self) -> None:
        """Back to the first driver, untimed against the second, as before the slow calls
        (each call's wall time counts the moments the process was not running: on a busy
        machine a fast function sees a slow window now and then, and a second driver that
        loses by milliseconds must not be explored for good)."""
        self.compared = self.tried = self.quiet = False
        self.current = 0
        self.times[1].clear()
        self.interval = EXPLORE_EVERY

    def _choose(self) -> int:
        """Point ``current`` at the driver with the lower median (by ``MARGIN``); the previous choice."""
        before = self.current
        self.current = 1 if median(self.times[1]) < MARGIN * median(self.times[0]) else 0
        return before


def median(times: deque[float]) -> float:
    return sorted(times)[len(times) // 2]
