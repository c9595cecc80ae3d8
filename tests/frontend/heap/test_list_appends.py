"""``list.append`` onto a list on the heap (``self.X.append(X)``), against plain Python.

The append is deferred like a heap write: committed after the compiled segment (all or
nothing, in order), onto that very list, as the object Python appends (the caller's array
for an argument, a fresh array of the result otherwise, a Python float for a Python float),
so the array work around it stays compiled: in the function body, in a helper of another
module, in a list comprehension, in a loop body. Each program runs plain and jitted in
lockstep on equal fresh state: results, printed output and the lists (contents, types and
identity) must agree call by call.
"""

from __future__ import annotations

import numpy as np
import pytest

import janus
from janus.frontend.jit import JitFunction
from tests.helpers import assert_same
from tests.helpers.peer_programs import numpyml_layers
from tests.helpers.peer_state import assert_compiled

CALLS = 4


@pytest.fixture(autouse=True)
def no_cost_rule(monkeypatch):
    """Split versions stay compiled (these programs are tiny: Python would win the timing)."""
    monkeypatch.setattr(JitFunction, "COST_CALLS", 0)


class Log:
    def __init__(self):
        self.inputs, self.values, self.losses = [], [], []


def in_the_body(state, x):
    y = np.tanh(x) * 2.0
    state.inputs.append(x)  # the caller's very array
    state.values.append(y)
    state.losses.append(float(y.sum()))  # a Python float
    last = state.values[-1] * 2.0  # reads after the append see it
    return last * y


def in_a_comprehension(state, x):
    return [state.values.append(x * k) for k in range(3)], x.sum()


def in_a_loop(state, x, steps):
    h = x
    for _ in range(steps):
        h = np.tanh(h * 0.5 + 1.0)
        state.values.append(h)
    return h


def printing(state, x):
    y = x @ x.T
    state.values.append(y)
    print("appended", len(state.values), y.sum())
    return y + 1.0


def raising(state, x):
    y = x * 3.0
    state.values.append(y)
    if y.sum() > 50.0:
        raise ValueError("too large")  # the append before it stays done, as in Python
    return y


class Agent:
    """REINFORCE's ``act``: the observation logged, then an action drawn from the Generator."""

    def __init__(self):
        self.W = np.arange(12.0).reshape(3, 4) / 10.0
        self.rng = np.random.default_rng(0)
        self.observations, self.actions = [], []

    def act(self, x):
        self.observations.append(x)
        p = np.exp(x @ self.W)
        action = self.rng.choice(4, p=p / p.sum())
        self.actions.append(action)
        return action


def acting(agent, x):
    h = np.tanh(x) * 2.0
    return h.sum() + agent.act(h)


def run_in_lockstep(fn, calls, capsys=None):
    """``fn`` plain and jitted on two fresh ``Log``s, call by call (``calls``: argument tuples
    after the state): results or exceptions, printed text and the lists agree; the lists stay
    the same objects; the jitted function."""
    jf = janus.jit(fn, warmup=1, fallback="silent")
    plain, jitted = Log(), Log()
    lists = [jitted.inputs, jitted.values, jitted.losses]
    for args in calls:
        outcomes = []
        for f, state in ((fn, plain), (jf, jitted)):
            try:
                outcomes.append(f(state, *args))
            except ValueError as e:
                outcomes.append(("raised", str(e)))
            outcomes.append(capsys.readouterr().out if capsys is not None else "")
        assert outcomes[1] == outcomes[3]
        assert_same(outcomes[2], outcomes[0])
        for name in ("inputs", "values", "losses"):
            assert_same(getattr(jitted, name), getattr(plain, name))
        assert [jitted.inputs, jitted.values, jitted.losses] == lists and all(a is b for a, b in zip(
            [jitted.inputs, jitted.values, jitted.losses], lists))
    return jf, plain, jitted


