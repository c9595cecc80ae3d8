"""A sixth set of programs written the way public NumPy scripts are (``tests/helpers/peer_programs``:
a Kalman filter, a bootstrap particle filter with systematic resampling, a linear SVM by hinge-loss
SGD over ``Generator.permutation`` minibatches, PCA by power iteration with deflation, Gaussian naive
Bayes in the scikit-learn spelling, a Metropolis-Hastings sampler taking a ``Generator``, a
linear-chain CRF in log space, a matrix-factorization recommender trained over (user, item, rating)
triples, and an MLP whose parameters live in dataclasses with its loss helpers in another module),
run unchanged with ``janus.jit`` added from outside against the same code run by Python: results,
types, object state, the ``Generator`` streams. Each test asserts how far each entry point
converted, and for what still runs in Python, why."""

from __future__ import annotations

import copy

import numpy as np

import janus
from tests.helpers.peer_programs import (crf, dataclass_mlp, kalman, linear_svm, matrix_factorization, mh_sampler,
                                         naive_bayes, particle_filter, pca_power)
from tests.helpers.peer_state import assert_compiled, assert_split, lockstep, same_tree

RNG = np.random.default_rng(6)


def jitted_alike(fn, calls, fallback="warn"):
    """``fn`` jitted and plain on copies of each call's arguments: results and the arguments
    after the call (a ``Generator`` argument's stream) the same."""
    jf = janus.jit(fn, warmup=1, fallback=fallback)
    for args in calls:
        given, plain = copy.deepcopy(args), copy.deepcopy(args)
        same_tree(jf(*given), fn(*plain))
        same_tree(list(given), list(plain))
    return jf


# ---- a Kalman filter: predict/update on attributes, the gain from np.linalg.inv --------------------
MEASUREMENTS = [float(z) for z in np.cumsum(RNG.standard_normal(6))]


def test_kalman_steps_and_a_filtered_sequence_compile():
    step = lockstep(kalman.KalmanFilter.step, kalman.KalmanFilter, [(z,) for z in MEASUREMENTS])
    assert_compiled(step)  # ``float(y[0, 0])`` of the innovation, the state rebound on self
    run = lockstep(kalman.KalmanFilter.filter, kalman.KalmanFilter, [(MEASUREMENTS,)] * 3)
    assert_compiled(run)  # estimates appended to a list, then ``np.array(estimates)``


def test_kalman_log_likelihood_with_item_of_a_one_by_one_quadratic_form_compiles():
    """``(y.T @ np.linalg.solve(S, y)).item()`` added at once into ``ll``: the (1, 1) array's element."""
    kf = kalman.KalmanFilter()
    zs = [np.array([[z]]) for z in MEASUREMENTS]
    ll = jitted_alike(kalman.log_likelihood, [(kf.F, kf.H, kf.Q, kf.R, zs, np.zeros((2, 1)), np.eye(2))] * 3)
    assert_compiled(ll)


# ---- a particle filter: Generator draws on self, np.cumsum + np.searchsorted resampling -----------------
def test_particle_filter_keeps_the_generator_stream_and_compiles_between_draws():
    zs = [0.1, 0.3, -0.2, 0.5, 0.9, 1.4, 1.1, 0.8]
    step = lockstep(particle_filter.ParticleFilter.step, lambda: particle_filter.ParticleFilter(32), [(z,) for z in zs])
    assert_split(step, "Generator.normal")  # the process noise drawn in Python, the weights compiled
    assert "relaxing (z) to ?" in janus.explain(step)
    weights = RNG.random(16)
    resample = jitted_alike(particle_filter.systematic_resample, [(weights / weights.sum(), u) for u in (0.1, 0.5, 0.7)])
    assert_compiled(resample)


# ---- a linear SVM: hinge-loss subgradients over shuffled minibatches --------------------------------------
X_SVM = RNG.standard_normal((12, 3))
Y_SVM = (X_SVM[:, 0] + 0.5 * X_SVM[:, 1] > 0).astype(int)


