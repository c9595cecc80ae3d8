"""Recursion elimination end to end: janus modules with recursive ``janus.invoke`` go
through the ``janus-to-iree`` pipeline, are compiled by IREE and run through
``janus.runtime``; Python and NumPy are the oracle."""

from __future__ import annotations


import numpy as np
import pytest

from janus.ir import ir, parse_module
from janus.passes import run_pipeline
from janus.runtime import CompiledModule, GuardFailure, lower
from tests.helpers.trees import make_tree_arrays

from tests.helpers import MODULES

# TreeRNN sizes fixed by tests/modules/tree_rnn.mlir.
VOCAB, HIDDEN = 32, 16


def parse(name: str) -> ir.Module:
    return parse_module((MODULES / f"{name}.mlir").read_text())


def load(name: str, pipeline: str | None = None) -> CompiledModule:
    """The module compiled for the CPU, through its full pipeline (by default the target's)."""
    return CompiledModule.from_mlir((MODULES / f"{name}.mlir").read_text(), target="cpu", pipeline=pipeline)


@pytest.fixture(scope="module")
def fib():
    return load("fib")["fib"]


@pytest.fixture(scope="module")
def ackermann():
    return load("ackermann")["ackermann"]


@pytest.fixture(scope="module")
def tak():
    return load("tak")["tak"]


@pytest.fixture(scope="module")
def even_odd():
    return load("even_odd")


@pytest.fixture(scope="module")
def tree_rnn():
    return load("tree_rnn")["tree_rnn"]


#: fib with a stack of 21 entries: the outermost frame's id plus 10 frames of 2 entries.
SMALL_STACK = 21


@pytest.fixture(scope="module")
def small_stack_fib():
    return load("fib", f"builtin.module(janus-to-iree{{max-stack-entries={SMALL_STACK}}})")["fib"]


def py_fib(n: int) -> int:
    return 1 if n < 2 else py_fib(n - 1) + py_fib(n - 2)


def py_ackermann(m: int, n: int) -> int:
    if m == 0:
        return n + 1
    return py_ackermann(m - 1, 1 if n == 0 else py_ackermann(m, n - 1))


def py_tak(x: int, y: int, z: int) -> int:
    return py_tak(py_tak(x - 1, y, z), py_tak(y - 1, z, x), py_tak(z - 1, x, y)) if y < x else z


def test_fib_20(fib):
    assert fib(20) == 10946


@pytest.mark.parametrize("n", [0, 1, 2, 3, 9, 16])
def test_fib_matches_python(fib, n):
    assert fib(n) == py_fib(n)


def test_ackermann_2_3(ackermann):
    assert ackermann(2, 3) == 9


@pytest.mark.parametrize("m, n", [(0, 0), (0, 5), (1, 0), (1, 4), (2, 0), (3, 3)])
def test_ackermann_matches_python(ackermann, m, n):
    assert ackermann(m, n) == py_ackermann(m, n)


def test_tak_18_12_6(tak):
    assert tak(18, 12, 6) == 7


@pytest.mark.parametrize("x, y, z", [(1, 2, 3), (6, 3, 1), (10, 5, 0), (12, 8, 4)])
def test_tak_matches_python(tak, x, y, z):
    assert tak(x, y, z) == py_tak(x, y, z)


@pytest.mark.parametrize("n", [0, 1, 2, 7, 10, 101, 5000])
def test_even_odd(even_odd, n):
    assert bool(even_odd["is_even"](n)) == (n % 2 == 0)
    assert bool(even_odd["is_odd"](n)) == (n % 2 == 1)


def test_default_limit_stops_runaway_depth(even_odd):
    """Two million frames exceed the default limit: a guard failure, not a crash."""
    with pytest.raises(GuardFailure) as failure:
        even_odd["is_even"](2_000_000)
    assert failure.value.kind == "stack_depth"
    assert even_odd["is_odd"](9) == 1


def test_stack_limit_is_exact_and_recoverable(small_stack_fib):
    """fib(12) needs 11 frames (23 entries), fib(11) needs 10 (21 entries)."""
    with pytest.raises(GuardFailure) as failure:
        small_stack_fib(12)
    assert failure.value.kind == "stack_depth"
    assert small_stack_fib(11) == py_fib(11)


def test_check_iree_ready_rejects_a_cycle_before_compiling():
    module = parse("fib")
    with pytest.raises(ir.MLIRError) as failure:
        run_pipeline(module, "builtin.module(janus-check-iree-ready)")
    messages = " ".join(d.message for d in failure.value.error_diagnostics)
    assert "call graph has a cycle (@fib)" in messages
    assert "run janus-eliminate-recursion first" in messages


# -- scalar recursion in one dispatch (janus-to-iree-cpu) -------------------------------

FACT = """
func.func @fact(%n: i64) -> i64 {
  %c1 = arith.constant 1 : i64
  %c0 = arith.constant 0 : i64
  %base = arith.cmpi slt, %n, %c1 : i64
  %r = scf.if %base -> (i64) {
    scf.yield %c1 : i64
  } else {
    %n1 = arith.subi %n, %c1 : i64
    %f = "janus.invoke"(%n1) {callee = @fact} : (i64) -> i64
    %p = arith.muli %n, %f : i64
    %ok = arith.cmpi sge, %p, %c0 : i64
    "janus.guard"(%ok) {id = 7, kind = "type", source = "m.py:4"} : (i1) -> ()
    scf.yield %p : i64
  }
  return %r : i64
}
"""


