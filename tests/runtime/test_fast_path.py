"""The generated call of a compiled function (``fast_path.caller``): the same results, byte
counts and failures as ``CompiledFunction.results``; arrays the caller keeps never change
under it; calls from two threads; ``run_inputs`` where the generated call does not apply."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from janus.heap import AccessPath, HeapManifest
from janus.runtime import CompiledModule, GuardFailure, drivers, fast_path
from janus.runtime import module as module_file
from janus.runtime.artifact import Artifact, FunctionInfo
from janus.runtime.values import SHARE_MIN_BYTES, Turn

BIG = SHARE_MIN_BYTES // 4
MLIR = f"""
func.func @affine(%x: tensor<4xf32>, %w: tensor<4xf32>, %s: f32, %n: i64) -> (tensor<4xf32>, i64, f32, i1) {{
  %t = tensor.empty() : tensor<4xf32>
  %0 = linalg.generic {{indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                        iterator_types = ["parallel"]}} ins(%x, %w : tensor<4xf32>, tensor<4xf32>) outs(%t : tensor<4xf32>) {{
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %m, %s : f32
    linalg.yield %r : f32
  }} -> tensor<4xf32>
  %c1 = arith.constant 1 : i64
  %n1 = arith.addi %n, %c1 : i64
  %pos = arith.cmpi sgt, %n, %c1 : i64
  return %0, %n1, %s, %pos : tensor<4xf32>, i64, f32, i1
}}
func.func @count(%n: i64) -> i64 {{
  %c0 = arith.constant 0 : i64
  %ok = arith.cmpi sge, %n, %c0 : i64
  cf.assert %ok, "janus.guard id=4 kind=value source=test.py:2"
  %c2 = arith.constant 2 : i64
  %r = arith.muli %n, %c2 : i64
  return %r : i64
}}
func.func @big(%x: tensor<{BIG}xf32>) -> tensor<{BIG}xf32> {{
  %0 = arith.addf %x, %x : tensor<{BIG}xf32>
  return %0 : tensor<{BIG}xf32>
}}
func.func @large_result(%x: tensor<4xf32>) -> tensor<{BIG}xf32> {{
  %0 = tensor.empty() : tensor<{BIG}xf32>
  %1 = linalg.generic {{indexing_maps = [affine_map<(d0) -> (0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}}
       ins(%x : tensor<4xf32>) outs(%0 : tensor<{BIG}xf32>) {{
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  }} -> tensor<{BIG}xf32>
  return %1 : tensor<{BIG}xf32>
}}
"""


@pytest.fixture(scope="module", params=["local-sync", "local-task", None])
def module(request: pytest.FixtureRequest) -> CompiledModule:
    """On each driver, and on the preset's (None: its calls timed for the driver choice)."""
    return CompiledModule.from_mlir(MLIR, driver=request.param)


def inputs(seed: int) -> list:
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(4).astype(np.float32), rng.standard_normal(4).astype(np.float32), float(seed) / 4, seed]


def test_the_generated_call_gives_what_results_gives(module: CompiledModule) -> None:
    function = module["affine"]
    call = function.caller()
    assert call is not function.run_inputs  # generated: every input is a small array or a scalar
    for seed in range(3):
        args = inputs(seed)
        got, want = call(args), function.results(args)
        assert [type(v) for v in got] == [np.ndarray, int, float, bool]
        np.testing.assert_array_equal(got[0], want[0])
        assert got[1:] == want[1:] == [seed + 1, float(np.float32(seed / 4)), seed > 1]


def test_bytes_are_counted_as_results_counts_them(module: CompiledModule) -> None:
    function = module["affine"]
    call, args = function.caller(), inputs(1)
    function.results(args)
    before = (function.traffic.calls, function.traffic.copied)
    function.results(args)
    by_results = function.traffic.copied - before[1]
    call(args)
    assert function.traffic.calls == before[0] + 2
    assert function.traffic.copied - before[1] == 2 * by_results == 2 * (16 + 16 + 16)


def test_a_kept_result_never_changes_and_inputs_are_read_each_call(module: CompiledModule) -> None:
    call = module["affine"].caller()
    x, w = np.ones(4, np.float32), np.full(4, 2.0, np.float32)
    first = call([x, w, 0.0, 0])[0]
    kept = first.copy()
    x[:] = 3.0  # changed in place between calls: the next call stages the new values
    second = call([x, w, 0.0, 0])[0]
    np.testing.assert_array_equal(first, kept)
    np.testing.assert_array_equal(second, np.full(4, 6.0, np.float32))
    np.testing.assert_array_equal(x, np.full(4, 3.0, np.float32))  # the input itself untouched


def test_a_failed_guard_is_a_guard_failure_and_the_module_stays_usable(module: CompiledModule) -> None:
    call = module["count"].caller()
    assert call([5]) == [10]
    with pytest.raises(GuardFailure) as failure:
        call([-1])
    assert failure.value.guard_id == 4
    assert call([6]) == [12]


def test_the_same_ints_reuse_the_argument_list_and_new_ones_are_pushed(module: CompiledModule) -> None:
    """The last call's argument list is passed again only for equal ints; ``np.int64``
    converts and ``True`` is refused as ``results`` does; a failed guard in between
    changes nothing."""
    function = module["count"]
    call = function.caller()
    for n in [3, 3, 4, 3, np.int64(3), 4, 4, 1, 0]:
        assert call([n]) == function.results([n]) == [2 * int(n)]
    with pytest.raises(TypeError, match="argument 0 of @count"):
        call([True])
    with pytest.raises(GuardFailure):
        call([-2])
    assert call([4]) == [8] and call([-0]) == [0]


def test_a_busy_scratch_hands_the_call_to_run_inputs(module: CompiledModule) -> None:
    """While another call holds the function's scratch (its turn), the generated call runs
    the general path, which converts into buffers of its own: the same results."""
    function = module["affine"]
    call, args = function.caller(), inputs(2)
    want = function.results(args)
    turn = function._runners[0].turn
    assert turn.try_take()
    try:
        got = call(args)
    finally:
        turn.give()
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a, b)


