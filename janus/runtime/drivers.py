"""Which of two IREE drivers runs a function's calls, chosen by timing them as they run.

On the CPU, ``local-sync`` runs a call on the caller's thread (about 10 us per call) and
``local-task`` spreads each dispatch over a thread pool (75-90 us per call; the LSTM LM's
matmul dispatches run as 8 to 192 workgroups, on both cores of this idle machine 1.9x
faster: ``benchmarks/dispatch_profile.py --driver local-task``). Which
wins depends on the graph (a 64x784x128 GAN step: 1.9 ms vs 0.9 ms on this idle 2-core
machine) and on the machine's load right now (with the other core busy, local-task gained
nothing on the same step and took twice as long on LeNet-5's many small dispatches), so a
FLOP count cannot decide it: the calls themselves are timed. Both drivers run the same
compiled code (one workgroup computes each output element either way), so the results do
not depend on the choice.

Why pairs and a median of several: local-task's call times spread far more than
local-sync's (the LSTM LM's step, machine nearly idle: local-task 18.5-27.8 ms in two
clusters, local-sync 25.9-31.0 ms), and every call's wall time counts moments another
process held a core. Three calls per driver, each driver's median against the other's
older one, chose differently from one run to the next. So the choice rests on the ratio
of two consecutive calls, one on each driver (they share the machine's load of that
moment), and on the median of ``PAIRS`` such ratios; it switches only when that median
is past the margin on the other side (hysteresis), never from one driver's slow spell
alone: a lasting slowdown of the chosen driver starts a new comparison instead.

Why per unit of work: consecutive calls need not do the same work (a recursive model's
calls each get another tree: RNTN's trees have 31 to 95 nodes, in three shapes taken in
turn), and the ratio of two calls' wall times then says more about their trees than about
the drivers (RNTN, full size: 1.29 over consecutive calls for local-task over local-sync,
while local-task ran its trees in 82 ms and local-sync in 144 ms at the median). So each
call's time is divided by its ``work``, a size the runtime sees in the call's inputs (the
caller's measure: ``CompiledFunction`` counts the elements of the inputs whose length
varies between calls, the tree's node arrays; 1 when none varies), and every comparison
(the ratios, a rejection, a slowdown) is of those rates; calls of equal work compare
exactly as their times did. Only ``MIN_SECONDS`` looks at plain seconds (it asks whether a
call is long enough for the second driver's per-call cost not to matter).

The policy, per function: every call is timed (its seconds, and its seconds per unit of
work: its rate). Calls go to driver 0 until ``WINDOW`` of them show a median of at least
``MIN_SECONDS`` (looked at after a call of at least
``MIN_SECONDS``; when a later driver-0 call brings that median under ``MIN_SECONDS``
again, the slow calls were a blip and all comparison is forgotten). Then the trial: one
warm-up call on driver 1 (its thread pool starts; not timed), then calls alternate
between the drivers until the median of ``PAIRS`` ratios is known (each call after the
warm-up with its predecessor: both orders alike; ``PAIRS // 2 + 1`` on one side of the
threshold decide it), or one driver-1 call takes ``REJECT_FACTOR`` times
driver 0's median rate (a recursive model's hundreds of tiny dispatches: 3 ms on local-sync,
100 ms on local-task). Driver 1 is chosen when the median ratio (driver 1 over driver 0)
is below ``MARGIN``, and left again when it is above 1. Now and then one call goes to
the other driver, giving two new ratios with its neighbours: after ``EXPLORE_EVERY``
calls, then twice as many each time the choice stood (up to ``MAX_EXPLORE_EVERY``), back
to ``EXPLORE_EVERY`` when it changed. When the chosen driver's median rate of its
last ``WINDOW`` calls grows past ``SLOWDOWN`` times what it was when chosen, the trial runs
again on fresh ratios.
"""

from __future__ import annotations

from collections import deque
from typing import Sequence

#: calls faster than this on the first driver never try the second (its per-call cost
#: alone would be a large part of them)
MIN_SECONDS = 1e-3
#: a driver's recent calls: the median that says a function is slow, or got slower
WINDOW = 3
#: ratios of consecutive calls (driver 1 over driver 0) the choice is the median of; odd
PAIRS = 7
#: calls of a trial: the warm-up, then alternating until ``PAIRS`` ratios are in
TRIAL_CALLS = PAIRS + 2
#: a second-driver call this many times slower than the first's median ends its trial
REJECT_FACTOR = 2.0
#: driver 1 is chosen only when its median ratio is below this (equal times keep the
#: preset's driver, whose per-call cost is lower); it is left when the ratio passes 1
MARGIN = 0.9
#: the chosen driver's recent median this many times its median when chosen: a new trial
SLOWDOWN = 1.5
#: calls between two calls on the other driver, at first and at most
EXPLORE_EVERY = 16
MAX_EXPLORE_EVERY = 1024


