"""The choice between a recursion entry's dispatch export and its host twin (``entry_choice``),
on made-up call times, and both exports of a real compiled recursion against plain Python."""

from __future__ import annotations

import math

import pytest

import janus
from janus.runtime import host_modules
from janus.runtime.fast_path import QUIET_SAMPLE
from janus.runtime.entry_choice import (COMPILED_TRIAL_SECONDS, DISPATCH, EXPLORE_COST, EXPLORE_EVERY, HOST,
                                        HOST_MAX_SECONDS, MAX_EXPLORE_EVERY, PYTHON_MARGIN, REJECT_FACTOR, WINDOW,
                                        CompiledCost, EntryChoice)

US = 1e-6


def call(choice: EntryChoice, dispatch: float, host: float) -> int:
    """One call as a generated caller makes it: the path the choice names, recorded when asked."""
    path = choice.path
    seconds = (dispatch, host)[path]
    choice.left -= 1
    if choice.left <= 0 or seconds > choice.limit:
        choice.record(path, seconds)
    return path


def test_a_shallow_recursion_settles_on_the_host_twin() -> None:
    choice = EntryChoice()
    paths = [call(choice, 4.5 * US, 2.5 * US) for _ in range(2 * WINDOW + 3)]
    assert paths[:4] == [DISPATCH, DISPATCH, HOST, DISPATCH]  # the warm-ups, then alternately
    assert not choice.timing and choice.path == HOST
    assert all(call(choice, 4.5 * US, 2.5 * US) == HOST for _ in range(100))


def test_a_deep_recursion_pays_one_slow_host_call_per_interval() -> None:
    choice = EntryChoice()
    paths = [call(choice, 9 * US, 35 * US) for _ in range(3 + 2000)]
    assert paths[:3] == [DISPATCH, DISPATCH, HOST]  # the host call ends the trial
    trials = [i for i, path in enumerate(paths) if path == HOST]
    gaps = [b - a for a, b in zip(trials, trials[1:])]
    assert gaps[0] >= EXPLORE_EVERY and gaps == sorted(gaps) and max(gaps) <= MAX_EXPLORE_EVERY + 2
    extra = (len(trials) - 1) * (35 - 9)  # the trials after the first, in microseconds
    assert extra <= 2 * EXPLORE_COST * 9 * len(paths)


def test_slow_dispatch_calls_never_try_the_host() -> None:
    choice = EntryChoice()
    assert all(call(choice, HOST_MAX_SECONDS * 2, math.inf) == DISPATCH for _ in range(5000))


def test_a_slow_host_call_after_settling_starts_a_new_trial() -> None:
    choice = EntryChoice()
    for _ in range(2 * WINDOW + 3):
        call(choice, 4.5 * US, 2.5 * US)
    assert choice.path == HOST
    assert call(choice, 4.5 * US, 40 * US) == HOST  # deeper arguments now: recorded, a trial again
    assert choice.timing and choice.path == DISPATCH
    paths = [call(choice, 4.5 * US, 40 * US) for _ in range(EXPLORE_EVERY)]
    assert paths[:2] == [DISPATCH, HOST] and set(paths[2:]) == {DISPATCH}


def test_a_full_trial_lost_by_the_host_is_tried_again_afresh() -> None:
    """A trial the twin loses on medians (a busy moment, not a rejection) is not final: after
    the interval the next trial times both exports again, without the old times."""
    choice = EntryChoice()
    for _ in range(2 * WINDOW + 3):
        call(choice, 7 * US, 12 * US)  # slower than the dispatch, yet under the rejection factor
    assert choice.path == DISPATCH and not choice.timing
    paths = [call(choice, 7 * US, 3 * US) for _ in range(EXPLORE_EVERY * 8)]
    assert paths[-1] == HOST and not choice.timing
    assert paths.index(HOST) <= 2 * EXPLORE_EVERY + 2  # the first interval after the lost trial


def test_a_tie_keeps_the_dispatch_export() -> None:
    choice = EntryChoice()
    for _ in range(2 * WINDOW + 3):
        call(choice, 3 * US, 2.9 * US)
    assert choice.path == DISPATCH and choice.left > 0


# -- a compiled version against plain Python (``CompiledCost``) -------------------------------