def test_linear_svm_epochs_split_at_the_permutation_and_compile_the_minibatch_loop():
    calls = [(X_SVM, Y_SVM, np.random.default_rng(seed)) for seed in range(8)]
    epoch = lockstep(linear_svm.LinearSVM.epoch, lambda: linear_svm.LinearSVM(3), calls)
    assert_split(epoch, "Generator.permutation")
    (version,) = epoch.versions.values()
    # ``self.b`` (0.0, then a NumPy float) speculated as a value, then kept a graph input
    assert sum(v.calls for v in version.resume.versions.values()) >= 1, janus.explain(epoch)
    assert_compiled(lockstep(linear_svm.LinearSVM.accuracy, lambda: linear_svm.LinearSVM(3), [(X_SVM, Y_SVM)] * 3))


# ---- PCA by power iteration with deflation ---------------------------------------------------------------
X_PCA = RNG.standard_normal((10, 4)) @ RNG.standard_normal((4, 4))


def fitted_pca() -> pca_power.PCA:
    return pca_power.PCA(2).fit(X_PCA)


def test_pca_power_iteration_and_a_fit_returning_self_compile():
    top = jitted_alike(pca_power.top_components, [(X_PCA, 2)] * 3)
    assert_compiled(top)  # 2 x 50 power iterations unrolled, np.outer deflation, np.vstack
    assert_compiled(lockstep(pca_power.PCA.reconstruction_error, fitted_pca, [(X_PCA[:5],)] * 3))
    fit = janus.jit(pca_power.PCA.fit, warmup=1)
    for _ in range(3):  # ``return self``, scikit-learn style: the very object, its attributes written
        jitted, plain = pca_power.PCA(2), pca_power.PCA(2)
        assert fit(jitted, X_PCA) is jitted and plain.fit(X_PCA) is plain
        same_tree(jitted, plain)
    assert_compiled(fit)


# ---- Gaussian naive Bayes, scikit-learn's spelling --------------------------------------------------------
X_NB = np.vstack([RNG.standard_normal((6, 3)), RNG.standard_normal((6, 3)) + 2])
Y_NB = np.array([3] * 6 + [7] * 6)


def fitted_nb() -> naive_bayes.GaussianNB:
    return naive_bayes.GaussianNB().fit(X_NB, Y_NB)


def test_naive_bayes_splits_where_shapes_follow_the_data_with_the_reasons():
    fit = lockstep(naive_bayes.GaussianNB.fit, naive_bayes.GaussianNB, [(X_NB, Y_NB)] * 3, fallback="silent")
    assert "python: unique at" in janus.explain(fit)  # np.unique: a shape only the data decides
    assert "compiled segment:" in janus.explain(fit)  # after it, ``X[y == c]`` and the per-class statistics compile
    for entry in (naive_bayes.GaussianNB.predict_proba, naive_bayes.GaussianNB.predict):
        jf = lockstep(entry, fitted_nb, [(X_NB[:5],)] * 3, fallback="silent")
        # ``n_ij = -0.5 * np.sum(...)`` is a NumPy scalar, ``n_ij -= <(5,) array>`` rebinds it; for a
        # 0-d array NumPy raises: the trace cannot tell the two apart, the callee runs in Python
        assert "in-place -=: a (5,) value does not broadcast to the target's shape ()" in janus.explain(jf)
        assert sum(v.calls for v in jf.versions.values()) >= 1, janus.explain(jf)  # around it: compiled


# ---- Metropolis-Hastings with a Generator argument --------------------------------------------------------
def test_metropolis_hastings_keeps_the_callers_generator_stream_and_summaries_compile():
    calls = [(mh_sampler.log_banana, [0.0, 0.0], 20, 0.5, np.random.default_rng(seed)) for seed in range(4)]
    sample = jitted_alike(mh_sampler.metropolis, calls)
    (version,) = sample.versions.values()  # ``np.empty``/``np.array(x0)``/``log_p(x)`` compiled, then the first draw
    assert version.graph.boundary is not None and version.calls >= 2 and not sample.fallbacks, janus.explain(sample)
    explained = janus.explain(sample)
    assert "python: Generator.standard_normal at" in explained and "python: Generator.uniform at" in explained
    # after the acceptance draw the rest of the chain runs in Python: its resume function takes
    # ``samples`` as an argument, updates it (``samples[i] = x``), and the next draw needs it in Python
    assert "an argument array updated in place before a segment boundary" in explained
    chain = np.random.default_rng(0).standard_normal((40, 2))
    assert_compiled(jitted_alike(mh_sampler.chain_summary, [(chain,)] * 3))  # np.cov(rowvar=False)