def xs(n: int = CALLS, shape=(2, 3)):
    return [(np.arange(6.0).reshape(shape) / 4.0 + i,) for i in range(n)]


def test_appends_in_the_body_commit_onto_the_same_lists_as_python_appends():
    calls = xs()
    jf, plain, jitted = run_in_lockstep(in_the_body, calls)
    assert_compiled(jf)
    (version,) = jf.versions.values()
    assert version.calls == CALLS - 1  # the lists grow every call: their length is not assumed
    assert all(a is args[0] for a, args in zip(jitted.inputs, calls))  # the caller's arrays themselves
    assert all(type(v) is float for v in jitted.losses)
    first = jitted.values[0].copy()
    jf(jitted, calls[0][0] + 7.0)
    np.testing.assert_array_equal(jitted.values[0], first)  # a result array of its own, not a reused buffer


def test_appends_in_a_comprehension_and_a_loop_body_keep_their_order():
    jf, _, _ = run_in_lockstep(in_a_comprehension, xs())
    assert_compiled(jf)
    jf, _, jitted = run_in_lockstep(in_a_loop, [(x, 3) for (x,) in xs()])
    assert_compiled(jf)
    assert len(jitted.values) == 3 * CALLS


def test_appends_in_a_helper_of_another_module_compile_the_forward():
    """numpy-ml's ``FullyConnected.forward`` keeps its input and pre-activation in lists."""
    jf = janus.jit(numpyml_layers.Sequential.forward, warmup=1)
    plain, jitted = numpyml_layers.Sequential([3, 5, 2]), numpyml_layers.Sequential([3, 5, 2])
    before = [(layer.X, layer.derived_variables["Z"]) for layer in jitted.layers]
    for (x,) in xs(shape=(2, 3)):
        assert_same(jf(jitted, x), plain.forward(x))
        for got, want in zip(jitted.layers, plain.layers):
            assert_same(got.X, want.X)
            assert_same(got.derived_variables, want.derived_variables)
    assert [(layer.X, layer.derived_variables["Z"]) for layer in jitted.layers] == before
    assert jitted.layers[0].X[-1] is x  # the argument itself, as Python appends it
    assert_compiled(jf)


def test_printed_output_around_an_append_is_python_s(capsys):
    jf, _, _ = run_in_lockstep(printing, xs(), capsys)
    assert any(v.calls for v in jf.versions.values()), janus.explain(jf)
    assert "python: print at" in janus.explain(jf) and "list.append" not in janus.explain(jf)  # the print's boundary only


def test_a_raise_after_an_append_leaves_one_append_as_python_does():
    """The guard on the raise fails: the call runs in Python from the segment's start, and
    the segment committed nothing, so the list holds Python's one append."""
    calls = [(np.full((2, 2), v),) for v in (1.0, 2.0, 10.0, 1.0, 10.0)]
    jf, plain, jitted = run_in_lockstep(raising, calls)
    assert len(jitted.values) == len(plain.values) == len(calls)
    assert sum(v.calls for v in jf.versions.values()) >= 2, janus.explain(jf)
    assert_compiled(jf)


def test_a_callee_appending_before_a_host_call_runs_in_python_at_its_call():
    """``act``'s trace appends, then meets the Generator: its appends are taken back and the
    call of ``act`` is the boundary (Python appends); the lists may grow: one version."""
    jf = janus.jit(acting, warmup=1, fallback="silent")
    plain, jitted = Agent(), Agent()
    for i in range(CALLS + 2):
        x = np.arange(3.0) / 3.0 + i
        assert_same(jf(jitted, x), acting(plain, x))
        assert_same(jitted.observations, plain.observations)
        assert jitted.actions == plain.actions
        assert jitted.rng.bit_generator.state == plain.rng.bit_generator.state
    (version,) = jf.versions.values()
    assert version.calls == CALLS + 1 and "python: Agent.act at" in janus.explain(jf), janus.explain(jf)
