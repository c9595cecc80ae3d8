"""Layer-object programs written the way textbooks and tutorials write them
(``tests/helpers/peer_programs/layer_graph.py``), run unchanged with ``janus.jit`` added from
outside against plain Python: results, types, and every attribute of the model, its layers
and its optimizer after the steps; each entry point compiled (no Python part)."""

from __future__ import annotations

import numpy as np

import janus
from janus.frontend.jit import JitFunction
from tests.helpers.peer_programs import layer_graph as lg
from tests.helpers.peer_state import same_tree


def compiled(jf: JitFunction) -> None:
    assert jf.versions and not jf.fallbacks, janus.explain(jf)
    assert all(v.graph.boundary is None for v in jf.versions.values()), janus.explain(jf)
    assert sum(v.calls for v in jf.versions.values()) >= 1, janus.explain(jf)


def batches(n, classes, one_hot):
    rng = np.random.default_rng(0)
    for _ in range(n):
        labels = rng.integers(0, classes, 10)
        yield rng.standard_normal((10, 12)), np.eye(classes)[labels] if one_hot else labels


def test_textbook_two_layer_net_with_layers_in_an_ordered_dict_and_params_shared_with_them():
    for one_hot in (True, False):
        plain, jitted = lg.TwoLayerNet(12, 20, 5), lg.TwoLayerNet(12, 20, 5)
        plain_opt, jitted_opt = lg.Momentum(), lg.Momentum()
        step, accuracy = janus.jit(lg.train_step), janus.jit(jitted.accuracy)
        for x, t in batches(6, 5, one_hot):
            same_tree(step(jitted, jitted_opt, x, t), lg.train_step(plain, plain_opt, x, t))
            same_tree(accuracy(x, t), plain.accuracy(x, t))
        same_tree(jitted, plain)  # params, every layer's cached inputs and gradients, the loss layer
        same_tree(jitted_opt, plain_opt)
        assert jitted.params["W1"] is jitted.layers["Affine1"].W  # updated in place through one path
        compiled(step)
        compiled(accuracy.func)
        assert "heap net.params['W1']: the same object as net.layers['Affine1'].W (identity)" in janus.explain(step), janus.explain(step)


def test_parameters_parted_from_the_layers_between_calls_are_seen():
    plain, jitted = lg.TwoLayerNet(12, 20, 5), lg.TwoLayerNet(12, 20, 5)
    plain_opt, jitted_opt = lg.Momentum(), lg.Momentum()
    step = janus.jit(lg.train_step)
    data = list(batches(6, 5, True))
    for x, t in data[:3]:
        same_tree(step(jitted, jitted_opt, x, t), lg.train_step(plain, plain_opt, x, t))
    for net in (plain, jitted):  # the optimizer now updates copies; the layers keep the old arrays
        net.params["W1"] = net.params["W1"].copy()
    for x, t in data[3:]:
        same_tree(step(jitted, jitted_opt, x, t), lg.train_step(plain, plain_opt, x, t))
    same_tree(jitted, plain)
    assert jitted.params["W1"] is not jitted.layers["Affine1"].W


def test_mini_framework_whose_sgd_updates_the_layers_that_have_weights():
    (plain, plain_loss), (jitted, jitted_loss) = lg.make_sequential(), lg.make_sequential()
    fit = janus.jit(lg.fit_batch)
    rng = np.random.default_rng(2)
    for _ in range(5):
        x, y = rng.standard_normal((16, 20)), rng.integers(0, 4, 16)
        same_tree(fit(jitted, jitted_loss, x, y), lg.fit_batch(plain, plain_loss, x, y))
    same_tree(jitted, plain)
    same_tree(jitted_loss, plain_loss)
    compiled(fit)
    assert "heap model.layers[1].W: no such attribute" in janus.explain(fit), janus.explain(fit)