def test_inputs_the_caller_checked_as_ints_are_passed_as_they_are(module: CompiledModule) -> None:
    """``SteadyCall.lines(inputs, ints)``: an int input the caller checked (a relaxed int's
    entry guard) is pushed without a conversion; the call agrees with ``results``."""
    function = module["count"]
    steady = fast_path.steady_call(function)
    lines = steady.lines(["n"], ints=[0])
    assert not any("except (TypeError, OverflowError)" in line for line in lines)  # nothing left to convert
    namespace: dict = {}
    exec("def call(n):\n" + "".join(f"    {line}\n" for line in [*lines, "return results"]), steady.scope, namespace)
    for n in (0, 7, 7, 1 << 40, 3):
        assert namespace["call"](n) == function.results([n]) == [2 * n]


def test_a_quiet_driver_choice_still_sees_calls_turn_slow(monkeypatch: pytest.MonkeyPatch) -> None:
    """While the driver choice is quiet, one generated call in ``QUIET_SAMPLE`` is timed: calls
    that turn slow (a clock made to say so) still make it compare the drivers, within
    ``WINDOW`` samples."""
    function = CompiledModule.from_mlir(MLIR.split("func.func @count")[0])["affine"]
    call, args = function.caller(), inputs(1)
    while not function.choice.quiet:
        call(args)
    ticks = iter(range(10**6))
    slow_clock = lambda: next(ticks) * 2 * drivers.MIN_SECONDS  # noqa: E731 - every timed call 2 ms
    # both clocks: the generated call's, and ``run_inputs``' (the generated call hands calls to it
    # while a host module is registered or the scratch is busy, as in a full test run)
    monkeypatch.setitem(call.__globals__, "perf_counter", slow_clock)
    monkeypatch.setattr(module_file, "perf_counter", slow_clock)
    for _ in range(fast_path.QUIET_SAMPLE * drivers.WINDOW):
        call(args)
        if function.choice.compared:  # (the trial that follows times real calls, which may end it)
            break
    assert function.choice.compared


