"""The bytecode decoder and the profiler's observations."""

from __future__ import annotations

import sys

import numpy as np
import pytest

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
