"""Programs written the CPython 3.12/3.13 way compile on 3.11, 3.12 and 3.13 alike: list,
dict and nested comprehensions over arrays (inlined by PEP 709 on 3.12+), f-strings of
Python values, ``match`` on Python values, keyword calls, slices, lambdas with defaults,
``while`` loops and ``super()``. Plain Python is the oracle; each test also checks that the
bytecode it meant to exercise is there on the running interpreter."""

from __future__ import annotations

import dis
import sys
import warnings

import numpy as np
import pytest

import janus
from janus.frontend.trace import versions
from janus.frontend.values import NotConvertible
from janus.tools import janus_compile
from tests.helpers import assert_same, check_compiled, compiled, rand

NEW = sys.version_info >= (3, 12)


def opnames(fn) -> set[str]:
    return {i.opname for i in dis.get_instructions(fn)}


def rows_squashed(x, W):
    hs = [np.tanh(row @ W) for row in x]  # a comprehension over an array's rows
    return np.stack(hs) + x @ W


def test_list_comprehension_over_rows():
    assert ("LOAD_FAST_AND_CLEAR" in opnames(rows_squashed)) == NEW  # inlined on 3.12+, a function before
    check_compiled(rows_squashed, rand(4, 3), rand(3, 3, seed=1))


def named_layers(x, Ws):
    params = {f"w{i}": W for i, W in enumerate(Ws)}  # dict comprehension, f-string keys
    for i in range(len(Ws)):
        x = np.maximum(x @ params[f"w{i}"], 0.0)
    return x, list(params)


def test_dict_comprehension_with_f_string_keys():
    check_compiled(named_layers, rand(2, 3), [rand(3, 3, seed=s) for s in range(3)])


def shadowed(x, n):
    i = n * 2
    squares = [x * i for i in range(n)]  # PEP 709: the outer i is saved and restored
    pairs = [a + b for a in squares for b in squares[:1]]
    return np.sum(np.stack(squares + pairs), axis=0), i


def test_comprehension_variable_shadows_a_local():
    check_compiled(shadowed, rand(3), 3)


def labelled(x, step, scale):
    label = f"step {step:03d} scale={scale!r} {'even' if step % 2 == 0 else 'odd'}"
    return x * scale, label, len(label)


def test_f_strings_of_python_values():
    names = opnames(labelled)
    assert {"FORMAT_SIMPLE", "FORMAT_WITH_SPEC"} <= names if sys.version_info >= (3, 13) else "FORMAT_VALUE" in names
    check_compiled(labelled, rand(3), 7, 0.5)


def test_f_string_of_an_array_value_runs_in_python():
    def show(x):
        return x + 1, f"{x.sum()}"

    jf = janus.jit(show, warmup=1)
    for _ in range(3):
        got, want = jf(rand(3)), show(rand(3))
        assert_same(got[0], want[0])
        assert got[1] == want[1]
    assert not jf.versions and "f-string field" in janus.explain(jf)


def activate(x, kind, shape):
    match kind:
        case "relu":
            y = np.maximum(x, 0.0)
        case "tanh" | "sigmoid":
            y = np.tanh(x)
        case _:
            y = x
    match shape:
        case (n, m):
            y = y.reshape(n, m)
        case [n]:
            y = y.reshape(n)
    return y


@pytest.mark.parametrize("kind", ["relu", "tanh", "sigmoid", "linear"])
@pytest.mark.parametrize("shape", [(2, 3), [6]])
def test_match_on_python_values(kind, shape):
    assert "MATCH_SEQUENCE" in opnames(activate)
    check_compiled(activate, rand(6), kind, shape)


def keywords_and_slices(x, xs):
    head = xs[1:3]  # BINARY_SLICE on 3.12+
    window = list(xs)
    window[0:2] = [x, x]  # STORE_SLICE on 3.12+
    scale = lambda v, k=2.0: v * k  # noqa: E731  (defaults set one by one on 3.13)
    total = np.sum(np.stack(head + window), axis=0, keepdims=False)  # CALL_KW on 3.13
    return scale(total), scale(x, k=0.5)


def test_keyword_calls_slices_and_lambda_defaults():
    names = opnames(keywords_and_slices)
    assert ({"BINARY_SLICE", "STORE_SLICE"} <= names) == NEW
    check_compiled(keywords_and_slices, rand(3), [rand(3, seed=s) for s in range(4)])


def swapped(x, y):
    a, b = x, y
    a, b = b, a * 2.0  # STORE_FAST_STORE_FAST and LOAD_FAST_LOAD_FAST on 3.13: the order matters
    return a - b


def test_superinstructions_keep_the_order():
    assert ("STORE_FAST_STORE_FAST" in opnames(swapped)) == (sys.version_info >= (3, 13))
    check_compiled(swapped, rand(3), rand(3, seed=1))


def halve_until(x, limit):
    n = 0
    while n < limit and x.sum() > 1.0:  # a static test, then a graph one: 3.12 ends the body with a forward jump
        x = x * 0.5
        n += 1
    return x, n


def test_while_loop_with_python_counter():
    jf = compiled(halve_until, np.full(4, 2.0, np.float32), 10)
    args = (np.full(4, 2.0, np.float32), 10)
    assert_same(jf(*args), halve_until(*args))


def test_star_arguments_and_unary_plus():
    def call_star(x):
        args = [x, 2.0 * x]
        return np.add(*args), +len(args)  # CALL_INTRINSIC_1 (list to tuple, unary +) on 3.12+

    check_compiled(call_star, rand(3))


class Layer:
    def __init__(self):
        self.W = np.eye(3, dtype=np.float32)

    def forward(self, x):
        return x @ self.W


class Scaled(Layer):
    def forward(self, x):
        return super().forward(x) * 2.0  # LOAD_SUPER_ATTR on 3.12+


def scaled_forward(layer, x):
    return layer.forward(x)


def test_super_method_call():
    assert ("LOAD_SUPER_ATTR" in opnames(Scaled.forward)) == NEW
    check_compiled(scaled_forward, Scaled(), rand(2, 3))


def test_unsupported_interpreter_gets_one_message_then_plain_python(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(versions, "running", lambda: (3, 14))
    args = (rand(4, 3), rand(3, 3, seed=1))
    jf = janus.jit(rows_squashed, warmup=1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(3):
            assert_same(jf(*args), rows_squashed(*args))
    (warning,) = caught
    assert "CPython 3.11, 3.12 and 3.13, not of CPython 3.14" in str(warning.message)
    assert not jf.versions and "plain Python" in janus.explain(jf)
    with pytest.raises(NotConvertible, match="CPython 3.11, 3.12 and 3.13, not of CPython 3.14"):
        janus.export(rows_squashed, *args, path=tmp_path / "squashed.vmfb")
    assert janus_compile.main([f"{__file__}:rows_squashed", "--arg-shape", "x=4x3xf32", "--arg-shape", "W=3x3xf32",
                               "-o", str(tmp_path / "squashed.vmfb")]) == 1
    assert "not of CPython 3.14" in capsys.readouterr().err
