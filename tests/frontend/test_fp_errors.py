"""A compiled call made while NumPy is asked to raise (or call a function) on floating-point
errors runs in Python, which raises where NumPy does; under "ignore"/"warn" it stays compiled."""

from __future__ import annotations

import numpy as np
import pytest

import janus
from janus.frontend.fp_errors import errors_observed


def scaled_log(x):
    return np.log(x) * 2.0


def test_a_call_under_errstate_raise_raises_as_numpy_does():
    jf = janus.jit(scaled_log, warmup=1)
    zero, positive = np.arange(3.0), np.arange(1.0, 4.0)
    with np.errstate(divide="ignore"):
        for _ in range(3):
            np.testing.assert_array_equal(jf(zero), scaled_log(zero))
    (version,) = jf.versions.values()
    calls = version.calls
    with np.errstate(divide="raise"):
        with pytest.raises(FloatingPointError, match="divide by zero"):
            jf(zero)
        np.testing.assert_array_equal(jf(positive), scaled_log(positive))  # no error: the same value
    seen = []
    with np.errstate(all="call", call=lambda kind, flag: seen.append(kind)):
        jf(zero)
    assert seen == ["divide by zero"]
    assert version.calls == calls  # those ran in Python
    with np.errstate(divide="warn", over="ignore"):
        np.testing.assert_array_equal(jf(positive), scaled_log(positive))
    assert version.calls == calls + 1  # compiled again


def test_errors_observed_follows_the_current_settings():
    with np.errstate(all="ignore"):
        assert not errors_observed() and not errors_observed()  # the second: the remembered settings
        with np.errstate(over="raise"):
            assert errors_observed()
        assert not errors_observed()
