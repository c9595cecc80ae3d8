"""The bytecode decoder and the profiler's observations."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from janus.frontend import profiler
from janus.frontend.trace.bytecode import decode
from janus.frontend.profiler import DEEP_TUPLE, MAX_SUMMARY_DEPTH, Profile, run_profiled, summarize


def loop_and_branch(x, xs, flag):
    total = x
    for a in xs:
        if flag:
            total = total + a
    return np.sum(total, axis=0)


def _offset(fn, opname):
    return next(i.offset for i in decode(fn.__code__).instrs if i.opname == opname)


def _conditional_jump(fn):
    return next(i for i in decode(fn.__code__).instrs if i.is_conditional_jump)


def test_decode_drops_caches_and_resolves_targets_and_kw_names():
    bc = decode(loop_and_branch.__code__)
    names = [i.opname for i in bc.instrs]
    assert "CACHE" not in names and ("KW_NAMES" in names or "CALL_KW" in names)  # 3.13 has keyword names on the stack
    kw_names = next(i for n, i in enumerate(bc.instrs) if i.opname == "KW_NAMES" or bc.instrs[n + 1].opname == "CALL_KW")
    assert kw_names.argval == ("axis",)
    for_iter = bc.at(_offset(loop_and_branch, "FOR_ITER"))
    assert bc.at(for_iter.target).argval == "np"  # the loop exits to `return np.sum(...)`
    assert bc.source(for_iter.offset).endswith(f":{loop_and_branch.__code__.co_firstlineno + 2}")


def test_profiler_records_branches_trip_counts_and_arguments():
    p = Profile()
    x = np.ones((2, 3), np.float32)
    run_profiled(loop_and_branch, (x, [1.0, 2.0, 3.0], True), {}, p)
    run_profiled(loop_and_branch, (x, [1.0], True), {}, p)
    code = loop_and_branch.__code__
    test = _conditional_jump(loop_and_branch)
    jump = (code, test.offset)
    taken = "TRUE" in test.opname  # `if flag:` held: 3.11 falls through a jump-if-false, 3.12 takes a jump-if-true
    assert p.branches[jump] == {taken: 4} and p.branch_outcome(jump) is taken
    assert p.trip_counts[(code, _offset(loop_and_branch, "FOR_ITER"))] == {3: 1, 1: 1}
    assert p.arguments[code][(("ndarray", "float32", (2, 3)), ("list",), ("bool",))] == 2
    run_profiled(loop_and_branch, (x, [1.0], False), {}, p)
    assert p.branch_outcome(jump) is None and p.runs == 3


def raises_or_returns(x, fail):
    if fail:
        raise ValueError("no")
    return np.pad(x, 1)  # NumPy's Python code is not observed


def test_profiler_records_returns_unwinding_and_leaves_no_hook():
    p = Profile()
    run_profiled(raises_or_returns, (np.ones(2), False), {}, p)
    with pytest.raises(ValueError):
        run_profiled(raises_or_returns, (np.ones(2), True), {}, p)
    code = raises_or_returns.__code__
    assert p.returns[code] == {("ndarray", "float64", (4,)): 1, ("NoneType",): 1}
    assert set(p.arguments) == {code}  # np.pad is Python code, not observed
    assert sys.gettrace() is None
    if sys.version_info >= (3, 12):
        assert all(sys.monitoring.get_tool(t) is None for t in range(6))


def test_summaries_of_deeply_nested_tuples_stop_at_a_depth():
    """A tape nested 5000 deep (a linear tree's) is summarized without recursing past
    MAX_SUMMARY_DEPTH: the inner part is DEEP_TUPLE, the outer levels are looked into."""
    tape = None
    for _ in range(5000):
        tape = (np.zeros(2, np.float32), tape)
    summary = summarize(tape)
    for _ in range(MAX_SUMMARY_DEPTH):
        assert summary[0] == "tuple" and summary[1][0] == ("ndarray", "float32", (2,))
        summary = summary[1][1]
    assert summary == DEEP_TUPLE


# -- deep recursion: a code's frames stop being observed once they go quiet (QUIET_FRAMES) -----

def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


def tak(x, y, z):
    if y < x:
        return tak(tak(x - 1, y, z), tak(y - 1, z, x), tak(z - 1, x, y))
    return z


def counting_instructions(monkeypatch) -> list[int]:
    """The profiler's instruction events from now on, counted (one list item: the count)."""
    count = [0]
    instruction = profiler._Observer.instruction

    def counted(self, frame, reported):
        count[0] += 1
        return instruction(self, frame, reported)

    monkeypatch.setattr(profiler._Observer, "instruction", counted)
    return count


def key_sets(p: Profile) -> dict:
    """What the graph generator reads from a profile: the keys seen per site (runs per side)."""
    return {name: {site: set(seen) for site, seen in getattr(p, name).items()}
            for name in ("branches", "trip_counts", "values", "callees", "returns")} | \
        {"branch_runs": {site: dict(runs) for site, runs in p.branch_runs.items()}}


def profiled_twice(fn, args, quiet, monkeypatch) -> Profile:
    monkeypatch.setattr(profiler, "QUIET_FRAMES", quiet)
    p = Profile()
    for _ in range(2):
        assert run_profiled(fn, args, {}, p) == fn(*args)
    return p


def test_a_deep_recursion_is_observed_in_a_bounded_number_of_instructions(monkeypatch):
    """fib(20) makes 21,891 frames of about 12 instructions: observed until 1000 frames in a
    row taught nothing new, the rest run untraced."""
    count = counting_instructions(monkeypatch)
    p = Profile()
    assert run_profiled(fib, (20,), {}, p) == 6765
    assert count[0] < 15_000 and p.unobserved == {fib.__code__}
    jump = (fib.__code__, _conditional_jump(fib).offset)
    assert set(p.branches[jump]) == {True, False}  # the base case and the recursive case were both seen
    assert set(p.returns[fib.__code__]) == {("int",)}


@pytest.mark.parametrize("fn, args", [(fib, (14,)), (tak, (12, 8, 4))], ids=["fib", "tak"])
def test_a_quiet_recursion_profile_has_the_key_sets_of_a_full_one(fn, args, monkeypatch):
    """Truncated at 30 quiet frames, the profile has what the full one has, in fewer events."""
    count = counting_instructions(monkeypatch)
    full = profiled_twice(fn, args, None, monkeypatch)
    events = count[0]
    quiet = profiled_twice(fn, args, 30, monkeypatch)
    assert key_sets(quiet) == key_sets(full)
    assert quiet.unobserved == {fn.__code__} and not full.unobserved
    assert count[0] - events < events / 4


def count_down_loop(n):
    total = 0
    while n > 0:
        total = total + helper(n)
        n = n - 1
    return total


def helper(n):
    return n if n % 2 else -n


def test_a_long_loop_in_one_frame_is_observed_to_the_end(monkeypatch):
    """Only frames count towards a quiet code: a loop in one frame keeps its trip count; its
    helper called 200 times goes quiet after 10 and its call site is still recorded."""
    p = profiled_twice(count_down_loop, (200,), 10, monkeypatch)
    back_edge = next(i for i in decode(count_down_loop.__code__).instrs
                     if i.is_conditional_jump and i.target < i.offset)
    assert p.trip_count((count_down_loop.__code__, back_edge.offset)) == 200
    assert p.unobserved == {helper.__code__}
    assert any(site[0] is count_down_loop.__code__ and helper.__code__ in callees
               for site, callees in p.callees.items())


def counter(n):
    for i in range(n):
        yield i if i % 3 else -i


def test_a_generator_resumed_after_its_code_went_quiet_runs_unobserved(monkeypatch):
    """Resumes count as frames: the generator's frame, observed at first, is not once its
    code went quiet; the values are Python's."""
    p = profiled_twice(lambda n: sum(counter(n)), (100,), 10, monkeypatch)
    assert counter.__code__ in p.unobserved
    assert sys.gettrace() is None