class DriverChoice:
    """The running choice between driver 0 (the preset's) and driver 1 for one function."""

    __slots__ = ("times", "rates", "ratios", "compared", "warm", "tried", "exploring", "last", "last_rate",
                 "current", "chosen_median", "calls", "interval", "explore_at", "quiet")

    def __init__(self) -> None:
        #: the last call times of each driver (seconds), at most ``WINDOW``
        self.times: tuple[deque[float], deque[float]] = (deque(maxlen=WINDOW), deque(maxlen=WINDOW))
        #: the same calls' seconds per unit of work
        self.rates: tuple[deque[float], deque[float]] = (deque(maxlen=WINDOW), deque(maxlen=WINDOW))
        #: driver 1's rate over driver 0's, for the last ``PAIRS`` consecutive calls on different drivers
        self.ratios: deque[float] = deque(maxlen=PAIRS)
        #: whether the calls were slow enough to try driver 1 (from then on, for good)
        self.compared = False
        self.warm = False  # whether driver 1 made its warm-up call
        self.tried = False  # whether the trial (until the median of ``PAIRS`` ratios is known, or a rejection) is over
        self.exploring = False  # whether the last call was an exploration (on the other driver)
        self.last = 0  # the driver of the last call
        self.last_rate: float | None = None  # its rate (None: a warm-up, not timed)
        self.current = 0  # the driver most calls go to
        self.chosen_median = 0.0  # the current driver's median rate when it was chosen
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
            return 1 - self.last if self.warm else 1
        return 1 - self.current if self.calls >= self.explore_at else self.current

    def record(self, driver: int, seconds: float, work: float = 1.0) -> None:
        """The call ``next`` chose took ``seconds`` for ``work`` (any positive measure of the
        call's size, the same for every call of one function; equal for calls of equal work)."""
        self.calls += 1
        previous, previous_rate = self.last, self.last_rate
        rate = seconds / work
        self.last, self.last_rate = driver, rate
        if driver == 1 and not self.warm:
            self.warm, self.last_rate = True, None
            return
        times, rates = self.times[driver], self.rates[driver]
        times.append(seconds)
        rates.append(rate)
        if not self.compared:  # the median only after a slow call: fast calls pay no sort
            self.compared = seconds >= MIN_SECONDS and len(times) == WINDOW and median(times) >= MIN_SECONDS
            self.quiet = not self.compared and len(times) == WINDOW and max(times) < MIN_SECONDS
            return
        if driver == 0 and median(times) < MIN_SECONDS:  # the slow calls were a blip: start over
            self._forget_comparison()
            return
        if previous != driver and previous_rate is not None:
            self.ratios.append(rate / previous_rate if driver == 1 else previous_rate / rate)
        if not self.tried:
            if driver == 1 and rate > REJECT_FACTOR * median(self.rates[0]):
                self._end_trial(0)
            elif self._decided():
                self._end_trial(self._preferred())
            return
        if driver != self.current:  # an exploration: its ratio with the next call is still to come
            self.exploring = True
            self.explore_at = self.calls + self.interval
            return
        if self.exploring:  # the call after an exploration
            self.exploring = False
            before, self.current = self.current, self._preferred()
            if self.current != before:
                self.interval = EXPLORE_EVERY
                self.chosen_median = median(self.rates[self.current])
            else:
                self.interval = min(2 * self.interval, MAX_EXPLORE_EVERY)
            self.explore_at = self.calls + self.interval
        elif len(rates) == WINDOW and median(rates) > SLOWDOWN * self.chosen_median:
            self._start_trial()

    def _preferred(self) -> int:
        """The driver the ratios favour, given the current one (hysteresis: ``MARGIN`` to 1)."""
        return int(self._favours_1(median(self.ratios)))

    def _favours_1(self, ratio: float) -> bool:
        return ratio < MARGIN if self.current == 0 else ratio <= 1.0

    def _decided(self) -> bool:
        """Whether the median of ``PAIRS`` ratios is known: more than half of them are in,
        on one side of the threshold (the rest cannot move it; a trial whose driver 1
        is clearly faster or slower ends after ``PAIRS // 2 + 1`` ratios)."""
        ones = sum(map(self._favours_1, self.ratios))
        return len(self.ratios) == PAIRS or max(ones, len(self.ratios) - ones) > PAIRS // 2

    def _end_trial(self, chosen: int) -> None:
        self.tried = True
        if chosen != self.current:
            self.interval = EXPLORE_EVERY
        self.current = chosen
        self.chosen_median = median(self.rates[chosen])
        self.explore_at = self.calls + self.interval

    def _start_trial(self) -> None:
        """Time both drivers afresh (the calls alternate again), the choice kept meanwhile."""
        self.tried = self.exploring = False
        self.ratios.clear()

    def _forget_comparison(self) -> None:
        """Back to the first driver, untimed against the second, as before the slow calls
        (each call's wall time counts the moments the process was not running: on a busy
        machine a fast function sees a slow window now and then, and a second driver that
        loses by milliseconds must not be explored for good)."""
        self.compared = self.tried = self.quiet = self.exploring = False
        self.current = 0
        self.times[1].clear()
        self.rates[1].clear()
        self.ratios.clear()
        self.interval = EXPLORE_EVERY


def median(times: Sequence[float]) -> float:
    return sorted(times)[len(times) // 2]
