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
``WINDOW`` of them show a median of at least ``MIN_SECONDS``; then to the second driver
(its first call is a warm-up, not counted) until it has ``WINDOW`` timed calls too. From
then on each call goes to the driver with the lower median of its last ``WINDOW`` calls,
except every ``EXPLORE_EVERY``-th call, which goes to the other driver so that its time
stays current as the machine's load changes.
"""

from __future__ import annotations

from collections import deque

#: calls faster than this on the first driver never try the second (its per-call cost
#: alone would be a large part of them)
MIN_SECONDS = 1e-3
#: timed calls per driver the choice is the median of
WINDOW = 3
#: once chosen, one call in this many runs on the other driver
EXPLORE_EVERY = 16


class DriverChoice:
    """The running choice between driver 0 (the preset's) and driver 1 for one function."""

    __slots__ = ("times", "compared", "warm", "current", "calls")

    def __init__(self) -> None:
        #: the last call times of each driver (seconds), at most ``WINDOW``
        self.times: tuple[deque[float], deque[float]] = (deque(maxlen=WINDOW), deque(maxlen=WINDOW))
        #: whether the calls were slow enough to try driver 1 (from then on, for good)
        self.compared = False
        self.warm = False  # whether driver 1 made its warm-up call
        self.current = 0  # the driver most calls go to
        self.calls = 0

    def next(self) -> int:
        """The driver for the next call (a few attribute reads while ``compared`` is False)."""
        if not self.compared:
            return 0
        if len(self.times[1]) < WINDOW:
            return 1
        return 1 - self.current if self.calls % EXPLORE_EVERY == 0 else self.current

    def record(self, driver: int, seconds: float) -> None:
        """The call ``next`` chose took ``seconds``."""
        self.calls += 1
        if driver == 1 and not self.warm:
            self.warm = True
            return
        times = self.times[driver]
        times.append(seconds)
        if not self.compared:
            self.compared = len(times) == WINDOW and median(times) >= MIN_SECONDS
        elif len(self.times[1]) == WINDOW:
            self.current = 0 if median(self.times[0]) <= median(self.times[1]) else 1


def median(times: deque[float]) -> float:
    return sorted(times)[len(times) // 2]
