"""A third set of programs written the way public NumPy scripts are (``tests/helpers/peer_programs``:
an MLP built from a config list with activations in dicts of functions, a VAE with a
``Generator`` and ``@property``/``@staticmethod``/``@classmethod`` members, an RNN trained with
truncated BPTT that keeps its states in lists on the object, optimizer classes over
``(param, grad)`` pairs), run unchanged with ``janus.jit`` added from outside against the same
code run by Python: results, types, object state, the ``Generator`` stream. Each test asserts how
far each entry point converted, and for what still runs in Python, the reason."""

from __future__ import annotations

import numpy as np

import janus
from tests.helpers.peer_programs import config_mlp, optimizers, rnn_bptt, vae
from tests.helpers.peer_state import assert_compiled, assert_split, lockstep, same_tree


RNG = np.random.default_rng(0)
X, Y = RNG.standard_normal((5, 6)), RNG.integers(0, 4, 5)


# ---- an MLP from a config list: activations in dicts of functions, kept on the layers -----------
def test_a_layer_function_takes_its_activation_as_a_parameter():
    W, b = RNG.standard_normal((6, 3)), np.zeros(3)
    dense = janus.jit(config_mlp.dense, warmup=1)
    for act in (None, config_mlp.relu, config_mlp.sigmoid, None):  # the default np.tanh, two module functions
        args = (X, W, b) if act is None else (X, W, b, act)
        same_tree(dense(*args), config_mlp.dense(*args))
    assert len(dense.versions) == 3
    assert_compiled(dense)


def test_config_mlp_trains_as_in_python_and_compiles():
    train = lockstep(config_mlp.Network.train_step, config_mlp.Network, [(X, Y)] * 4)
    assert_compiled(train)
    assert "heap self.layers[0].act: identity <function relu" in janus.explain(train)
    predict = lockstep(config_mlp.Network.predict, config_mlp.Network, [(X,)] * 3)
    assert_compiled(predict)


# ---- a VAE: a Generator on the model, properties, static and class methods, one layer two names ---
XV = (RNG.random((4, 8)) > 0.5).astype(float)


def make_vae() -> vae.VAE:
    return vae.VAE.from_config({"n_in": 8, "n_hidden": 16, "n_latent": 2, "seed": 3})


def test_vae_loss_draws_the_same_noise_and_splits_at_the_generator():
    loss = lockstep(vae.VAE.loss, make_vae, [(XV,)] * 4)  # the Generator's state compared after each call
    assert_split(loss, "VAE.reparameterize")


def test_vae_sample_reads_a_property_and_splits_at_the_generator():
    sample = lockstep(vae.VAE.sample, make_vae, [(3,)] * 3)
    assert_split(sample, "Generator.standard_normal")
    assert "property VAE.latent_dim" in janus.explain(sample)


def test_vae_output_layer_updated_through_its_second_name_compiles():
    shrink = lockstep(vae.VAE.shrink_output, make_vae, [(0.99,)] * 3)
    assert_compiled(shrink)
    assert "heap self.dec[-1]: the same object as self.out (identity)" in janus.explain(shrink)
    encode = lockstep(vae.VAE.encode, make_vae, [(XV,)] * 3)
    assert_compiled(encode)


# ---- an RNN with truncated BPTT: states in lists on the object ------------------------------------
SEQ = [0, 1, 2, 3, 4, 5, 0, 1, 2]


def test_rnn_bptt_chunks_train_as_in_python_and_compile():
    chunks = [(SEQ[p:p + 6], SEQ[p + 1:p + 7]) for p in (0, 1, 2, 0)]
    train = lockstep(rnn_bptt.RNN.train_chunk, rnn_bptt.RNN, chunks)
    assert_compiled(train)


def test_rnn_forward_returning_its_state_list_runs_in_python():
    forward = lockstep(rnn_bptt.RNN.forward, rnn_bptt.RNN, [([1, 2, 3],)] * 3, fallback="silent")
    assert "returns a list it also stores on the heap" in janus.explain(forward)


# ---- optimizer classes over (param, grad) pairs ----------------------------------------------------
PARAMS = [RNG.standard_normal((3, 3)), RNG.standard_normal(3)]
TARGETS = [np.zeros((3, 3)), np.ones(3)]


def pairs() -> list:
    return optimizers.quadratic_grads([p.copy() for p in PARAMS], TARGETS)


def test_optimizers_update_the_pairs_arrays_in_place_as_in_python_and_compile():
    for make, entry in ((optimizers.SGDMomentum, optimizers.SGDMomentum.step),
                        (lambda: optimizers.Adam(2), optimizers.Adam.step),
                        (lambda: optimizers.Adam.from_config(2, {"lr": 0.05}), optimizers.Adam.step_fused)):
        step = janus.jit(entry, warmup=1)
        jitted, plain = make(), make()
        for _ in range(5):
            got, want = pairs(), pairs()
            same_tree(step(jitted, got), entry(plain, want))
            same_tree(got, want)  # the parameters, updated in place
            same_tree(jitted, plain)
        assert_compiled(step)
        assert "argument array 0: updated in place" in janus.explain(step)


def train(opt: optimizers.Adam, params: list, targets: list, n: int) -> list:
    for _ in range(n):
        opt.step(optimizers.quadratic_grads(params, targets))
    return params


def test_an_optimizer_loop_over_a_parameter_list_compiles_once_its_moments_are_arrays():
    """``self.m = [0.0] * n``: the first call sees Python floats (then arrays), the step counter varies."""
    jf = janus.jit(train, warmup=1)
    jitted, plain = optimizers.Adam.from_config(2, {"lr": 0.05}), optimizers.Adam.from_config(2, {"lr": 0.05})
    for _ in range(6):
        got, want = [p.copy() for p in PARAMS], [p.copy() for p in PARAMS]
        result = jf(jitted, got, TARGETS, 3)
        same_tree(result, train(plain, want, TARGETS, 3))
        assert all(a is b for a, b in zip(result, got))  # the caller's arrays (the list itself is rebuilt)
        same_tree(got, want)
        same_tree(jitted, plain)
    assert_compiled(jf)
