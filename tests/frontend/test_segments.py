"""Co-execution (``segments``): what the tracer cannot convert runs in Python between
compiled segments. Each program runs plain and jitted in lockstep, on equal fresh state:
results, printed output, heap state, logs and Generator streams must agree call by call,
and the array work must have run compiled (segment calls counted along the chain).

Data are small integers in float64, so compiled and NumPy arithmetic agree exactly and
printed values compare as text.
"""

from __future__ import annotations

import contextlib
import json
import logging
import traceback
import struct
import warnings
import zlib

import numpy as np
import pytest

import janus
from janus.frontend.jit import JitFunction
from janus.frontend.segments import CallCost
from tests.helpers import assert_same, returns
from tests.helpers.coexec import lockstep, segment_calls

CALLS = 5


@pytest.fixture(autouse=True)
def no_cost_rule(monkeypatch):
    """Split versions stay compiled: the cost rule (timed, see its own tests) would run
    these tiny programs in Python, where they are faster."""
    monkeypatch.setattr(JitFunction, "COST_CALLS", 0)


# ---- printing, host randomness, opaque library calls ---------------------------------------

def printed(x):
    y = x * 2.0 + 1.0
    print("sum", y.sum())
    z = y @ y
    print("dot", z, y.max())
    return z - y


def formatted(x):
    y = x * 2.0 + 1.0
    print(f"total {y.sum():.2f}, last {y[-1]!r}, rows {x.shape[0]}")  # the text is made in Python
    return y * y


def test_print_of_computed_values_splits_between_compiled_segments(capsys):
    jf = lockstep(printed, [None, None], [lambda s, i=i: (np.arange(4.0) + i,) for i in range(CALLS)], capsys)
    assert all(segment_calls(jf)), janus.explain(jf)
    assert len(segment_calls(jf)) == 3  # two prints: three segments
    jf = lockstep(formatted, [None, None], [lambda s, i=i: (np.arange(4.0) + i,) for i in range(CALLS)], capsys)
    assert segment_calls(jf) == [CALLS - 1, CALLS - 2], janus.explain(jf)


class Agent:
    def __init__(self):
        self.rng = np.random.default_rng(7)
        self.W = np.arange(9.0).reshape(3, 3)
        self.log = []
        self.history = {}

    def act(self, x):
        h = x @ self.W
        noise = self.rng.integers(0, 5, size=3)
        y = h + noise
        self.log.append(float(y.sum()))
        self.history.update(last=float(y[0]))
        self.W = self.W + 1.0
        return y * 2.0


def test_generator_in_an_attribute_and_logs_on_the_heap(capsys):
    agents = [Agent(), Agent()]
    jf = lockstep(Agent.act, agents, [lambda a, i=i: (a, np.arange(3.0) + i) for i in range(2 * CALLS)], capsys)
    plain, jitted = agents
    assert jitted.log == plain.log and jitted.history == plain.history
    assert_same(jitted.W, plain.W)
    assert jitted.rng.bit_generator.state == plain.rng.bit_generator.state
    assert all(segment_calls(jf)), janus.explain(jf)


class Sampler:
    """The act of a policy-gradient agent: array work, then only host work (a draw, ``int``, logs)."""

    def __init__(self):
        self.rng = np.random.default_rng(5)
        self.W = np.arange(6.0).reshape(3, 2) / 10.0
        self.inputs, self.choices = [], []

    def act(self, x):
        p = np.tanh(x @ self.W)
        choice = int(self.rng.random() < p[1])
        self.inputs.append(x)
        self.choices.append(choice)
        return choice

    def replay(self):
        xs = np.stack(self.inputs)  # first: no array work before it
        return (xs @ self.W).sum(axis=0)


LOGGER = logging.getLogger("janus.tests.segments")


def logged(x):
    y = x * 2.0 + 1.0
    LOGGER.info("sum %.1f", y.sum())  # logging's Python code runs in Python, on the computed value
    z = y @ y
    LOGGER.warning("dot %s, max %s", z, y.max())
    return z - y


def test_logging_of_computed_values(capsys):
    messages = []
    handler = logging.Handler()
    handler.emit = lambda record: messages.append(record.getMessage())
    LOGGER.addHandler(handler)
    LOGGER.setLevel(logging.INFO)
    try:
        jf = lockstep(logged, [None, None], [lambda s, i=i: (np.arange(3.0) + i,) for i in range(CALLS)], capsys)
    finally:
        LOGGER.removeHandler(handler)
    per_call = [messages[i:i + 4] for i in range(0, len(messages), 4)]
    assert len(per_call) == CALLS and all(call[:2] == call[2:] for call in per_call), messages
    assert all(segment_calls(jf)), janus.explain(jf)


