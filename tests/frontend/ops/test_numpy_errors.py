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
    ("quantile outside [0, 1]", lambda x: np.quantile(x, 1.5), (X,)),
    ("percentile below 0", lambda x: np.percentile(x, [-5, 50], axis=0), (X,)),
    ("median over a missing axis", lambda x: np.median(x, axis=2), (X,)),
    ("ptp of bools", lambda x: np.ptp(x > 1), (X,)),
    ("nanmean over a missing axis", lambda x: np.nanmean(x, axis=3), (X,)),
    ("cross of 2- and 3-vectors with a bad dim", lambda x: np.cross(x, x[:, :1]), (X,)),
    ("convolve with an empty kernel", lambda x: np.convolve(x[0], x[0, :0]), (X,)),
    ("correlate with an unknown mode", lambda x: np.correlate(x[0], x[1], mode="middle"), (X,)),
    ("append of mismatched ranks on an axis", lambda x: np.append(x, x[0], axis=0), (X,)),
    ("select of lists of different lengths", lambda x: np.select([x > 0], [x, x]), (X,)),
    ("searchsorted in a 2-d array", lambda x: np.searchsorted(x, 1.0), (X,)),
    ("digitize with non-monotonic bins", lambda x: np.digitize(x, [3.0, 1.0, 2.0]), (X,)),
    ("cov of a 3-d array", lambda x: np.cov(x[None]), (X,)),
    ("inv of a non-square matrix", lambda x: np.linalg.inv(x), (X,)),
    ("det of a vector", lambda x: np.linalg.det(x[0]), (X,)),
    ("solve with a mismatched b", lambda x: np.linalg.solve(x[:, :2], x[0]), (X,)),
    ("interp with xp and fp of different lengths", lambda x: np.interp(x, x[0], x[1, :2]), (X,)),
    ("a write into a read-only sliding window view", lambda x: _write_window(x * 2.0), (X,)),
]


def _write_window(x):
    windows = np.lib.stride_tricks.sliding_window_view(x, 2, axis=1)
    windows[0, 0] = 1.0
    return windows


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


SQUARE = np.array([[2.0, 1.0], [1.0, 3.0]])
SINGULAR = np.array([[1.0, 2.0], [2.0, 4.0]])
ALL_NAN_ROW = np.array([[1.0, np.nan], [np.nan, np.nan]])

#: (what, function, arguments a compiled version is made for, arguments its guards refuse)
GUARDED: list[tuple[str, Callable[..., Any], tuple, tuple]] = [
    ("solve of a singular matrix", lambda a: np.linalg.solve(a * 1.0, a[0]), (SQUARE,), (SINGULAR,)),
    ("inv of a singular matrix", lambda a: np.linalg.inv(a + 0.0), (SQUARE,), (SINGULAR,)),
    ("nanargmax of a slice of NaN only", lambda a: np.nanargmax(a * 1.0, axis=1), (SQUARE,), (ALL_NAN_ROW,)),
]


@pytest.mark.parametrize("what, fn, good, bad", GUARDED, ids=[c[0] for c in GUARDED])
def test_a_compiled_record_whose_guard_fails_raises_numpys_exception(what, fn, good, bad):
    """The graph guards what NumPy would raise on (a zero pivot, a slice of NaN only): such a
    call runs in NumPy, which raises its own exception, and the version stays for good calls."""
    jf = janus.jit(fn, warmup=1, fallback="silent")
    for _ in range(2):
        jf(*good)
    (version,) = jf.versions.values()
    want = _raised(fn, bad)
    got = _raised(jf, bad)
    assert type(got) is type(want) and str(got) == str(want), (what, got, want)
    calls = version.calls
    np.testing.assert_allclose(jf(*good), fn(*good))
    assert version.calls == calls + 1