# ---- a linear-chain CRF in log space ---------------------------------------------------------------------
X_CRF, TAGS = RNG.standard_normal((5, 4)), [0, 2, 1, 1, 0]


def test_crf_likelihood_and_viterbi_compile_for_tags_as_a_list_or_an_array():
    make = lambda: crf.LinearChainCRF(4, 3)  # noqa: E731
    for tags in (TAGS, np.array(TAGS)):
        assert_compiled(lockstep(crf.LinearChainCRF.nll, make, [(X_CRF, tags)] * 3))
    assert_compiled(lockstep(crf.LinearChainCRF.decode, make, [(X_CRF,)] * 3))  # back-pointers in a list


# ---- a matrix-factorization recommender --------------------------------------------------------------------
RATINGS = np.array([[0, 1, 4.0], [1, 2, 3.0], [2, 0, 5.0], [0, 3, 1.0], [3, 1, 2.0], [1, 0, 4.0]])


def make_mf() -> matrix_factorization.MatrixFactorization:
    return matrix_factorization.MatrixFactorization(4, 4)


def test_matrix_factorization_updates_compile_for_any_user_and_item():
    triples = [(0, 1, 4.0), (1, 2, 3.0), (2, 0, 5.0), (3, 1, 2.0), (1, 3, 1.0)]
    update = lockstep(matrix_factorization.MatrixFactorization.sgd_update, make_mf, triples)
    assert_compiled(update)
    assert "relaxing (r, u, i) to ?" in janus.explain(update)
    users, items, values = RATINGS[:, 0].astype(int), RATINGS[:, 1].astype(int), RATINGS[:, 2]
    for entry in (matrix_factorization.MatrixFactorization.full_batch_step, matrix_factorization.MatrixFactorization.rmse):
        assert_compiled(lockstep(entry, make_mf, [(users, items, values)] * 3))  # np.add.at scatters


def test_matrix_factorization_epoch_splits_at_the_shuffle_and_compiles_the_loop_over_triples():
    """``u, i, r = ratings[idx]`` then ``self.sgd_update(int(u), int(i), r)``: ``int`` of a float
    passed on at once is a graph int (truncated, guarded to fit int64)."""
    calls = [(RATINGS, np.random.default_rng(seed)) for seed in range(4)]
    epoch = lockstep(matrix_factorization.MatrixFactorization.epoch, make_mf, calls)
    assert_split(epoch, "Generator.permutation")
    (version,) = epoch.versions.values()
    assert sum(v.calls for v in version.resume.versions.values()) >= 1, janus.explain(epoch)


# ---- an MLP with dataclass parameters and loss helpers from another module ------------------------------------
X_MLP, Y_MLP = RNG.standard_normal((6, 4)), RNG.integers(0, 3, 6)


def test_dataclass_mlp_trains_with_setattr_momentum_and_evaluates_compiled():
    """``setattr(self.v, name, v)`` over ``("W1", "b1", "W2", "b2")``; label smoothing with
    ``np.take_along_axis`` / ``np.put_along_axis``; top-k with ``np.argsort``; a dict of metrics."""
    make = lambda: dataclass_mlp.Trainer(4, 8, 3)  # noqa: E731
    assert_compiled(lockstep(dataclass_mlp.Trainer.train_step, make, [(X_MLP, Y_MLP)] * 4))
    assert_compiled(lockstep(dataclass_mlp.Trainer.evaluate, make, [(X_MLP, Y_MLP)] * 3))