def test_the_scalar_rest_of_a_call_runs_in_python_without_launches(capsys):
    samplers = [Sampler(), Sampler()]
    jf = lockstep(Sampler.act, samplers, [lambda s, i=i: (s, np.arange(3.0) - i) for i in range(2 * CALLS)], capsys)
    plain, jitted = samplers
    assert jitted.choices == plain.choices
    assert all(np.array_equal(a, b) for a, b in zip(jitted.inputs, plain.inputs))
    assert jitted.rng.bit_generator.state == plain.rng.bit_generator.state
    assert segment_calls(jf)[0] >= CALLS and sum(segment_calls(jf)[1:]) == 0, janus.explain(jf)
    assert all(f.rest_in_python() for f in jf.resumes.values()), janus.explain(jf)
    replay = lockstep(Sampler.replay, samplers, [lambda s: (s,)] * CALLS, capsys)
    (first,) = replay.versions.values()
    assert first.graph.idle and first.calls, janus.explain(replay)  # nothing to compute before np.stack: no launch
    assert segment_calls(replay)[1], janus.explain(replay)


def test_the_cost_rule_keeps_the_faster_of_the_split_version_and_plain_python(capsys, monkeypatch):
    """Timed calls each way, then one decision; the timed plain calls are calls of the
    program like any other (same values, draws and logs)."""
    monkeypatch.setattr(JitFunction, "COST_CALLS", 3)
    samplers = [Sampler(), Sampler()]
    jf = lockstep(Sampler.act, samplers, [lambda s, i=i: (s, np.arange(3.0) - i) for i in range(4 * CALLS)], capsys)
    plain, jitted = samplers
    assert jitted.choices == plain.choices and jitted.rng.bit_generator.state == plain.rng.bit_generator.state
    (decision,) = [e for e in jf.events if e.startswith("cost rule: ")]
    kept = decision.endswith("the split version stays")
    assert kept == bool(jf.versions) == (not jf.fallbacks), janus.explain(jf)
    assert all(v.cost is None for v in jf.versions.values())
    assert kept or list(jf.fallbacks.values())[0].startswith("faster in Python: plain Python takes")


def test_call_cost_compares_the_best_times():
    cost = CallCost(2)
    cost.record(5e-5, steady=True)
    assert not cost.wants_plain()
    cost.record(3e-5, steady=True)
    assert cost.wants_plain() and not cost.settled()
    cost.plain += [4e-5, 3.5e-5]
    assert cost.settled() and not cost.wants_plain() and not cost.python_wins()
    cost.plain.append(1e-5)
    assert cost.python_wins() and "10.0 µs per call" in cost.describe() and "30.0 µs" in cost.describe()
    warming = CallCost(2)  # calls that keep warming resume functions up count after twice as many
    for seconds in (9e-5, 8e-5, 7e-5):
        warming.record(seconds, steady=False)
    assert not warming.wants_plain()
    warming.record(6e-5, steady=False)
    assert warming.wants_plain() and warming.best_compiled() == 6e-5


rng = np.random.default_rng(3)


def drawn_from_global(x):
    y = x * 3.0
    u = rng.integers(0, 10)
    return y + u


def drawn_from_argument(x, gen):
    scale = gen.random()
    return x * scale + np.float64(gen.integers(0, 3))


def test_generator_as_a_global_and_as_an_argument(capsys):
    states = [np.random.default_rng(3), np.random.default_rng(3)]

    def global_args(state):
        global rng
        rng = state
        return (np.arange(2.0),)

    jf = lockstep(drawn_from_global, states, [global_args] * CALLS, capsys)
    assert states[0].bit_generator.state == states[1].bit_generator.state
    assert all(segment_calls(jf)), janus.explain(jf)
    states = [np.random.default_rng(4), np.random.default_rng(4)]
    jf = lockstep(drawn_from_argument, states, [lambda g: (np.arange(3.0), g)] * (CALLS + 2), capsys)
    assert states[0].bit_generator.state == states[1].bit_generator.state
    assert segment_calls(jf)[0], janus.explain(jf)  # the draws' results: a relaxed float, then an int by value


