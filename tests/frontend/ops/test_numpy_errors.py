"""Arguments NumPy rejects: a jitted function raises NumPy's own exception (type and
message), on the first call and on later ones, as the plain function does."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

import janus

X = np.arange(6, dtype=np.float32).reshape(2, 3)
U8 = np.array([1, 2, 3], np.uint8)

CASES: list[tuple[str, Callable[..., Any], tuple]] = [
    ("concatenate of mismatched shapes", lambda x: np.concatenate([x, x.T]), (X,)),
    ("stack of mismatched shapes", lambda x: np.stack([x, x[:1]]), (X,)),
    ("reshape to another size", lambda x: x.reshape(4, 2), (X,)),
    ("matmul of unaligned shapes", lambda x: x @ x, (X,)),
    ("sum over a missing axis", lambda x: x.sum(axis=2), (X,)),
    ("transpose by a non-permutation", lambda x: np.transpose(x, (0, 0)), (X,)),
    ("split into unequal parts", lambda x: np.split(x, 2, axis=1), (X,)),
    ("diff of a negative order", lambda x: np.diff(x, n=-1), (X,)),
    ("diff of a 0-d array", lambda x: np.diff(x.sum()), (X,)),
    ("a Python int outside uint8", lambda u: u + 300, (U8,)),
    ("broadcasting of mismatched shapes", lambda x: x + x[:, :2], (X,)),
    ("an index out of bounds", lambda x: x[5], (X,)),
    ("pad with a negative width", lambda x: np.pad(x, -1), (X,)),
    ("an unknown dtype name", lambda x: x.astype("float33"), (X,)),
    ("argmax over a missing axis", lambda x: np.argmax(x, axis=3), (X,)),
    ("integer power by a negative exponent", lambda u: u.astype(np.int64) ** -1, (U8,)),
]


def _raised(fn: Callable[..., Any], args: tuple) -> BaseException:
    try:
        fn(*args)
    except Exception as e:  # noqa: BLE001  (the oracle's exception, whatever it is)
        return e
    raise AssertionError("NumPy accepted the arguments: not a case of this test")


@pytest.mark.parametrize("what, fn, args", CASES, ids=[c[0] for c in CASES])
def test_a_bad_argument_raises_numpys_exception(what, fn, args):
    want = _raised(fn, args)
    jf = janus.jit(fn, warmup=1, fallback="silent")
    for _ in range(3):
        got = _raised(jf, args)
        assert type(got) is type(want) and str(got) == str(want), (what, got, want)


def _add(x, y):
    return x + y


def test_a_compiled_function_called_with_bad_shapes_raises_numpys_exception():
    """After a compiled version, shapes NumPy cannot broadcast miss its guards and raise in Python."""
    jf = janus.jit(_add, warmup=1, fallback="silent")
    for _ in range(2):
        jf(X, X)
    assert jf.versions
    want = _raised(_add, (X, X[:, :2]))
    got = _raised(jf, (X, X[:, :2]))
    assert type(got) is type(want) and str(got) == str(want)
