"""The CPU driver choice (``janus.runtime.drivers``): slow functions are timed on
local-sync and local-task and run on the faster; fast ones never leave local-sync; the
results are the same whichever driver computed them."""

from __future__ import annotations

from typing import Callable

import numpy as np
import pytest

import janus
from janus.runtime import CompiledModule, compile_module, drivers
from janus.runtime.drivers import EXPLORE_EVERY, PAIRS, TRIAL_CALLS, WINDOW, DriverChoice

MS = 1e-3


def test_fast_calls_stay_on_the_first_driver() -> None:
    choice = DriverChoice()
    for _ in range(50):
        assert choice.next() == 0
        choice.record(0, 0.1 * MS)
    assert not choice.compared and choice.current == 0


def run(choice: DriverChoice, calls: int, seconds: tuple[float, float]) -> list[int]:
    """``calls`` calls taking ``seconds[driver]``; the drivers they went to."""
    picks = []
    for _ in range(calls):
        picks.append(choice.next())
        choice.record(picks[-1], seconds[picks[-1]])
    return picks


def test_slow_calls_try_the_second_driver_and_keep_the_faster() -> None:
    choice = DriverChoice()
    assert run(choice, WINDOW, (5 * MS, 0)) == [0] * WINDOW
    assert choice.compared and choice.next() == 1
    choice.record(1, 80 * MS)  # its warm-up call (thread pool start) is not counted
    assert not choice.times[1] and not choice.ratios
    # alternating, so that both drivers are timed under the same load; each call with its predecessor is one
    # ratio; once more than half of PAIRS are below the margin, their median is known
    assert run(choice, PAIRS // 2 + 2, (5 * MS, 2 * MS)) == [0, 1, 0, 1, 0]
    assert choice.tried and list(choice.ratios) == [0.4] * (PAIRS // 2 + 1) and choice.current == 1
    picks = run(choice, EXPLORE_EVERY * 7, (5 * MS, 2 * MS))
    # the other driver is re-timed now and then, half as often each time the choice stands
    assert [i for i, d in enumerate(picks) if d == 0] == [EXPLORE_EVERY, 3 * EXPLORE_EVERY + 2]


def test_a_much_slower_second_driver_is_rejected_after_one_call() -> None:
    choice = DriverChoice()
    run(choice, WINDOW, (3 * MS, 0))
    assert run(choice, 3, (3 * MS, 100 * MS)) == [1, 0, 1]  # warm-up, one first-driver call, one timed call
    assert choice.tried and choice.current == 0 and len(choice.times[1]) == 1
    assert run(choice, EXPLORE_EVERY + 1, (3 * MS, 100 * MS)).count(1) == 1


def test_a_tie_keeps_the_first_driver() -> None:
    choice = DriverChoice()
    run(choice, WINDOW + TRIAL_CALLS, (20 * MS, 19 * MS))  # fib: no dispatches, the VM alone
    assert choice.tried and choice.current == 0


def run_at(choice: DriverChoice, calls: int, seconds: Callable[[int, int], float],
           work: Callable[[int], float] = lambda i: 1.0, start: int = 0) -> list[int]:
    """``calls`` calls, the i-th (from ``start``) doing ``work(i)`` and taking ``seconds(i, d)``
    on driver d; the drivers they went to."""
    picks = []
    for i in range(start, start + calls):
        picks.append(choice.next())
        choice.record(picks[-1], seconds(i, picks[-1]), work(i))
    return picks


#: RNTN's data set: trees of 31 to 95 nodes, balanced, moderate and linear in turn (a
#: linear tree has as many levels as leaves: more launches per node)
TREE_NODES = [int(n) for n in np.random.default_rng(3).integers(15, 48, 60) * 2 + 1]
SHAPE_COST = (0.8, 1.0, 1.3)


def tree_seconds(per_node: tuple[float, float]) -> Callable[[int, int], float]:
    """Call ``i`` on driver d: its tree's nodes times ``per_node[d]``, times its shape's cost."""
    return lambda i, d: TREE_NODES[i % len(TREE_NODES)] * per_node[d] * SHAPE_COST[i % 3]


def tree_work(i: int) -> float:
    return TREE_NODES[i % len(TREE_NODES)]


@pytest.mark.parametrize("start", range(0, 12))
@pytest.mark.parametrize("per_node, expected", [((1.75 * MS, 1.0 * MS), 1), ((1.0 * MS, 1.2 * MS), 0)])
def test_calls_over_different_trees_compare_per_node(start: int, per_node: tuple[float, float], expected: int) -> None:
    """RNTN: each call gets another tree, so two consecutive calls' times differ by their
    trees more than by their drivers; per node, the faster driver wins from any start
    in the data set, and stays chosen through the explorations."""
    choice = DriverChoice()
    run_at(choice, WINDOW + TRIAL_CALLS, tree_seconds(per_node), tree_work, start)
    assert choice.tried and choice.current == expected
    picks = run_at(choice, 6 * EXPLORE_EVERY, tree_seconds(per_node), tree_work, start + WINDOW + TRIAL_CALLS)
    assert choice.current == expected and picks.count(1 - expected) <= 4  # explorations only, no new trial


@pytest.mark.parametrize("small_on_sync", [True, False])
def test_trees_of_two_sizes_in_step_with_the_alternation_do_not_decide(small_on_sync: bool) -> None:
    """The worst case for times of consecutive calls: one driver always gets the small tree
    (31 nodes), the other the large one (95). Local-task at 1.0 ms a node against
    local-sync's 1.75 is chosen either way; on plain seconds, with the small trees on
    local-sync, local-sync was (1.75 * 31 = 54 ms against 95)."""
    nodes = (31, 95) if small_on_sync else (95, 31)  # even calls run on local-sync in the trial

    def seconds(i: int, d: int) -> float:
        return nodes[i % 2] * (1.75 * MS, 1.0 * MS)[d]

    choice = DriverChoice()
    run_at(choice, WINDOW + TRIAL_CALLS, seconds, lambda i: nodes[i % 2])
    assert choice.tried and choice.current == 1
    assert drivers.median(choice.ratios) == pytest.approx(1.0 / 1.75)
    unweighted = DriverChoice()
    run_at(unweighted, WINDOW + TRIAL_CALLS, seconds)
    assert unweighted.current == (0 if small_on_sync else 1)


def test_equal_work_decides_as_plain_seconds() -> None:
    """Calls of one size (a fixed-shape step): whatever their work measure, every choice is
    the one their seconds alone make, through busy spells, rejections and explorations."""
    rng = np.random.default_rng(5)
    plain, weighted = DriverChoice(), DriverChoice()
    for step in range(3000):
        load = 1.0 + (rng.random() < 0.2) * rng.random() * 3
        task = (19 if step < 1500 else 32) * MS  # local-task faster, then slower
        seconds = (27 * MS * load * rng.uniform(0.9, 1.1), task * load * rng.uniform(0.8, 1.2))
        driver = plain.next()
        assert weighted.next() == driver
        plain.record(driver, seconds[driver])
        weighted.record(driver, seconds[driver], 37.0)
        assert (weighted.tried, weighted.current, weighted.calls) == (plain.tried, plain.current, plain.calls)
    assert plain.current == 0


def test_bigger_trees_are_no_slowdown() -> None:
    """A run of large trees after small ones makes the chosen driver's calls longer, not
    slower per node: no new trial."""
    choice = DriverChoice()
    run_at(choice, WINDOW + TRIAL_CALLS, lambda i, d: 40 * (1.75 * MS, 1.0 * MS)[d], lambda i: 40)
    assert choice.current == 1
    nodes = [31] * 5 + [95] * 8
    picks = run_at(choice, len(nodes), lambda i, d: nodes[i] * (1.75 * MS, 1.0 * MS)[d], lambda i: nodes[i])
    assert picks == [1] * len(nodes) and choice.tried


@pytest.mark.parametrize("trees", [False, True])
@pytest.mark.parametrize("spell_start", range(WINDOW, WINDOW + TRIAL_CALLS))
def test_a_busy_spell_during_the_trial_does_not_decide(spell_start: int, trees: bool) -> None:
    """Another process holding a core for a few calls slows both drivers alike: the ratios
    of consecutive calls hardly see it (two of them straddle the spell's ends, one up,
    one down), whichever calls of the trial it hits. With each driver's median compared
    with the other's, a spell over one driver's calls decided the choice. The same with
    calls over different trees (``trees``: times and work scaled by each tree's nodes)."""
    nodes = tree_work if trees else lambda i: 1.0
    for base, expected in (((27 * MS, 20 * MS), 1), ((27 * MS, 26 * MS), 0)):
        choice = DriverChoice()
        for i in range(WINDOW + TRIAL_CALLS):  # until the trial ends (a spell after it is no part of it)
            run_at(choice, 1, lambda i, d: nodes(i) * base[d] * (1.6 if spell_start <= i < spell_start + 4 else 1.0),
                   nodes, i)
            if choice.tried:
                break
        assert choice.tried and choice.current == expected


@pytest.mark.parametrize("seed", range(40))
def test_a_trial_ends_as_soon_as_its_median_is_known(seed: int, monkeypatch) -> None:
    """Ending the trial when more than half of ``PAIRS`` ratios are on one side chooses
    what the median of all ``PAIRS`` would have (the calls after it change nothing), in
    fewer calls when the drivers differ clearly."""
    rng = np.random.default_rng(seed)
    ratio = rng.uniform(0.6, 1.3)
    seconds = [(20 * MS * rng.uniform(0.8, 1.5), 20 * MS * ratio * rng.uniform(0.8, 1.5)) for _ in range(40)]

    def trial(choice: DriverChoice) -> int:
        """The calls until the first trial ends."""
        calls = 0
        while not choice.tried:
            calls += len(run_at(choice, 1, lambda i, d: seconds[i][d], start=calls))
        return calls

    early = DriverChoice()
    early_calls = trial(early)
    monkeypatch.setattr(DriverChoice, "_decided", lambda self: len(self.ratios) == PAIRS)
    full = DriverChoice()
    full_calls = trial(full)
    assert early.current == full.current and early_calls <= full_calls


def test_a_slow_spell_of_the_chosen_driver_alone_does_not_switch() -> None:
    """Two slow calls in a row of the chosen driver (another process held a core) used to
    hand the choice to the other driver, compared with that driver's older calls."""
    choice = DriverChoice()
    run(choice, WINDOW + TRIAL_CALLS, (27 * MS, 19 * MS))
    assert choice.current == 1
    picks = run_at(choice, 4 * EXPLORE_EVERY, lambda i, d: (27 * MS, 19 * MS * (1.45 if i % 12 >= 10 else 1.0))[d])
    assert choice.current == 1 and picks.count(0) == 2  # the explorations only: still 0.7 in their pairs


def test_the_choice_follows_a_change_of_load() -> None:
    choice = DriverChoice()
    run(choice, WINDOW + TRIAL_CALLS, (5 * MS, 2 * MS))
    assert choice.current == 1
    # the other cores got busy: driver 1 now takes 20 ms; once its median passes SLOWDOWN, a new trial
    assert run(choice, 2, (5 * MS, 20 * MS)) == [1, 1] and not choice.tried
    # its first call there is REJECT_FACTOR times slower than driver 0's: back to driver 0 at once
    assert run(choice, 2, (5 * MS, 20 * MS)) == [0, 1] and choice.tried and choice.current == 0
    run(choice, 4 * EXPLORE_EVERY, (5 * MS, 2 * MS))  # and idle again: explorations see it
    assert choice.current == 1 and choice.chosen_median == 2 * MS  # a slowdown is measured from now on


def test_a_lasting_slowdown_of_the_chosen_driver_compares_both_again() -> None:
    choice = DriverChoice()
    run(choice, WINDOW + TRIAL_CALLS, (27 * MS, 19 * MS))
    assert choice.current == 1
    # the other core got busy: local-task 32 ms, slower than local-sync but not REJECT_FACTOR times
    assert run(choice, 2, (27 * MS, 32 * MS)) == [1, 1] and not choice.tried
    # alternating again (the first call's ratio is with the last local-task call) until the median is known
    assert run(choice, PAIRS // 2 + 1, (27 * MS, 32 * MS)) == [0, 1] * ((PAIRS // 2 + 1) // 2)
    assert choice.tried and choice.current == 0 and choice.chosen_median == 27 * MS


def test_explorations_switch_only_past_the_margin() -> None:
    """Hysteresis: driver 1 is taken when its ratio is below ``MARGIN`` and left above 1,
    so ratios between the two keep whatever was chosen."""
    for first, expected in ((2 * MS, 1), (4.75 * MS, 0)):
        choice = DriverChoice()
        run(choice, WINDOW + TRIAL_CALLS, (5 * MS, first))
        assert choice.current == expected
        run(choice, 8 * EXPLORE_EVERY, (5 * MS, 4.75 * MS))  # ratio 0.95: in the band
        assert choice.current == expected


MATMULS = """
func.func @chain(%a: tensor<256x256xf32>, %b: tensor<256x256xf32>) -> tensor<256x256xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x256xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
  %ab = linalg.matmul ins(%a, %b : tensor<256x256xf32>, tensor<256x256xf32>) outs(%init : tensor<256x256xf32>) -> tensor<256x256xf32>
  %abb = linalg.matmul ins(%ab, %b : tensor<256x256xf32>, tensor<256x256xf32>) outs(%init : tensor<256x256xf32>) -> tensor<256x256xf32>
  return %abb : tensor<256x256xf32>
}
"""


@pytest.fixture(scope="module")
def matmuls() -> object:
    return compile_module(MATMULS, "cpu", pipeline="canonicalize")


def operands() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    return tuple(rng.standard_normal((256, 256)).astype(np.float32) / 16 for _ in range(2))  # type: ignore[return-value]


def test_both_drivers_compute_the_same_bits(matmuls) -> None:
    a, b = operands()
    sync = CompiledModule(matmuls, driver="local-sync")["chain"](a, b)
    task = CompiledModule(matmuls, driver="local-task")["chain"](a, b)
    np.testing.assert_array_equal(sync, task)
    np.testing.assert_allclose(sync, a @ b @ b, rtol=1e-4, atol=1e-5)


def test_every_call_runs_on_the_chosen_driver_and_matches_numpy(matmuls, monkeypatch) -> None:
    monkeypatch.setattr(drivers, "MIN_SECONDS", 0.0)  # compare even this short call
    # a loaded machine's slow calls neither cut the trial short nor start it again here
    monkeypatch.setattr(drivers, "REJECT_FACTOR", float("inf"))
    monkeypatch.setattr(drivers, "SLOWDOWN", float("inf"))
    module = CompiledModule(matmuls)
    fn = module["chain"]
    a, b = operands()
    first = fn(a, b)
    for _ in range(WINDOW + TRIAL_CALLS - 1):  # the last call ends the trial
        np.testing.assert_array_equal(fn(a, b), first)
    np.testing.assert_allclose(first, a @ b @ b, rtol=1e-4, atol=1e-5)
    assert module.loaded_drivers == ["local-sync", "local-task"]
    assert fn.choice.tried and len(fn.choice.times[0]) == WINDOW and fn.choice.times[1]
    faster = drivers.median(fn.choice.ratios) < drivers.MARGIN
    assert fn.driver == ("local-sync", "local-task")[faster]
    assert fn.describe_driver().startswith(f"runs on {fn.driver} (median call: local-sync ")
    assert f"local-task/local-sync over consecutive calls {drivers.median(fn.choice.ratios):.2f})" in fn.describe_driver()


def test_short_calls_never_load_the_second_driver(matmuls, monkeypatch) -> None:
    monkeypatch.setattr(drivers, "MIN_SECONDS", float("inf"))
    module = CompiledModule(matmuls)
    for _ in range(2 * WINDOW):
        module["chain"](*operands())
    assert module.loaded_drivers == ["local-sync"] and module["chain"].driver == "local-sync"


def test_an_explicit_driver_is_kept(matmuls, monkeypatch) -> None:
    monkeypatch.setattr(drivers, "MIN_SECONDS", 0.0)
    module = CompiledModule(matmuls, driver="local-sync")
    for _ in range(2 * WINDOW):
        module["chain"](*operands())
    assert module["chain"].choice is None and module.loaded_drivers == ["local-sync"]


def mlp_step(x, W1, W2):
    h = np.tanh(x @ W1)
    return (h @ W2).sum(axis=0)


def test_jit_versions_choose_a_driver_and_agree_with_python(monkeypatch) -> None:
    monkeypatch.setattr(drivers, "MIN_SECONDS", 0.0)
    monkeypatch.setattr(drivers, "SLOWDOWN", float("inf"))
    rng = np.random.default_rng(1)
    x, W1, W2 = (rng.standard_normal(s).astype(np.float32) / 8 for s in ((64, 128), (128, 256), (256, 32)))
    jf = janus.jit(mlp_step, warmup=1)
    for _ in range(1 + WINDOW + TRIAL_CALLS):
        np.testing.assert_allclose(jf(x, W1, W2), mlp_step(x, W1, W2), rtol=1e-4, atol=1e-5)
    (version,) = jf.versions.values()
    assert version.calls == WINDOW + TRIAL_CALLS and version.call.__self__.choice.tried
    assert f"  runs on {version.call.__self__.driver} (median call: local-sync" in janus.explain(jf)


def test_a_slow_blip_of_a_fast_function_is_forgotten() -> None:
    """Two calls that spanned moments the process was not running (a busy machine) make a
    fast function look slow: after a short trial of the second driver (milliseconds a
    call: its thread pool), fast calls bring it back to the first driver for good."""
    choice = DriverChoice()
    run(choice, 10, (0.02 * MS, 0))
    run(choice, 2, (3 * MS, 0))  # the blip
    assert choice.compared
    # warm-up, then alternating until two fast first-driver calls outvote the blip
    assert run(choice, 3, (0.02 * MS, 4 * MS)) == [1, 0, 1] and choice.compared
    assert run(choice, 1, (0.02 * MS, 4 * MS)) == [0] and not choice.compared
    assert run(choice, 4 * EXPLORE_EVERY, (0.02 * MS, 4 * MS)) == [0] * (4 * EXPLORE_EVERY)
    assert choice.current == 0


def test_a_quiet_choice_skips_only_records_that_change_nothing() -> None:
    """``quiet``: the generated call (``fast_path``) skips recording a fast call then; a
    choice that skips them decides exactly as one that records every call, through slow
    spells, blips and comparisons."""
    rng = np.random.default_rng(0)
    every, skipping = DriverChoice(), DriverChoice()
    skipped, compared = 0, False
    for step in range(4000):
        slow = rng.random() < (0.6 if 1500 <= step < 1600 else 0.02)
        seconds = (3 * MS if slow else 0.02 * MS, 2 * MS)
        driver = every.next()
        assert skipping.next() == driver
        every.record(driver, seconds[driver])
        if driver == 0 and seconds[0] < drivers.MIN_SECONDS and skipping.quiet:
            skipped += 1
        else:
            skipping.record(driver, seconds[driver])
        assert (skipping.compared, skipping.current) == (every.compared, every.current)
        compared |= every.compared
    assert skipped > 3000 and compared  # most calls skipped; the slow spell compared the drivers


SUMS = """
func.func @sums(%a: tensor<?x256xf32>, %b: tensor<256x256xf32>) -> tensor<256xf32> {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %rows = tensor.dim %a, %c0 : tensor<?x256xf32>
  %e = tensor.empty(%rows) : tensor<?x256xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<?x256xf32>) -> tensor<?x256xf32>
  %ab = linalg.matmul ins(%a, %b : tensor<?x256xf32>, tensor<256x256xf32>) outs(%init : tensor<?x256xf32>) -> tensor<?x256xf32>
  %e1 = tensor.empty() : tensor<256xf32>
  %init1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<256xf32>) -> tensor<256xf32>
  %sum = linalg.reduce ins(%ab : tensor<?x256xf32>) outs(%init1 : tensor<256xf32>) dimensions = [0]
    (%x: f32, %acc: f32) { %s = arith.addf %x, %acc : f32
      linalg.yield %s : f32 }
  return %sum : tensor<256xf32>
}
"""


def test_a_call_s_work_is_the_size_of_its_varying_inputs(monkeypatch) -> None:
    """A relaxed dim: each call's rate is its time per element of that input (the static
    one, the same at every call, is left out), and the results match NumPy on both drivers."""
    monkeypatch.setattr(drivers, "MIN_SECONDS", 0.0)
    monkeypatch.setattr(drivers, "REJECT_FACTOR", float("inf"))
    monkeypatch.setattr(drivers, "SLOWDOWN", float("inf"))
    fn = CompiledModule(compile_module(SUMS, "cpu", pipeline="canonicalize"))["sums"]
    rng = np.random.default_rng(2)
    b = rng.standard_normal((256, 256)).astype(np.float32) / 16
    for rows in [8, 64, 16, 128, 32] * 3:
        a = rng.standard_normal((rows, 256)).astype(np.float32) / 16
        np.testing.assert_allclose(fn(a, b), (a @ b).sum(axis=0), rtol=1e-4, atol=1e-4)
        driver = fn.choice.last
        if fn.choice.last_rate is not None:
            assert fn.choice.rates[driver][-1] == pytest.approx(fn.choice.times[driver][-1] / (rows * 256))
    assert fn.choice.tried and len(fn.choice.ratios) > PAIRS // 2
    assert " over consecutive calls per element of the inputs whose size varies " in fn.describe_driver()
