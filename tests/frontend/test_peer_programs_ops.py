"""Programs that reach for the NumPy functions added to the op table in this round
(``tests/helpers/peer_programs``: tabular preprocessing with percentiles, medians and NaN
imputation; Gaussian-process and Bayesian linear regression with ``np.linalg``; a 1-d
signal model with ``np.convolve``/``np.correlate``), run unchanged with ``janus.jit`` added
from outside against the same code run by Python: results, their types and dtypes, object
state. Each entry point must compile whole (no segment boundary, nothing in Python)."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

import janus
from janus.frontend.jit import JitFunction
from tests.helpers.peer_programs import gp_regression, signal_smoothing, tabular_prep
from tests.helpers.peer_state import same_tree

RNG = np.random.default_rng(7)


def compiled(jf: JitFunction, calls: int) -> None:
    """One version, no boundary, no fallback, and it ran ``calls`` compiled calls."""
    assert jf.versions and not jf.fallbacks, janus.explain(jf)
    assert all(v.graph.boundary is None for v in jf.versions.values()), janus.explain(jf)
    assert sum(v.calls for v in jf.versions.values()) == calls, janus.explain(jf)


def lockstep(fn: Callable, argument_sets: list[tuple]) -> JitFunction:
    """``fn`` jitted and plain on each argument set: the same results (types, dtypes, values)."""
    jf = janus.jit(fn, warmup=1)
    for args in argument_sets:
        same_tree(jf(*args), fn(*args))
    return jf


def _table(dtype: str) -> np.ndarray:
    X = RNG.standard_normal((40, 4)).astype(dtype) * np.array([1.0, 3.0, 0.5, 10.0], dtype)
    X[RNG.random((40, 4)) < 0.1] = np.nan
    X[3, 1] = 80.0  # an outlier the percentiles clip
    return X


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_tabular_preprocessing_compiles_and_matches_python(dtype: str) -> None:
    w, b = np.array([0.5, -1.0, 0.25, 2.0], dtype), 0.1
    tables = [_table(dtype) for _ in range(3)]
    jf = lockstep(tabular_prep.preprocess, [(X, w, b) for X in tables])
    compiled(jf, calls=2)
    score, bucket, n_missing, outliers, spread, high = jf(tables[0], w, b)
    assert bucket.dtype == np.int64 and n_missing.dtype == np.int64  # (score: float64, the quartiles' list q promotes)
    assert isinstance(outliers, np.integer) and not np.isnan(high).any()


def test_gaussian_process_compiles_and_matches_python() -> None:
    """The GP's posterior and its attribute write (``self.last_nll``) as Python leaves them."""
    x, x_test = np.linspace(-2.0, 2.0, 9), np.linspace(-2.5, 2.5, 6)
    ys = [np.sin(2.0 * x) + 0.1 * RNG.standard_normal(9) for _ in range(3)]
    got_gp, want_gp = gp_regression.GaussianProcess(), gp_regression.GaussianProcess()
    jf = janus.jit(gp_regression.GaussianProcess.fit_predict, warmup=1)
    for y in ys:
        same_tree(jf(got_gp, x, y, x_test), gp_regression.GaussianProcess.fit_predict(want_gp, x, y, x_test))
        same_tree(got_gp, want_gp)
    compiled(jf, calls=2)
    assert type(got_gp.last_nll) is type(want_gp.last_nll)


def test_bayesian_linear_regression_compiles_and_matches_python() -> None:
    X = RNG.uniform(-1.0, 1.0, 30)
    sets = [(X, 0.5 - X + 2.0 * X ** 2 + 0.2 * RNG.standard_normal(30)) for _ in range(3)]
    jf = lockstep(gp_regression.bayes_linear, sets)
    compiled(jf, calls=2)


def test_signal_model_compiles_and_matches_python() -> None:
    t = np.linspace(0.0, 6.0, 64)
    sets = []
    for shift in (3, 5, 2):
        a = np.sin(t) + 0.2 * RNG.standard_normal(64)
        sets.append((a, np.roll(a, shift) + 0.05 * RNG.standard_normal(64)))
    jf = lockstep(signal_smoothing.analyse, sets)
    compiled(jf, calls=2)
    lag, xc, sigma, C, edge = jf(*sets[0])
    assert type(lag) is type(signal_smoothing.analyse(*sets[0])[0]) and C.shape == (3, 3)