def test_cpu_pipeline_runs_scalar_recursion_in_a_dispatch_and_keeps_the_host_machine():
    text = (MODULES / "fib.mlir").read_text()
    device = str(lower(text, "janus-to-iree-cpu"))
    assert "scf.index_switch" in device and "linalg.generic" in device
    assert "@fib.state_machine.host" in device and "util.list.create" in device
    portable = str(lower(text, "janus-to-iree"))
    assert "linalg.generic" not in portable and "@fib.state_machine.host" not in portable


def test_guard_failing_inside_the_dispatch_is_the_guard_that_fails():
    """21! leaves int64 (the product turns negative): guard 7 fails after the dispatch."""
    fact = CompiledModule.from_mlir(FACT, target="cpu")["fact"]
    assert fact(20) == 2432902008176640000
    with pytest.raises(GuardFailure) as failure:
        fact(21)
    assert (failure.value.guard_id, failure.value.kind, failure.value.source) == (7, "type", "m.py:4")
    assert fact(5) == 120  # the module is still usable


def test_recursion_too_deep_for_the_dispatch_stack_is_redone_by_the_host_machine():
    """With 8 in-dispatch entries fib(4) fits (3 frames) and fib(12) does not: the host
    machine gives the answer; a dispatch left with a full stack would return 0."""
    text, pipeline = (MODULES / "fib.mlir").read_text(), "janus-to-iree-cpu{dispatch-stack-entries=8}"
    fib_small = CompiledModule.from_mlir(text, target="cpu", pipeline=pipeline)["fib"]
    assert "tensor<8xi64>" in str(lower(text, pipeline))
    assert [fib_small(n) for n in (4, 12, 20)] == [py_fib(4), py_fib(12), py_fib(20)]


SUM_TO = """
func.func @sum_to(%n: i64, %acc: i64) -> i64 {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %done = arith.cmpi eq, %n, %c0 : i64
  %r = scf.if %done -> (i64) {
    scf.yield %acc : i64
  } else {
    %n1 = arith.subi %n, %c1 : i64
    %a1 = arith.addi %acc, %n : i64
    %s = "janus.invoke"(%n1, %a1) {callee = @sum_to} : (i64, i64) -> i64
    scf.yield %s : i64
  }
  return %r : i64
}
"""


@pytest.mark.parametrize("pipeline", ["janus-to-iree{max-stack-entries=4}", "janus-to-iree-cpu{max-stack-entries=4}"])
def test_tail_calls_grow_no_stack(pipeline):
    """sum_to's only recursive call is in tail position: 100000 activations fit in a
    stack of 4 entries, on the host machine and in the dispatch."""
    sum_to = CompiledModule.from_mlir(SUM_TO, target="cpu", pipeline=f"builtin.module({pipeline})")["sum_to"]
    assert sum_to(100_000, 7) == 7 + 100_000 * 100_001 // 2
    assert sum_to(0, 3) == 3


# -- index arrays read on the host (janus-host-index-arrays) ------------------------------

WALK = """
func.func @walk(%t: tensor<?xi64>, %i: index) -> i64 {
  %c0 = arith.constant 0 : index
  %stop = arith.cmpi eq, %i, %c0 : index
  %r = scf.if %stop -> (i64) {
    %v = tensor.extract %t[%c0] : tensor<?xi64>
    scf.yield %v : i64
  } else {
    %v = tensor.extract %t[%i] : tensor<?xi64>
    %j = arith.index_cast %v : i64 to index
    %n = "janus.invoke"(%t, %j) {callee = @walk} : (tensor<?xi64>, index) -> i64
    scf.yield %n : i64
  }
  return %r : i64
}
"""


def test_index_arrays_become_buffers_the_host_reads():
    """Follow next[i] until 0: the array is a !util.buffer; NumPy int64 arrays go in."""
    walk = CompiledModule.from_mlir(WALK, target="cpu")["walk"]
    assert walk._info.inputs[0].text == "!util.buffer"
    chain = np.array([42, 3, 0, 5, 7, 2, 4, 1], np.int64)  # 6 -> 4 -> 7 -> 1 -> 3 -> 5 -> 2 -> 0
    assert walk(chain, 6) == 42
    with pytest.raises(TypeError, match="1-D int64 NumPy array"):
        walk(chain.astype(np.int32), 6)


# -- TreeRNN over a tree encoded as index arrays --------------------------------------


def tree_rnn_reference(i, children, is_leaf, word, emb, w, b):
    if is_leaf[i]:
        return np.tanh(emb[word[i]][None, :])
    left = tree_rnn_reference(children[i, 0], children, is_leaf, word, emb, w, b)
    right = tree_rnn_reference(children[i, 1], children, is_leaf, word, emb, w, b)
    return np.tanh(np.concatenate([left, right], axis=1) @ w + b)


@pytest.fixture(scope="module")
def weights():
    rng = np.random.default_rng(7)
    emb = rng.standard_normal((VOCAB, HIDDEN)).astype(np.float32)
    w = (rng.standard_normal((2 * HIDDEN, HIDDEN)) / np.sqrt(HIDDEN)).astype(np.float32)
    b = (0.1 * rng.standard_normal((1, HIDDEN))).astype(np.float32)
    return emb, w, b


@pytest.mark.parametrize("leaves", [16, 31, 48])
@pytest.mark.parametrize("shape", ["balanced", "moderate", "linear"])
def test_tree_rnn_matches_numpy(tree_rnn, weights, shape, leaves):
    root, children, is_leaf, word = make_tree_arrays(shape, leaves, np.random.default_rng(leaves))
    assert is_leaf.sum() == leaves
    expected = tree_rnn_reference(root, children, is_leaf, word, *weights)
    got = np.asarray(tree_rnn(root, children, is_leaf, word, *weights))
    assert got.shape == (1, HIDDEN)
    # atol: float32 rounding of elements near zero (IREE sums and approximates tanh in
    # another order than NumPy) is ~2e-7 absolute.
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)