def test_floats_always_push_their_own_bits(module: CompiledModule) -> None:
    """``-0.0 == 0.0``: a float argument is pushed on every call, never taken from the last list."""
    call = module["affine"].caller()
    x, w = np.ones(4, np.float32), np.ones(4, np.float32)
    for s in (0.0, -0.0, 0.0, -0.0):
        assert np.array_equal(np.signbit(call([x, w, s, 0])[2:3]), np.signbit([s]))


def test_an_input_out_of_range_is_named_as_results_names_it(module: CompiledModule) -> None:
    with pytest.raises(OverflowError, match="argument 0 of @count"):
        module["count"].caller()([1 << 70])


def test_large_arrays_and_heap_writes_keep_the_general_path(module: CompiledModule) -> None:
    big = module["big"]
    assert big.caller() == big.run_inputs  # a large input is imported, not staged
    x = np.ones(BIG, np.float32)
    np.testing.assert_array_equal(big.caller()([x])[0], 2 * x)
    large = module["large_result"]  # a large result is pulled over its IREE buffer
    call = large.caller()
    assert call != large.run_inputs
    first = call([np.arange(4, dtype=np.float32)])[0]
    second = call([np.full(4, 7.0, np.float32)])[0]
    assert first.shape == (BIG,) and (first == 0).all() and (second == 7).all()
    writes = FunctionInfo("count", module.artifact.functions["count"].inputs, module.artifact.functions["count"].results,
                          HeapManifest(reads=(), writes=(AccessPath(0, (("attr", "n"),)),)))
    artifact = Artifact(module.artifact.vmfb, module.artifact.target, {"count": writes})
    assert CompiledModule(artifact)["count"].caller() is None  # its commit belongs to ``results``


def test_calls_from_two_threads_agree(module: CompiledModule) -> None:
    call = module["affine"].caller()
    errors: list[BaseException] = []

    def run(seed: int) -> None:
        try:
            for i in range(200):
                args = inputs(seed + i % 3)
                got = call(args)
                want = args[0] * args[1] + np.float32(args[2])
                np.testing.assert_allclose(got[0], want, rtol=1e-6)
                assert got[1] == args[3] + 1
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=run, args=(seed,)) for seed in (0, 10)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors


def test_a_turn_that_does_not_wait_is_taken_by_one_call_at_a_time() -> None:
    """``Turn(waits=False)``: taken once, busy until given back, then free again; from
    many threads at once, never held by two."""
    turn = Turn(waits=False)
    assert turn.try_take() and not turn.try_take()
    turn.give()
    holders, overlaps = [0], []

    def run() -> None:
        for _ in range(2000):
            if turn.try_take():
                holders[0] += 1
                if holders[0] != 1:
                    overlaps.append(holders[0])
                holders[0] -= 1
                turn.give()

    threads = [threading.Thread(target=run) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not overlaps and turn.try_take()


def test_a_stateful_modules_turn_waits() -> None:
    """``Turn(waits=True)`` (a module with state across calls): a second call waits for the
    turn instead of going on without the scratch."""
    turn, taken, order = Turn(waits=True), threading.Event(), []
    assert turn.try_take()

    def second() -> None:
        taken.set()
        assert turn.try_take()
        order.append("second")
        turn.give()

    thread = threading.Thread(target=second)
    thread.start()
    taken.wait()
    order.append("first")
    turn.give()
    thread.join()
    assert order == ["first", "second"]


def test_a_saved_module_loads_and_its_generated_call_runs(module: CompiledModule, tmp_path) -> None:
    path = tmp_path / "affine.vmfb"
    module.artifact.save(path)
    loaded = CompiledModule.load(path)
    args = inputs(2)
    got = loaded["affine"].caller()(args)
    np.testing.assert_array_equal(got[0], module["affine"].results(args)[0])
