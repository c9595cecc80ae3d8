"""A fifth set of programs written the way public NumPy scripts are (``tests/helpers/peer_programs``:
a two-layer GCN on a dense normalized adjacency with a ``cache`` dict, a self-organizing map, a
Hopfield network, numpy-ml style layers with ``parameters``/``gradients``/``derived_variables``
dicts, an RBM trained by contrastive divergence, a discrete HMM (scaled forward, posteriors,
Viterbi), a Gaussian mixture fitted by EM and tabular Q-learning on a grid world), run unchanged
with ``janus.jit`` added from outside against the same code run by Python: results, types, object
state, the ``Generator`` streams. Each test asserts how far each entry point converted, and for
what still runs in Python, why."""

from __future__ import annotations

import numpy as np

import janus
from tests.helpers.peer_programs import gcn, gmm, hmm, hopfield, numpyml_layers, qlearning, rbm, som
from tests.helpers.peer_state import assert_compiled, assert_split, lockstep, same_tree

RNG = np.random.default_rng(5)


# ---- a GCN: D^-1/2 (A + I) D^-1/2, intermediates in a cache dict, CE over labelled nodes -------------
A = (RNG.random((6, 6)) < 0.4).astype(float)
A = np.maximum(A, A.T)
np.fill_diagonal(A, 0)
A_NORM = gcn.normalize_adjacency(A)
FEATURES, LABELS, TRAIN_IDX = RNG.standard_normal((6, 4)), RNG.integers(0, 3, 6), np.array([0, 2, 3, 5])


def test_gcn_normalizes_the_adjacency_trains_and_scores_as_in_python_and_compiles():
    """``self.cache = {...}`` of graph arrays in ``forward`` (read back in ``backward``) is stored as a dict."""
    normalize = janus.jit(gcn.normalize_adjacency, warmup=1)
    for _ in range(3):
        same_tree(normalize(A), gcn.normalize_adjacency(A))
    assert_compiled(normalize)
    calls = [(A_NORM, FEATURES, LABELS, TRAIN_IDX)] * 4
    train = lockstep(gcn.GCN.train_step, lambda: gcn.GCN(4, 5, 3), calls)
    assert_compiled(train)
    score = lockstep(gcn.GCN.accuracy, lambda: gcn.GCN(4, 5, 3), calls[:3])
    assert_compiled(score)


# ---- a self-organizing map: BMU by argmin of norms, np.unravel_index, decays from a step counter ------
DATA = RNG.random((5, 3))


def test_som_online_updates_and_epochs_match_python_and_compile():
    update = lockstep(som.SOM.update, lambda: som.SOM(3, 3, 3), [(x,) for x in DATA])
    assert_compiled(update)
    assert "heap self.t: int (any value, a graph input)" in janus.explain(update)
    epoch = lockstep(som.SOM.train_epoch, lambda: som.SOM(3, 3, 3), [(DATA,)] * 4)
    assert_compiled(epoch)


# ---- a Hopfield network: Hebbian outer products, np.fill_diagonal, recall by np.sign ------------------
PATTERNS = np.where(RNG.standard_normal((2, 8)) >= 0, 1.0, -1.0)
NOISY = PATTERNS[0] * np.array([-1, -1, 1, 1, 1, 1, 1, 1.0])


def stored() -> hopfield.Hopfield:
    net = hopfield.Hopfield(8)
    net.store(PATTERNS)
    return net


def test_hopfield_storage_and_energy_compile():
    store = lockstep(hopfield.Hopfield.store, lambda: hopfield.Hopfield(8), [(PATTERNS,)] * 3)
    assert_compiled(store)  # the heap matrix's diagonal zeroed in place
    energy = lockstep(hopfield.Hopfield.energy, stored, [(NOISY,)] * 3)
    assert_compiled(energy)


def test_hopfield_recall_splits_where_python_decides_on_array_values():
    recall = lockstep(hopfield.Hopfield.recall, stored, [(NOISY,)] * 3)
    assert_split(recall, "bool")  # ``if np.array_equal(s_new, s): return``: the loop's exit is a value
    shuffled = lockstep(hopfield.Hopfield.recall_async, stored, [(NOISY, np.random.default_rng(3))] * 3)
    (version,) = shuffled.versions.values()  # the permutation drawn in Python after a compiled first segment
    assert version.graph.boundary is not None and version.calls >= 2 and not shuffled.fallbacks, janus.explain(shuffled)
    # the sweep after it runs in Python: its resume function takes the state array as an argument
    # (``s[i] = 1.0 if ... else -1.0`` updates that array, and the next boundary needs it in Python)
    assert "an argument array updated in place before a segment boundary" in janus.explain(shuffled)