def checksummed(x):
    y = x * 2.0
    checksum = zlib.crc32(y.tobytes())  # two Python operations in a row: the bytes pass between them
    return y + checksum % 7


def serialized(x):
    y = x + 1.0
    text = json.dumps({"first": float(y[0])})  # json's encoder is traced, fails, and runs in Python whole
    return y * len(text)


def packed(x):
    y = x * 3.0
    size = struct.calcsize("<" + "d" * int(y.shape[0]))
    return y + size


def test_zlib_json_and_struct_calls_run_in_python(capsys):
    for fn in (checksummed, serialized, packed):
        jf = lockstep(fn, [None, None], [lambda s, i=i: (np.arange(3.0) + i % 2,) for i in range(2 * CALLS)], capsys)
        assert all(segment_calls(jf)), janus.explain(jf)


def logged_locally(x):
    log = []
    for k in range(2):
        y = x * k
        log.append(float(y.sum()))  # the list of the trace is rebuilt at each boundary
    return x + 1.0, log


def test_a_local_list_used_as_a_log(capsys):
    jf = lockstep(logged_locally, [None, None], [lambda s, i=i: (np.arange(2.0) + i,) for i in range(CALLS + 2)], capsys)
    assert segment_calls(jf)[0] and sum(segment_calls(jf)) > CALLS, janus.explain(jf)


def scaled_rows(m):
    for row in m:
        yield row * 2.0


def generator_driven(m):
    rows = list(scaled_rows(m))  # a generator consumed whole is run eagerly in the trace
    print("rows", len(rows), rows[0].sum())
    return rows[0] + rows[-1]


def test_a_generator_driving_array_work(capsys):
    jf = lockstep(generator_driven, [None, None], [lambda s, i=i: (np.arange(6.0).reshape(3, 2) + i,) for i in range(CALLS)],
                  capsys)
    assert all(segment_calls(jf)), janus.explain(jf)


def noisy_rows(m):
    for row in m:
        print("yield", row.sum())  # Python code between the loop's steps: a generator the trace cannot run
        yield row * 2.0


def driven_step_by_step(m, weights):
    y = m[0] * 0.0
    for row in noisy_rows(m):  # each next() runs in Python, the body compiled
        y = y * 0.5 + row
    for k, (row, w) in enumerate(zip(noisy_rows(m), weights)):
        y = y + row * w + k
    return y @ y


def test_a_lazy_generator_drives_compiled_loop_bodies(capsys):
    calls = [(np.arange(2.0 * n).reshape(n, 2) + i, [1.0, 2.0, 3.0]) for i, n in enumerate([3, 3, 2, 3, 1, 3, 3])]
    jf = lockstep(driven_step_by_step, [None, None], [lambda s, c=c: c for c in calls], capsys)
    assert sum(segment_calls(jf)[2:]) >= len(calls), janus.explain(jf)  # loop bodies ran compiled
    assert "the next item of a generator" in janus.explain(jf) and "when it has no next item" in janus.explain(jf)


# ---- exceptions and guard failures after the first segment ---------------------------------

class Counter:
    def __init__(self):
        self.count = np.zeros(2)


def check_positive(v):
    if float(v) < 0:
        raise ValueError(f"negative total {float(v)}")
    return v


def counted(c, x):
    c.count = c.count + 1.0
    total = check_positive(x.sum())  # the callee runs in Python (float of an array value)
    return x * total


def test_an_exception_raised_by_the_python_part(capsys):
    counters = [Counter(), Counter()]
    inputs = [1.0, 2.0, 1.0, -1.0, 3.0, -2.0]
    jf = lockstep(counted, counters, [lambda c, v=v: (c, np.full(2, v)) for v in inputs], capsys)
    assert_same(counters[1].count, counters[0].count)  # the first segment's write happened before the raise
    assert segment_calls(jf)[0] >= 3, janus.explain(jf)
    tracebacks = []
    for f in (counted, jf):
        with pytest.raises(ValueError) as raised:
            f(Counter(), np.full(2, -1.0))
        tracebacks.append([(t.name, t.lineno) for t in traceback.extract_tb(raised.value.__traceback__)
                           if t.filename == __file__])
    plain, jitted = tracebacks
    assert len(plain) >= 2 and jitted[-2:] == plain[-2:]  # the line in counted calling the helper, then the raise in it