def plain_trial(compiled: list[float], plain: float, calls: int = 5) -> tuple[CompiledCost, int]:
    """The cost after plain calls of ``plain`` seconds until it settles, and how many ran."""
    cost = CompiledCost(calls, compiled)
    ran = 0
    while cost.wants_plain():
        cost.plain.append(plain)
        ran += 1
    return cost, ran


def test_only_compiled_calls_slow_on_every_timing_are_worth_a_plain_trial() -> None:
    assert CompiledCost.worth_timing([COMPILED_TRIAL_SECONDS, 3 * COMPILED_TRIAL_SECONDS])
    assert not CompiledCost.worth_timing([900 * US, COMPILED_TRIAL_SECONDS / 2, 900 * US])


def test_a_version_clearly_slower_than_python_loses_after_all_plain_calls() -> None:
    cost, ran = plain_trial([400 * US, 386 * US, 390 * US], 44 * US)
    assert ran == 5 and cost.python_wins()
    assert cost.describe() == "plain Python takes 44.0 µs per call, the compiled version 386.0 µs (best of 5 and 3)"


def test_a_plain_call_much_slower_than_compiled_ends_the_trial_at_once() -> None:
    cost, ran = plain_trial([100 * US], (REJECT_FACTOR + 0.5) * 100 * US)
    assert ran == 1 and not cost.python_wins()


def test_within_the_margin_the_compiled_version_stays() -> None:
    cost, ran = plain_trial([100 * US], 100 * US / (0.9 * PYTHON_MARGIN))
    assert ran == 5 and not cost.python_wins()


# -- both exports of a compiled recursion ----------------------------------------------------


def power(base: int, n: int) -> int:
    return 1 if n == 0 else base * power(base, n - 1)


@pytest.fixture(autouse=True)
def no_host_modules():
    """The generated call is what these tests time: a host module an earlier test registered
    (``janus.distributed``'s MPI module) would hand every call to ``run_inputs``."""
    saved = list(host_modules.ACTIVE)
    host_modules.ACTIVE.clear()
    yield
    host_modules.ACTIVE[:] = saved


@pytest.fixture
def compiled_power():
    jf = janus.jit(power, specialize=False)
    for _ in range(4):
        assert jf(3, 5) == 243
    (version,) = jf.versions.values()
    function = version.call.__self__
    assert function.entry_choice is not None and function._runners[0].host_twin is not None
    return jf, version, function.entry_choice


@pytest.mark.parametrize("path", [DISPATCH, HOST], ids=["dispatch", "host"])
def test_each_export_agrees_with_python_and_fails_the_same_guards(compiled_power, path) -> None:
    jf, version, choice = compiled_power
    choice.path, choice.left, choice.limit = path, 1 << 62, math.inf  # settled on ``path``, unwatched
    compiles, calls = jf.compiles, version.calls
    for base, n in [(2, 10), (7, 3), (-3, 5), (1, 0), (3, 4)]:
        got = jf(base, n)
        assert got == power(base, n) and type(got) is int
    assert jf.compiles == compiles and version.calls == calls + 5
    assert choice.path == path
    events = len(jf.events)
    assert jf(2, 70) == 2**70  # the overflow guard fails on this path: Python's exact int
    assert any("64 bits" in event for event in jf.events[events:]), jf.events


def test_settled_on_the_twin_sampled_calls_still_see_calls_turn_slow(compiled_power, monkeypatch) -> None:
    """Settled on the twin, the generated call times one call in ``QUIET_SAMPLE``: calls that
    turn slow (a clock made to say so) still start a new trial within that many calls."""
    jf, version, choice = compiled_power
    choice.path, choice.left, choice.limit, choice.settled, choice.quiet = HOST, 1 << 62, 1.0, True, True
    for _ in range(QUIET_SAMPLE // 2):  # the real clock: fast calls, one of them timed
        jf(3, 5)
    assert not choice.timing
    choice.limit = 1e-3
    ticks = iter(range(10**6))
    monkeypatch.setitem(version.quick.__globals__, "perf_counter", lambda: next(ticks) * 2e-3)  # every call 2 ms
    for _ in range(QUIET_SAMPLE):
        assert jf(3, 5) == 243
        if choice.timing:
            break
    assert choice.timing
