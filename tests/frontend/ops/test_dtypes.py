"""The integer widths, unsigned ints and float16 against NumPy, compiled: promotion (NEP 50:
Python scalars weak), wrapping overflow, floor division and modulo signs, unsigned
comparisons and shifts, casts (``astype``), and the forms that run in NumPy with a reason
(an unsigned array in the heap, a float16 sum, a Python int out of an unsigned range)."""

from __future__ import annotations

import numpy as np
import pytest

import janus
from tests.helpers import assert_same, check_compiled, in_python


def integer_work(a, b):
    """Each op on two arrays of one int dtype, with Python scalars and a cast."""
    return (
        a + b, a - b, a * b, a // b, a % b, a < b, a >= b, a == b,
        np.maximum(a, b), np.minimum(a, b), -a, np.abs(a), a >> 1, a << 3, a & b, a ^ 7,
        a * 3, a + 1, a / b, a.sum(), a.max(), a.min(), a.argmax(), a.mean(), np.sign(a),
        a.astype(np.float32), a.astype(np.int8), a.astype(np.uint16), np.clip(a, 2, 100), a ** 2,
    )


def _pair(dtype: str) -> tuple[np.ndarray, np.ndarray]:
    """Values at both ends of ``dtype``'s range, zeros in the divisor."""
    info = np.iinfo(dtype)
    a = np.array([info.min, info.max, 0, 1, 7, info.max // 3, -7 if info.min else 200, 5], dtype)
    b = np.array([3, 2, 0, 0, 1, 5, -2 if info.min else 9, info.max], dtype)
    return a, b


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "uint16", "int32", "uint32", "uint64"])
def test_integer_ops_match_numpy_compiled(dtype):
    with np.errstate(all="ignore"):
        check_compiled(integer_work, *_pair(dtype))


def mixed_promotion(i8, u8, i16, f16, f32):
    """NumPy 2's promotion across kinds and widths (uint8 + int8 -> int16, uint64-free)."""
    return (i8 + u8, u8 * i16, u8 / 255.0, u8.astype(np.float32) / 255.0, i8 < u8, f16 + f16, f16 * 2,
            f16.astype(np.float32) + f32, np.exp(f16), f16 + i8, u8 // np.uint8(3), i16 % np.int16(-3))


def test_mixed_dtypes_promote_as_numpy():
    rng = np.random.default_rng(0)
    args = (rng.integers(-128, 128, 6).astype(np.int8), rng.integers(0, 256, 6).astype(np.uint8),
            rng.integers(-3000, 3000, 6).astype(np.int16), rng.standard_normal(6).astype(np.float16),
            rng.standard_normal(6).astype(np.float32))
    check_compiled(mixed_promotion, *args)


def half_math(h, b):
    """float16 as NumPy computes it: in float32, each result rounded to float16."""
    return (np.tanh(h), np.log(np.abs(h) + 1), np.sqrt(np.abs(h)), np.sin(h), h / 3, h ** 3, np.where(h > 0, h, 0.5),
            np.tanh(b), h * 1e4, np.float16(2) * h, np.isinf(h * 1e4), np.maximum(h, -0.25))


def test_float16_math_rounds_as_numpy():
    h = np.random.default_rng(1).standard_normal(16).astype(np.float16) * 4
    check_compiled(half_math, h, h > 0)


def float_to_int_casts(x):
    return (x.astype(np.uint8), x.astype(np.int8), x.astype(np.int16), x.astype(np.uint64), x.astype(np.int32),
            x.astype(np.uint32), x.astype(np.float16).astype(np.uint64), (x * 1e10).astype(np.uint64))


def test_float_to_int_casts_truncate_as_numpy():
    x = np.array([-1.9, -0.5, 0.0, 0.7, 1.5, 100.9, 127.0, 255.0], np.float32)  # all inside NumPy's defined range
    check_compiled(float_to_int_casts, x)


def test_unsigned_results_of_one_element_compile():
    """0-d and one-element unsigned results (bitcast as two elements at the boundary)."""
    def stats(a):
        return a.max(), a[:1] + 1, a.sum(), a.reshape(2, 2)[:1, :1]

    check_compiled(stats, np.array([3, 250, 9, 1], np.uint8))


def _add_one(a):
    return a + 1


def _lut(m, a):
    return m.table + a


def _half_sum(h):
    return h.sum()


class _Holder:
    table = np.arange(4, dtype=np.uint8)


@pytest.mark.parametrize("fn, args, reason", [
    (_lut, (_Holder(), np.arange(4, dtype=np.uint8)), "unsigned arrays are supported as arguments and results, not in the heap"),
    (_half_sum, (np.ones(4, np.float16),), "a float16 reduction or product"),
    (_add_one, (np.uint8(3),), "a uint8 argument of one element"),
])
def test_unsupported_dtype_forms_run_in_python_with_the_reason(fn, args, reason):
    jf = janus.jit(fn, warmup=1, fallback="silent")
    for _ in range(2):
        assert_same(jf(*args), fn(*args))
    assert in_python(jf) and reason in janus.explain(jf)


def _add(a, n):
    return a + n


def _less(a, n):
    return a < n


def test_a_python_int_out_of_an_unsigned_range_is_numpys_business():
    """NumPy 2 raises OverflowError for ``uint8_array + -1`` and compares by value for
    ``uint8_array < -1``: the jitted function does the same (it runs in NumPy)."""
    a = np.array([0, 200], np.uint8)
    add, less = janus.jit(_add, warmup=1, fallback="silent"), janus.jit(_less, warmup=1, fallback="silent")
    for _ in range(2):
        with pytest.raises(OverflowError, match="Python integer -1 out of bounds for uint8"):
            add(a, -1)
        assert_same(less(a, -1), _less(a, -1))


def scalar_work(a, h, i):
    """0-d values, computed on the host (IREE's VM has no f16: its casts run in a dispatch)."""
    return a[0] // 3 + a[1], a[2] > a[3], h[0] * 2 + h[1], i[0] % -3, a[0].astype(np.float32), h[0] < 1, i[1] * i[2]


def test_zero_d_values_of_narrow_dtypes_compile():
    check_compiled(scalar_work, np.array([200, 7, 3, 250], np.uint8), np.array([0.5, 3.0], np.float16),
                   np.array([-7, 100, 3], np.int16))


def float32_totals(a):
    return a.sum(), a.mean(), a.reshape(100, -1).sum(axis=1), np.mean(a * a)


def test_float32_sums_of_many_elements_stay_within_numpys_rounding():
    """NumPy sums float32 pairwise; the compiled sums accumulate in float64 and round once.
    With one float32 accumulator per vector lane, the sum of a million 0.1s came out 1% off."""
    a = np.full(1_000_000, 0.1, np.float32)
    jf = check_compiled(float32_totals, a)
    for got, want in zip(jf(a), float32_totals(a)):
        assert got.dtype == want.dtype == np.float32
        np.testing.assert_allclose(got, want, rtol=3e-7)