def three_segments(x):
    y = x * 2.0
    print("first", y.sum())
    if y.sum() > 0:  # speculated in segment 2
        z = y + 1.0
    else:
        z = y - 1.0
    print("second", z.sum())
    if z.max() > 10:  # speculated in segment 3
        return z * 2.0
    return z / 2.0


def test_guard_failures_in_the_second_and_third_segments(capsys):
    values = [1.0] * 4 + [-1.0, 1.0, 1.0, 9.0, 1.0, -1.0]
    jf = lockstep(three_segments, [None, None], [lambda s, v=v: (np.full(2, v),) for v in values], capsys)
    second, third = jf.resumes.values()  # made in this order: after the first print, after the second
    for segment in (second, third):
        assert any(" failed for " in e for e in segment.events), segment.events  # its guard failed: Python from there
    assert all(segment_calls(jf)), janus.explain(jf)


# ---- loops, callees, gradients -------------------------------------------------------------

def looped(h):
    for i in range(3):
        h = h * 2.0 + i
        print(i, h.sum())
    return h


def test_a_split_inside_an_unrolled_loop(capsys):
    """Each iteration's print runs in Python; the array work around it runs compiled. The
    steps left (``range(1, 3)``) go on as a range iterator, an object each resume function
    takes by reference: each step is a boundary (``next``), and the resume functions' versions
    do not count the steps left, so a loop of any length needs the same few."""
    jf = lockstep(looped, [None, None], [lambda s: (np.ones(2),)] * CALLS, capsys)
    assert "python: next at" in janus.explain(jf) and "range_iterator object" in janus.explain(jf), janus.explain(jf)
    calls = segment_calls(jf)
    assert calls[0] == CALLS - 1 and sum(calls[1:]) >= CALLS - 1, janus.explain(jf)


def noisy_helper(v):
    print("helper sees", v.sum())
    return v * 2.0


def calls_a_helper(x):
    y = x + 1.0
    z = noisy_helper(y)
    return z @ y


def test_a_callee_that_cannot_be_converted_runs_in_python(capsys):
    jf = lockstep(calls_a_helper, [None, None], [lambda s, i=i: (np.arange(3.0) + i,) for i in range(CALLS)], capsys)
    assert all(segment_calls(jf)), janus.explain(jf)
    assert "noisy_helper" in janus.explain(jf)


def printed_loss(w, x):
    print("loss input", x.sum())
    return np.sum((x @ w) ** 2)


loss_grad = janus.grad(printed_loss)


def train_step(w, x):
    h = x * 2.0
    g = loss_grad(w, h)
    return w - 0.01 * g


def test_a_split_inside_janus_grad_runs_the_gradient_in_python(capsys):
    """The gradient function's trace cannot split (its own function): the call of it is the
    Python operation, the step around it stays compiled."""
    w = np.arange(6.0).reshape(3, 2)
    jf = lockstep(train_step, [None, None], [lambda s, i=i: (w, np.arange(3.0) + i) for i in range(CALLS)], capsys)
    assert all(segment_calls(jf)), janus.explain(jf)


# ---- visibility, and where no split is made ------------------------------------------------