# ---- numpy-ml style layers: parameter, gradient and derived-variable dicts ------------------------------
XL, YL = RNG.standard_normal((4, 3)), RNG.standard_normal((4, 2))


def test_numpyml_layers_train_as_in_python():
    train = lockstep(numpyml_layers.Sequential.train_step, lambda: numpyml_layers.Sequential([3, 5, 2]), [(XL, YL)] * 4)
    # ``self.X.append(X)`` onto a list on the heap is committed with the segment: forward and
    # backward compiled; ``k in self.parameters`` (a heap dict) in ``update`` runs in Python
    assert_split(train, "LayerBase.update")
    assert "list.append()" not in janus.explain(train)
    forward = lockstep(numpyml_layers.Sequential.forward, lambda: numpyml_layers.Sequential([3, 5, 2]), [(XL,)] * 4)
    assert_compiled(forward)  # each call appends to the layers' lists, as in Python
    net = numpyml_layers.Sequential([3, 5, 2])
    assert janus.jit(numpyml_layers.Sequential.summary, warmup=1, fallback="silent")(net) == net.summary()


# ---- an RBM: Bernoulli samples from a Generator, CD-k, free energy -------------------------------------
V = (RNG.random((4, 6)) < 0.5).astype(float)


def test_rbm_contrastive_divergence_keeps_the_generator_stream_and_compiles_the_rest():
    cd = lockstep(rbm.RBM.contrastive_divergence, lambda: rbm.RBM(6, 3, k=2), [(V,)] * 4)
    assert_split(cd, "RBM.sample_h")  # Generator.random inside: the draw runs in Python
    for entry in (rbm.RBM.free_energy, rbm.RBM.reconstruct):
        assert_compiled(lockstep(entry, lambda: rbm.RBM(6, 3), [(V,)] * 3))


# ---- an HMM: scaled forward, posteriors, Viterbi with back-pointers -----------------------------------
PI, TRANS = np.array([0.6, 0.4]), np.array([[0.7, 0.3], [0.4, 0.6]])
EMIT = np.array([[0.5, 0.4, 0.1], [0.1, 0.3, 0.6]])
OBS = [0, 1, 2, 2, 1, 0]


def make_hmm() -> hmm.HMM:
    return hmm.HMM(PI.copy(), TRANS.copy(), EMIT.copy())


def test_hmm_likelihood_posterior_and_viterbi_match_python_and_compile():
    for entry in (hmm.HMM.log_likelihood, hmm.HMM.posterior, hmm.HMM.viterbi):
        assert_compiled(lockstep(entry, make_hmm, [(OBS,)] * 3))
    decode = lockstep(hmm.HMM.viterbi, make_hmm, [(np.array(OBS),)] * 3)  # observations as an array: gathers
    assert_compiled(decode)


# ---- a Gaussian mixture by EM: det, inv, einsum, per-component writes into heap arrays ------------------
XG = np.vstack([RNG.standard_normal((5, 2)), RNG.standard_normal((5, 2)) + 3])


def test_gmm_em_steps_and_a_short_fit_compile():
    step = lockstep(gmm.GMM.step, lambda: gmm.GMM(XG, 2), [(XG,)] * 4)
    assert_compiled(step)
    fit = lockstep(gmm.GMM.fit, lambda: gmm.GMM(XG, 2), [(XG, 2)] * 3)
    assert_compiled(fit)  # ``if abs(ll - prev) < tol: break`` speculated: never taken in the profile


# ---- tabular Q-learning: a Python environment, epsilon-greedy from a Generator --------------------------
def test_q_learning_updates_compile_for_any_state_and_episodes_split_at_the_policy():
    transitions = [(0, 1, -0.01, 4, False), (4, 3, 1.0, 5, True), (1, 2, -0.01, 2, False), (5, 0, -0.01, 1, False)]
    learn = lockstep(qlearning.QAgent.learn, lambda: qlearning.QAgent(16, 4), transitions)
    assert not learn.fallbacks and sum(v.calls for v in learn.versions.values()) >= 1, janus.explain(learn)
    assert "relaxing (s, a, s2) to ?" in janus.explain(learn)
    episode = lockstep(qlearning.QAgent.run_episode, lambda: qlearning.QAgent(16, 4), [(qlearning.GridWorld(),)] * 3)
    assert_split(episode, "QAgent.act")  # ``self.rng.random() < self.epsilon``: the draw runs in Python
