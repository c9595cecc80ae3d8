"""An estimator written the scikit-learn way (``tests/helpers/peer_programs/estimator.py``),
run unchanged with ``janus.jit`` added from outside against plain Python: the fitted
attributes (their types too), the loss history, printed output, and scores."""

from __future__ import annotations

import numpy as np

import janus
from janus.frontend.jit import JitFunction
from tests.helpers.coexec import segment_calls
from tests.helpers.peer_programs.estimator import LogisticRegression
from tests.helpers.peer_state import same_tree


def data(seed):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((40, 3))
    return X, (X[:, 0] + 0.3 * rng.standard_normal(40) > 0).astype(float)


def test_fit_with_an_epoch_loop_that_logs_and_prints(capsys, monkeypatch):
    monkeypatch.setattr(JitFunction, "COST_CALLS", 0)  # tiny data: the cost rule would pick Python
    plain, jitted = LogisticRegression(epochs=12), LogisticRegression(epochs=12)
    jf = janus.jit(LogisticRegression.fit, warmup=1)
    for s in range(6):
        assert plain.fit(*data(s)) is plain
        printed = capsys.readouterr().out
        assert jf(jitted, *data(s)) is jitted  # ``return self``
        assert capsys.readouterr().out == printed
        same_tree(jitted, plain)  # coef_ made by np.zeros and updated in place, intercept_ a NumPy float
    calls = segment_calls(jf)
    assert calls[0] >= 4 and sum(calls[1:]) >= 4, janus.explain(jf)  # the work around the log and print compiled


def test_score_of_a_model_whose_intercept_changes_between_calls():
    plain, jitted = LogisticRegression(verbose=False), LogisticRegression(verbose=False)
    score = janus.jit(LogisticRegression.score)
    for s in range(6):
        X, y = data(s)
        plain.fit(X, y), jitted.fit(X, y)
        same_tree(score(jitted, X, y), plain.score(X, y))
    explained = janus.explain(score)
    assert len(score.versions) == 1 and "heap self.intercept_: float64 (any value, a graph input)" in explained, explained