def test_explain_lists_segments_and_a_split_warns_once_per_site(capsys):
    jf = janus.jit(printed, warmup=1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for i in range(CALLS):
            jf(np.arange(4.0) + i)
    splits = [w for w in caught if issubclass(w.category, janus.SplitWarning)]
    assert len(splits) == 2 and all("janus.explain" in str(w.message) for w in splits)
    report = janus.explain(jf).splitlines()
    python_lines = [line.strip() for line in report if line.strip().startswith("python: print at")]
    assert len(python_lines) == 2 and all(__file__ in line for line in python_lines)
    assert sum(line.strip().startswith("compiled") for line in report) >= 3
    assert any("s in Python" in line for line in report)


def tolerant(c, x):
    c.count = c.count + 1.0
    y = x * 2.0
    try:
        total = check_positive(y.sum())  # raises for a negative sum: caught below
        print("ok", total)
        z = y * total
    except ValueError as e:
        print("caught", e)
        z = y - 1.0
    finally:
        c.count = c.count * 2.0
    return z @ y


def test_a_split_inside_a_try_block_raises_into_its_handler(capsys):
    counters = [Counter(), Counter()]
    inputs = [1.0, 2.0, -1.0, 3.0, -2.0, 1.0, 4.0]
    jf = lockstep(tolerant, counters, [lambda c, v=v: (c, np.full(2, v)) for v in inputs], capsys)
    assert_same(counters[1].count, counters[0].count)
    assert all(segment_calls(jf)[:3]), janus.explain(jf)  # the try block's segments ran compiled


def strict(x):
    y = x * 2.0
    try:
        total = check_positive(y.sum())
    except KeyError:  # does not catch the ValueError
        total = 0.0
    return y * total


def test_an_uncaught_exception_from_a_try_block_has_python_s_traceback(capsys):
    lockstep(strict, [None, None], [lambda s, v=v: (np.full(2, v),) for v in (1.0, 2.0, -1.0, 1.0)], capsys)
    jf = janus.jit(strict, warmup=1, fallback="silent")
    for v in (1.0, 2.0):
        jf(np.full(2, v))
    tracebacks = []
    for f in (strict, jf):
        with pytest.raises(ValueError) as raised:
            f(np.full(2, -1.0))
        tracebacks.append([(t.name, t.lineno) for t in traceback.extract_tb(raised.value.__traceback__)
                           if t.filename == __file__])
    assert jf.versions and tracebacks[1] == tracebacks[0]


class Announce:
    """A context manager of plain Python methods: its effects show whether each ran once."""

    def __enter__(self):
        print("enter")
        return self

    def __exit__(self, kind, value, tb):
        print("exit", kind.__name__ if kind else None)
        return kind is KeyError  # swallows a KeyError


def well_behaved(x, key):
    y = x * 2.0
    with Announce():
        print("inside", y.sum())
        z = y * {"a": 1.0, "b": 2.0}[key] if key else y  # a KeyError for another key
        print("z", z.sum())
    return z @ y + 1.0


def test_a_split_inside_a_with_block_calls_exit_once(capsys):
    calls = [(np.arange(2.0) + i, k) for i, k in enumerate(["a", "b", "c", "a", "d", "b", "b"])]
    jf = lockstep(well_behaved, [None, None], [lambda s, c=c: c for c in calls], capsys)
    assert all(segment_calls(jf)[:2]), janus.explain(jf)


def suppressed(x, d):
    y = x * 2.0
    with contextlib.suppress(KeyError):  # made and entered in Python, its __exit__ called there too
        print("in", json.dumps({"total": float(y.sum())}))
        y = y + d["shift"]  # a KeyError leaves the block, swallowed
        print("shifted", y.sum())
    return y @ y


def test_a_split_inside_a_with_block_of_a_library_context_manager(capsys):
    dicts = [{"shift": 1.0}, {"shift": 1.0}, {}, {"shift": 2.0}, {}, {"shift": 1.0}]
    jf = lockstep(suppressed, [None, None], [lambda s, d=d, i=i: (np.arange(2.0) + i, d) for i, d in enumerate(dicts)],
                  capsys)
    assert segment_calls(jf)[0] == len(dicts) - 1 and sum(segment_calls(jf)[1:]), janus.explain(jf)


def saved(x, path):
    y = x * 2.0
    with open(path, "a") as f:  # opened, entered, written and closed in Python
        f.write(f"{y.sum():.1f}\n")
        z = y @ y
        if z > 30.0:
            raise ValueError(f"too large: {z}")  # leaves the block: the file is closed on the way out
        f.write(f"{z:.1f}\n")
    return z + y


def test_a_split_inside_a_with_open_block(capsys, tmp_path):
    paths = tmp_path / "plain.txt", tmp_path / "jitted.txt"
    calls = [lambda s, i=i: (np.arange(2.0) + i, paths[s]) for i in (0, 1, 0, 5, 1, 0, 1)]
    jf = lockstep(saved, [0, 1], calls, capsys)
    assert paths[1].read_text() == paths[0].read_text() and paths[0].read_text().count("\n") == 2 * len(calls) - 1
    assert segment_calls(jf)[0] == len(calls) - 1 and sum(segment_calls(jf)[2:]), janus.explain(jf)


class Settings:
    def __init__(self):
        self.seen = []


def in_errstate(x, state):
    y = x * 2.0
    with np.errstate(divide="ignore", over="warn"):
        state.seen.append(np.geterr()["divide"])  # Python code in the block runs under the settings
        z = np.log(y) + y.sum()
        print("log", z.max())
        if z[-1] > 20.0:
            raise ValueError(f"too large: {z[-1]}")  # leaves the block: the settings are restored
        w = z * 3.0
    state.seen.append(np.geterr()["divide"])
    return w


def test_a_split_inside_an_errstate_block_runs_python_under_its_settings(capsys):
    """The boundary enters the real ``np.errstate`` (the graph ignores floating-point
    errors, as ``ignore``/``warn`` ask); its ``__exit__`` restores the caller's settings on
    every way out."""
    calls = [lambda s, i=i: (np.arange(3.0) + i, s) for i in (0, 1, 0, 1, 0, 1, 0, 1, 3)]
    states = [Settings(), Settings()]
    with np.errstate(divide="warn", over="ignore"):  # the caller's (one that asks to raise runs in Python)
        jf = lockstep(in_errstate, states, calls, capsys)
        after = np.geterr()
    assert states[1].seen == states[0].seen and states[0].seen.count("ignore") == len(calls)
    assert after["over"] == "ignore" and np.geterr()["over"] == "warn"
    # the append onto ``state.seen`` commits with its segment; the block's end is a boundary: Python exits it
    assert all(segment_calls(jf)[:2]), janus.explain(jf)
    assert "errstate.__exit__ runs in Python" in "".join(janus.explain(f) for f in jf.resumes.values())


class Rows:
    def __init__(self):
        self.W = np.arange(6.0).reshape(2, 3)


def row_view(m):
    row = m.W[0]  # a view of m.W in Python
    print("row", row.sum())
    row += 1.0  # updates m.W through the view
    return row * 2.0


def test_no_split_while_a_view_is_live(capsys):
    rows = [Rows(), Rows()]
    jf = lockstep(row_view, rows, [lambda m: (m,)] * 3, capsys)
    assert_same(rows[1].W, rows[0].W)
    assert not jf.versions and "view" in janus.explain(jf)


def shuffled(x, gen):
    gen.shuffle(x)  # the Python operation changes the caller's array in place
    return x * 2.0


def test_the_caller_s_array_is_passed_by_identity(capsys):
    data = [np.arange(5.0), np.arange(5.0)]
    gens = [np.random.default_rng(2), np.random.default_rng(2)]
    jf = lockstep(shuffled, [0, 1], [lambda i: (data[i], gens[i])] * CALLS, capsys)
    assert_same(data[1], data[0])
    assert all(segment_calls(jf)), janus.explain(jf)


# ---- a REINFORCE agent written the ordinary way --------------------------------------------

class Reinforce:
    """A Generator in an attribute, the trajectory in lists, returns from a helper module."""

    def __init__(self):
        self.rng = np.random.default_rng(0)
        init = np.random.default_rng(1)
        self.W1 = init.standard_normal((4, 8)) * 0.1
        self.W2 = init.standard_normal((8, 2)) * 0.1
        self.observations, self.actions, self.rewards = [], [], []

    def act(self, obs):
        h = np.tanh(obs @ self.W1)
        logits = h @ self.W2
        p = np.exp(logits - logits.max())
        p = p / p.sum()
        action = self.rng.choice(2, p=p)
        self.observations.append(obs)
        self.actions.append(action)
        return action

    def update(self, lr):
        advantages = returns.discounted(self.rewards, 0.99)
        X = np.array(self.observations)
        h = np.tanh(X @ self.W1)
        logits = h @ self.W2
        p = np.exp(logits - logits.max(axis=1, keepdims=True))
        p = p / p.sum(axis=1, keepdims=True)
        dlogits = (p - np.eye(2)[np.array(self.actions)]) * advantages[:, None]
        dh = dlogits @ self.W2.T * (1 - h ** 2)
        self.W2 = self.W2 - lr * (h.T @ dlogits)
        self.W1 = self.W1 - lr * (X.T @ dh)
        self.observations, self.actions, self.rewards = [], [], []


def episodes(act, update, agent, count=5, steps=6):
    env, actions = np.random.default_rng(5), []
    for _ in range(count):
        obs = env.standard_normal(4)
        for _ in range(steps):
            action = act(agent, obs)
            actions.append(int(action))
            obs = obs * 0.9 + (0.1 if action else -0.1)
            agent.rewards.append(1.0)
        update(agent, 0.01)
    return actions


def test_a_reinforce_agent_written_the_ordinary_way_runs_partly_compiled():
    plain, jitted = Reinforce(), Reinforce()
    act, update = janus.jit(Reinforce.act, fallback="silent"), janus.jit(Reinforce.update, fallback="silent")
    assert episodes(act, update, jitted) == episodes(Reinforce.act, Reinforce.update, plain)
    assert_same(jitted.W1, plain.W1)
    assert_same(jitted.W2, plain.W2)
    assert jitted.rng.bit_generator.state == plain.rng.bit_generator.state
    assert segment_calls(act)[0] > 20 and segment_calls(update)[0], (janus.explain(act), janus.explain(update))


def with_a_constant_array(x):
    table = np.cumsum(np.arange(3.0)) * 2.0  # NumPy on constants: an array the trace made
    print("table", table)
    table[0] = 7.0  # the Python part's array is its own, fresh on every call
    return x @ table


def test_an_array_the_trace_made_is_fresh_after_the_boundary(capsys):
    """A shared array would show the last call's write in the next call's print."""
    jf = lockstep(with_a_constant_array, [None, None], [lambda s, i=i: (np.arange(3.0) + i,) for i in range(CALLS)], capsys)
    assert segment_calls(jf)[0] == CALLS - 1, janus.explain(jf)  # the write into the resume's argument: Python


def scaler(scale, log):
    offset = np.ones(3)

    def step(x):
        y = x * scale + offset
        print("mid", y.sum())
        log.append(len(log))  # a list in a cell: a Python operation on the real list
        return y @ (y + offset)  # the free variables read again after the boundaries

    return step


def test_a_closure_splits_and_resumes_with_its_own_cells(capsys):
    logs = [], []
    plain, step = scaler(2.0, logs[0]), scaler(2.0, logs[1])
    jf = janus.jit(step, warmup=1, fallback="silent")
    for i in range(2 * CALLS):  # four segments, each warmed up once
        x = np.arange(3.0) + i
        want, printed = plain(x), capsys.readouterr().out
        assert_same(jf(x), want)
        assert capsys.readouterr().out == printed
    assert logs[0] == logs[1] == list(range(2 * CALLS))
    assert all(segment_calls(jf)), janus.explain(jf)


def with_own_cells(x, k):
    y = x * k
    h = (lambda: y + k)()  # y and the argument k are cells of with_own_cells
    print("h", h.sum())
    k = k + 1.0  # the resume function's cell for k is written...
    z = (lambda: y * k)()  # ...and read through a closure made after the boundary
    print("z", z.sum())
    return [w @ z for w in (h, y)]  # 3.11: a comprehension's closure over z, another cell


def test_cells_of_its_own_are_carried_across_boundaries(capsys):
    jf = lockstep(with_own_cells, [None, None], [lambda s, i=i: (np.arange(3.0) + i, 2.0) for i in range(CALLS)], capsys)
    assert len(segment_calls(jf)) == 3 and all(segment_calls(jf)), janus.explain(jf)


def closure_kept_past_a_boundary(x, k):
    y = x * 2.0
    f = lambda z: y * z + k  # noqa: E731  (live at the boundary: made again from its code and cells)
    g = lambda: [f(y)]  # noqa: E731  (a closure over a closure)
    print("y", y.sum())
    return f(x), sorted(x, key=lambda v: -v), g()[0]  # a lambda the Python operation takes


def test_a_closure_live_at_the_boundary_is_made_again_from_its_code_and_cells(capsys):
    jf = lockstep(closure_kept_past_a_boundary, [None, None], [lambda s, i=i: (np.arange(3.0) + i, 2.0)
                                                               for i in range(CALLS)], capsys)
    assert segment_calls(jf)[0] == CALLS - 1, janus.explain(jf)


def rebinding_a_closure_cell(x):
    y = x * 2.0
    f = lambda: y + 1.0  # noqa: E731
    print("y", y.sum())
    y = y * 3.0  # f sees the new y in Python: a function made again with y's value would not
    return f()


def test_a_closure_whose_cell_is_rebound_after_the_boundary_does_not_split(capsys):
    jf = lockstep(rebinding_a_closure_cell, [None, None], [lambda s: (np.arange(2.0),)] * 3, capsys)
    assert not jf.versions and "its cell 'y' may be rebound after it" in janus.explain(jf)


def minibatches(x, size):  # a plain generator the trace could run eagerly, but a for loop takes it item by item
    for start in range(0, len(x), size):
        yield x[start:start + size]


class Accumulator:
    def __init__(self):
        self.W = np.arange(8.0).reshape(4, 2) / 10.0
        self.means = []


def loop_over_minibatches(acc, x):
    total = np.zeros(2)
    for k, batch in enumerate(minibatches(x, 3)):  # enumerate over it: the same
        h = np.tanh(batch @ acc.W)
        total = total + h.sum(0) * (k + 1)
        acc.means.append(float(h.mean()))
    for batch in minibatches(x, 4):
        total = total - batch.sum(0)[:2]
    return total


def test_a_for_loop_over_a_plain_generator_splits_at_each_item(capsys):
    states = [Accumulator(), Accumulator()]
    calls = [lambda s, i=i: (s, np.arange(4.0 * n).reshape(n, 4) + i) for i, n in enumerate([7, 7, 6, 7, 7, 2, 7])]
    jf = lockstep(loop_over_minibatches, states, calls, capsys)
    assert states[0].means == pytest.approx(states[1].means)
    assert sum(segment_calls(jf)[1:]) >= len(calls), janus.explain(jf)  # loop bodies ran compiled
    assert "minibatches() is a generator taken item by item" in janus.explain(jf)


# ---- the fused call of a split version (``Version.quick``) -----------------------------------

def test_a_split_version_that_only_reads_the_heap_runs_through_its_fused_call(capsys):
    """Entry guards, heap checks, the segment and the continuation in one generated call:
    draws, logs and values as Python's, and every change to the heap between calls seen."""
    samplers = [Sampler(), Sampler()]
    jf = lockstep(Sampler.act, samplers, [lambda s, i=i: (s, np.arange(3.0) - i) for i in range(CALLS)], capsys)
    (version,) = jf.versions.values()
    assert version.quick is not None and jf._quick is version.quick
    calls = version.calls
    changes = [lambda s: setattr(s, "W", s.W * -1.0),  # replaced by an array of the same dtype and shape
               lambda s: s.W.__iadd__(0.5),  # in place
               lambda s: setattr(s, "rng", np.random.default_rng(9)),  # another Generator object
               lambda s: setattr(s, "choices", []),  # another log list
               lambda s: None]
    for change in changes:
        for s in samplers:
            change(s)
        for i in range(3):
            x = np.arange(3.0) * (i - 1)
            assert jf(samplers[1], x) == Sampler.act(samplers[0], x)
    plain, jitted = samplers
    assert jitted.choices == plain.choices and jitted.rng.bit_generator.state == plain.rng.bit_generator.state
    np.testing.assert_array_equal(np.stack(jitted.inputs), np.stack(plain.inputs))
    assert version.calls > calls and jf.versions == {version.key: version}, janus.explain(jf)
    samplers[1].W = samplers[1].W.astype(np.float32)  # another dtype: the fused call misses, Python's value
    x = np.ones(3)
    assert jf(samplers[1], x) == Sampler.act(samplers[0], x)


def test_a_split_version_the_cost_rule_keeps_gets_its_fused_call(capsys, monkeypatch):
    monkeypatch.setattr(JitFunction, "COST_CALLS", 2)
    monkeypatch.setattr(CallCost, "python_wins", lambda self: False)
    samplers = [Sampler(), Sampler()]
    jf = lockstep(Sampler.act, samplers, [lambda s, i=i: (s, np.arange(3.0) - i) for i in range(4 * CALLS)], capsys)
    (version,) = jf.versions.values()
    assert version.cost is None and version.quick is not None and jf._quick is version.quick, janus.explain(jf)
    assert samplers[0].rng.bit_generator.state == samplers[1].rng.bit_generator.state


# ---- a loop resumed after a boundary: its counter relaxed at once ---------------------------

def counted_steps(x, W):
    for i in range(4):
        x = np.tanh(x @ W)
        print("step", i)
        x = x + W[i % 3] * i  # the counter read after the boundary: an argument of the resume function
    return x


def test_a_loop_resumed_after_a_boundary_takes_its_counter_as_a_graph_int(capsys):
    """Each resume function inside the loop relaxes its int arguments (the counter, the next
    item) from its first compile: one version each, not one per value of ``i``."""
    W = np.arange(9.0).reshape(3, 3) / 10
    jf = lockstep(counted_steps, [None, None], [lambda s, k=k: (np.ones(3) * k, W) for k in range(3 * CALLS)], capsys)
    resumes = list(jf.resumes.values())
    assert sum(segment_calls(jf)) and all(r.compiles == len(r.versions) <= 1 for r in resumes), janus.explain(jf)
    assert all(node[0] != "static" or node[1] != "int" for r in resumes for key in r.versions for node in key)
    assert any("ints relaxed from the first compile" in event for r in resumes for event in r.events)
