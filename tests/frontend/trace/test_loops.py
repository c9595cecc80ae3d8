"""Loops in the graph, relaxed list lengths and ints, trip-count and value guards, each
compiled result compared with the same function run by plain Python."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

import janus
from janus.frontend.trace.loops import UNROLL_LIMIT
from tests.helpers import assert_same, compiled, rand
from tests.helpers.programs import halve

W, U, B = rand(3, 8) * 0.5, rand(8, 8) * 0.3, rand(8)
H0 = np.zeros((2, 8), np.float32)
jit_module = importlib.import_module("janus.frontend.jit")


def rnn(xs, h, W, U, b):
    for x in xs:
        h = np.tanh(x @ W + h @ U + b)
    return h


def seq(n: int, seed: int = 0) -> list[np.ndarray]:
    return [rand(2, 3, seed=seed * 100 + i) for i in range(n)]


def only_version(jf):
    (version,) = jf.versions.values()
    return version


def test_fixed_length_rnn_is_unrolled():
    jf = compiled(rnn, seq(5), H0, W, U, B)
    text = only_version(jf).graph.text
    assert "scf.for" not in text and text.count("linalg.matmul") == 10
    args = (seq(5, seed=1), rand(2, 8), W, U, B)
    assert_same(jf(*args), rnn(*args))
    assert only_version(jf).calls == 1


def test_fixed_length_rnn_above_the_unroll_limit_is_an_scf_for():
    n = UNROLL_LIMIT + 6
    jf = compiled(rnn, seq(n), H0, W, U, B)
    text = only_version(jf).graph.text
    assert "scf.for" in text and text.count("linalg.matmul") == 2  # one body, not n copies
    args = (seq(n, seed=2), rand(2, 8), W, U, B)
    assert_same(jf(*args), rnn(*args))


def test_varying_length_rnn_is_one_scf_for_graph():
    jf = janus.jit(rnn, warmup=1)
    for seed, n in enumerate((5, 7, 3, 9, 12)):
        args = (seq(n, seed), rand(2, 8, seed=seed), W, U, B)
        assert_same(jf(*args), rnn(*args))
    assert jf.compiles == 2  # the first length exactly, then every length
    version = only_version(jf)
    assert "scf.for" in version.graph.text and "tensor<?x2x3xf32>" in version.graph.text
    assert version.graph.text.count("linalg.matmul") == 2 and version.calls == 3
    assert "relaxing (len(xs)) to ?" in janus.explain(jf)
    mixed = [rand(2, 3), rand(2, 3).astype(np.float64)]  # cannot be stacked: exact key, this call only
    for xs in (mixed, [], seq(4, 9)):
        assert_same(jf(xs, H0, W, U, B), rnn(xs, H0, W, U, B))
    assert version.calls == 4 and jf.versions[version.key] is version


def powers(x, W, n):
    for i in range(n):
        x = np.tanh(x @ W) + i * 0.01
    return x, n - 1


def test_range_over_a_varying_int_is_an_scf_for():
    Wp = rand(8, 8) * 0.3
    jf = janus.jit(powers, warmup=1)
    for n in (3, 5, 0, 7, 2):
        assert_same(jf(rand(2, 8, seed=n), Wp, n), powers(rand(2, 8, seed=n), Wp, n))
    assert jf.compiles == 2
    version = only_version(jf)
    assert "scf.for" in version.graph.text and version.calls == 3
    assert "n: int (any value)" in janus.explain(jf)


def running_sum(xs, W):
    total = np.zeros(8, np.float32)  # a NumPy array the trace makes: a graph constant once the loop changes it
    for x in xs:
        total = total + np.tanh(x @ W).sum(0)
    return total


def test_loop_changing_an_array_made_before_it_carries_it():
    jf = janus.jit(running_sum, warmup=1)
    for seed, n in enumerate((5, 7, 3, 9)):
        args = (seq(n, seed), W)
        assert_same(jf(*args), running_sum(*args))
    version = only_version(jf)
    assert "scf.for" in version.graph.text and version.calls == 2


def test_while_with_a_fixed_trip_count_is_unrolled_under_guards_then_becomes_scf_while():
    jf = janus.jit(halve, warmup=2)
    for v in (1.0, 0.9):  # 2 iterations each
        x = np.full(4, v, np.float32)
        assert_same(jf(x), halve(x))
    version = only_version(jf)
    kinds = [kind for _, kind, _ in version.graph.guards]
    assert kinds.count("trip_count") == 2 and "scf.while" not in version.graph.text
    x = np.full(4, 0.95, np.float32)
    assert_same(jf(x), halve(x))
    assert version.calls == 1
    x = np.full(4, 3.0, np.float32)  # 4 iterations: the guard fails, Python answers
    assert_same(jf(x), halve(x))
    assert "(trip_count)" in janus.explain(jf) and "failed" in janus.explain(jf)
    regenerated = only_version(jf)
    assert "scf.while" in regenerated.graph.text
    assert "trip_count" not in [kind for _, kind, _ in regenerated.graph.guards]
    for v in (5.0, 1.0, 40.0):
        x = np.full(4, v, np.float32)
        assert_same(jf(x), halve(x))
    assert regenerated.calls == 3


def shrink(x, W):
    while np.abs(x).max() > 0.05:
        x = np.tanh(x @ W) * 0.5
    return x


def test_while_whose_trip_count_varies_is_an_scf_while():
    Ws = rand(4, 4) * 0.5
    jf = janus.jit(shrink, warmup=2)
    for scale in (0.2, 1.0, 0.5, 0.06, 3.0):  # 2, 4, 4, 1, 4 iterations
        x = rand(2, 4) * scale
        assert_same(jf(x, Ws), shrink(x, Ws))
    version = only_version(jf)
    assert "scf.while" in version.graph.text and jf.compiles == 1 and version.calls == 3


def scale_by(x, s):
    k = float(s.max())
    return x * k, k


def repeat(x, W, t):
    n = int(t.sum())
    for _ in range(n):
        x = np.tanh(x @ W)
    return x


def test_value_guard_fires_when_the_value_changes():
    x, s = rand(3), np.full(2, 2.5, np.float32)
    jf = compiled(scale_by, x, s, warmup=2)
    assert [kind for _, kind, _ in only_version(jf).graph.guards] == ["value"]
    assert_same(jf(rand(3, seed=1), s), scale_by(rand(3, seed=1), s))
    s2 = np.full(2, 3.5, np.float32)
    assert_same(jf(x, s2), scale_by(x, s2))  # guard fails: Python's answer
    assert "(value)" in janus.explain(jf)
    # the float varied: regenerated with it as a graph value (a Python float), no value guard
    assert_same(jf(x, s), scale_by(x, s))
    s3 = np.full(2, -1.25, np.float32)
    assert_same(jf(x, s3), scale_by(x, s3))
    assert not only_version(jf).graph.guards and only_version(jf).calls == 2, janus.explain(jf)


def scale_by_count(x, s):
    k = int(s.max())
    return x * k, k


def test_an_int_that_varied_is_not_speculated_again():
    x, s = rand(3), np.full(2, 2.0, np.float32)
    jf = compiled(scale_by_count, x, s, warmup=2)
    s2 = np.full(2, 3.0, np.float32)
    assert_same(jf(x, s2), scale_by_count(x, s2))  # guard fails: Python's answer
    assert_same(jf(x, s), scale_by_count(x, s))
    report = janus.explain(jf)
    assert "(value)" in report and "took different values when profiled" in report


def test_value_used_as_a_trip_count_is_guarded():
    Wr, t = rand(4, 4) * 0.5, np.array([1.2, 2.1], np.float32)  # int(3.3) == 3
    jf = compiled(repeat, rand(2, 4), Wr, t)
    version = only_version(jf)
    assert version.graph.text.count("linalg.matmul") == 3 and "scf.for" not in version.graph.text
    assert_same(jf(rand(2, 4, seed=1), Wr, t * 1.1), repeat(rand(2, 4, seed=1), Wr, t * 1.1))  # int(3.63) == 3
    assert version.calls == 1
    t4 = np.array([2.0, 2.5], np.float32)
    assert_same(jf(rand(2, 4), Wr, t4), repeat(rand(2, 4), Wr, t4))  # 4 trips: the guard fails
    assert "(value)" in janus.explain(jf)


def test_a_guard_failing_three_times_is_no_longer_speculated(monkeypatch):
    def branchy(x):
        if x.sum() > 0:
            return x * 2.0
        return x - 1.0

    jf = janus.jit(branchy, warmup=1)
    x = np.abs(rand(3)) + 0.1
    assert_same(jf(x), branchy(x))
    # a profile that keeps claiming the branch always went one way: only the failure count stops it
    monkeypatch.setattr(jf.profile, "branch_outcome", lambda site: False)
    for k in range(jit_module.MAX_FAILURES):
        assert_same(jf(-x - k), branchy(-x - k))
    report = janus.explain(jf)
    assert f"failed {jit_module.MAX_FAILURES} times: no longer speculated" in report
    version = only_version(jf)
    assert "scf.if" in version.graph.text and not version.graph.guards
    assert_same(jf(-x), branchy(-x))
    assert version.calls == 1


def counts(xs, h):
    n = 0
    for x in xs:
        h = h + x
        n = n + 1
    return h, n


def collects(xs, h):
    out = []
    for x in xs:
        h = h * 0.5 + x
        out.append(h)
    return out


def breaks(xs, h):
    for x in xs:
        h = h + x
        if h.shape[0] == 2:
            break
    return h


def keeps_last(xs, h):
    for x in xs:
        h = h + x
    return h, x


def grows(xs, h):
    for x in xs:
        h = np.concatenate([h, x])
    return h


@pytest.mark.parametrize("fn, reason", [
    (counts, "changes n (a int)"),
    (collects, "returning a SymList is not supported"),  # a list appended to in the loop, stacked: not returned
    (breaks, "break or return inside a loop in the graph"),
    (keeps_last, "local x is unbound"),
    (grows, "changes type in the loop body"),
])
def test_loop_bodies_the_graph_cannot_carry_keep_exact_lengths(fn, reason):
    jf = janus.jit(fn, warmup=1)
    for n in (3, 4, 3, 4):
        xs = [rand(2, seed=n * 10 + i) for i in range(n)]
        assert_same(jf(xs, rand(2)), fn(xs, rand(2)))
    report = janus.explain(jf)
    assert reason in report and "not possible" in report
    assert jf.compiles == 2 and len(jf.versions) == 2  # one unrolled version per length


def weighted(x, coefs):
    total = x * 0.0
    for i in range(len(coefs)):  # a Python index into a Python list: no body for scf.for
        total = total + x * coefs[i]
    return total


def test_long_static_loop_whose_body_cannot_be_a_region_is_unrolled():
    coefs = [0.5 * i for i in range(UNROLL_LIMIT + 6)]
    jf = compiled(weighted, rand(3), coefs)
    text = only_version(jf).graph.text
    assert "scf.for" not in text and text.count("arith.addf") == UNROLL_LIMIT + 6
    assert_same(jf(rand(3, seed=1), coefs), weighted(rand(3, seed=1), coefs))


def gated(xs, h, W):
    h0 = h
    for x in xs:
        h = np.tanh(x @ W + h)
        if h.sum() > 0:
            h = h * 0.5
    return h, h0


def test_varying_branch_inside_a_loop_in_the_graph_and_aliases_kept_apart():
    Wg = rand(3, 8)
    jf = janus.jit(gated, warmup=1)
    for seed, n in enumerate((4, 6, 5, 8)):
        args = (seq(n, seed), rand(2, 8, seed=seed), Wg)
        assert_same(jf(*args), gated(*args))
    text = only_version(jf).graph.text
    assert "scf.for" in text and "scf.if" in text and jf.compiles == 2


def summary(xs, h, W):
    for x in xs:
        h = np.tanh(x @ W + h)
    return h, np.stack(xs).sum(axis=0), len(xs), len(xs) * 2 - 1


def test_len_and_stack_of_a_relaxed_list():
    Ws = rand(3, 8)
    jf = janus.jit(summary, warmup=1)
    for seed, n in enumerate((2, 5, 3)):
        args = (seq(n, seed), rand(2, 8, seed=seed), Ws)
        assert_same(jf(*args), summary(*args))  # len(xs) comes back as a Python int
    assert jf.compiles == 2 and only_version(jf).calls == 1


def head(x, n):
    return x[:n] * 2.0


def test_int_relaxation_the_graph_cannot_take_keeps_exact_values():
    jf = janus.jit(head, warmup=1)
    for n in (2, 3, 2, 3):
        assert_same(jf(rand(5), n), head(rand(5), n))
    assert "not possible" in janus.explain(jf) and jf.compiles == 2 and len(jf.versions) == 2


def test_profiler_records_while_trip_counts_per_entry_and_stored_scalars():
    from janus.frontend.trace.bytecode import decode
    from janus.frontend.profiler import Profile, run_profiled

    def twice(x, s):
        k = float(s.max())
        for _ in range(2):
            y = x
            while y.sum() > 1.0:
                y = y * 0.5
        return y * k

    p = Profile()
    for v in (1.0, 3.0):  # 2 then 4 iterations, each loop entered twice per run
        run_profiled(twice, (np.full(4, v, np.float32), np.full(2, 2.5, np.float32)), {}, p)
    bc = decode(twice.__code__)
    back = next(i for i in bc.instrs if i.opname == "POP_JUMP_BACKWARD_IF_TRUE")
    assert p.trip_counts[(bc.code, back.offset)] == {2: 2, 4: 2} and p.trip_count((bc.code, back.offset)) is None
    store = next(i for i in bc.instrs if i.opname == "STORE_FAST" and i.argval == "k")
    assert p.values[(bc.code, store.offset)] == {(float, 2.5): 2}
