"""Programs written the way other people write NumPy deep learning (``tests/helpers/peer_programs``),
run unchanged with ``janus.jit`` added from outside, against the same code run by Python:
results (values, types, dtypes), heap state after the steps (parameters, optimizer state,
hidden state), the RNG stream and printed output. Each test also asserts that the array
work compiled: a version with calls, and no boundary unless the program calls something
that must run in Python (a ``Generator`` method, a logged line)."""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
import pytest

import janus
from janus.frontend.jit import JitFunction
from tests.helpers import assert_same
from tests.helpers.peer_state import same_tree
from tests.helpers.peer_programs import adam, attention, conv, decoder, features, geometry, gru, image_stats, kmeans, layers, logreg, mlp_dict


def only_version(jf: JitFunction) -> Any:
    (version,) = jf.versions.values()
    return version


def fully_compiled(jf: JitFunction, calls: int) -> None:
    """One version, no segment boundary, that ran ``calls`` compiled calls."""
    version = only_version(jf)
    assert version.graph.boundary is None and version.calls == calls, janus.explain(jf)


# ---- an MLP classifier, parameters in a dict -------------------------------------------------
def test_mlp_with_a_params_dict_trains_as_in_python():
    rng = np.random.default_rng(1)
    X, y = rng.standard_normal((16, 6)).astype(np.float32), rng.integers(0, 3, 16)
    params_jit, params_py = mlp_dict.init_params(6, 8, 3), mlp_dict.init_params(6, 8, 3)
    arrays = dict(params_jit)
    step = janus.jit(mlp_dict.train_step, warmup=1)
    for _ in range(4):
        same_tree(step(params_jit, X, y, 0.1), mlp_dict.train_step(params_py, X, y, 0.1))
        same_tree(params_jit, params_py)
    assert all(params_jit[k] is arrays[k] for k in arrays)  # ``params[k] -= ...`` updated the very arrays
    fully_compiled(step, 3)
    assert "with keys ['W1', 'b1', 'W2', 'b2']" in janus.explain(step)


def test_mlp_dict_with_other_keys_is_not_the_same_version():
    rng = np.random.default_rng(2)
    X, y = rng.standard_normal((8, 6)).astype(np.float32), rng.integers(0, 3, 8)
    step = janus.jit(mlp_dict.train_step, warmup=1)
    params = mlp_dict.init_params(6, 8, 3)
    step(params, X, y)
    step(params, X, y)
    reordered = {k: params[k].copy() for k in ("b1", "W1", "W2", "b2")}  # the loop visits keys in another order
    want = {k: v.copy() for k, v in reordered.items()}
    same_tree(step(reordered, X, y), mlp_dict.train_step(want, X, y))
    same_tree(reordered, want)


# ---- a pre-norm attention block ---------------------------------------------------------------
@pytest.mark.parametrize("causal", [True, False])
def test_attention_block_with_a_staticmethod_matches_python(causal):
    block = attention.AttentionBlock(8, 2)
    x = np.random.default_rng(2).standard_normal((2, 5, 8)).astype(np.float32)
    call = janus.jit(attention.AttentionBlock.__call__, warmup=1)
    for _ in range(2):
        assert_same(call(block, x, causal), block(x, causal))
    fully_compiled(call, 1)
    assert "staticmethod" not in janus.explain(call)  # the static method was inlined, its identity guarded
    assert "method AttentionBlock.layer_norm" in janus.explain(call)


def test_attention_block_static_method_rebound_on_the_class_is_not_stale():
    block = attention.AttentionBlock(8, 2, seed=3)
    x = np.random.default_rng(4).standard_normal((1, 4, 8)).astype(np.float32)
    call = janus.jit(attention.AttentionBlock.__call__, warmup=1)
    call(block, x)
    saved = attention.AttentionBlock.__dict__["layer_norm"]
    try:
        attention.AttentionBlock.layer_norm = staticmethod(lambda x, gamma, beta, eps=1e-5: x * 2.0)
        assert_same(call(block, x), block(x))
    finally:
        attention.AttentionBlock.layer_norm = saved
    assert_same(call(block, x), block(x))


# ---- Adam on a linear regression ---------------------------------------------------------------
def test_adam_fit_step_matches_python():
    rng = np.random.default_rng(3)
    X, y = rng.standard_normal((20, 4)).astype(np.float32), rng.standard_normal(20).astype(np.float32)
    params_jit = {"w": np.zeros(4, np.float32), "b": np.zeros(1, np.float32)}
    params_py = copy.deepcopy(params_jit)
    opt_jit, opt_py = adam.Adam(params_jit), adam.Adam(params_py)
    fit = janus.jit(adam.fit_step, warmup=1)
    for _ in range(6):
        same_tree(fit(opt_jit, params_jit, X, y), adam.fit_step(opt_py, params_py, X, y))
        same_tree(params_jit, params_py)
        same_tree(opt_jit, opt_py)  # ``t`` stays a Python int
    # the loss (``float(np.mean(...))``, different each step) is a graph value; the step
    # counter ``self.t += 1`` varied between calls, so the version reads it as an int input
    fully_compiled(fit, 2)
    assert "heap opt.t: int (any value, a graph input)" in janus.explain(fit)


class Counter:
    def __init__(self):
        self.n, self.scale = 0, 1.0

    def step(self, x):
        self.n += 1
        self.scale = self.scale * 0.5
        return x * self.scale + self.n


def test_python_scalars_on_the_heap_become_graph_inputs_once_they_vary():
    c_jit, c_py = Counter(), Counter()
    step = janus.jit(Counter.step, warmup=1)
    x = np.ones(2, np.float32)
    for _ in range(8):
        same_tree(step(c_jit, x), c_py.step(x))
        same_tree(c_jit, c_py)  # ``n`` an int, ``scale`` a float, as in Python
    fully_compiled(step, 3)  # each location's first change regenerated once: value -> type
    assert "heap self.n: int (any value, a graph input)" in janus.explain(step)
    c_jit.n = c_py.n = 2 ** 63 - 1  # the next += would leave int64: a guard, then Python's answer
    same_tree(step(c_jit, x), c_py.step(x))
    same_tree(c_jit, c_py)
    c_jit.n = c_py.n = "text"  # another type: the heap check fails, Python raises as it would
    with pytest.raises(TypeError):
        step(c_jit, x)
    assert c_jit.scale == c_py.scale


# ---- a small conv net ---------------------------------------------------------------------------
def test_conv_net_compiles_on_float_images_and_on_uint8_ones():
    net = conv.ConvNet()
    images = np.random.default_rng(4).integers(0, 256, (2, 3, 8, 8))
    for dtype in (np.float32, np.uint8):
        predict = janus.jit(conv.ConvNet.predict, warmup=1)
        pixels = images.astype(dtype)
        for _ in range(2):
            same_tree(predict(net, pixels), net.predict(pixels))
        fully_compiled(predict, 1)


# ---- a GRU in a dataclass --------------------------------------------------------------------------
def test_gru_dataclass_run_matches_python_hidden_state_included():
    cell_jit, cell_py = gru.GRUCell(3, 4), gru.GRUCell(3, 4)
    run = janus.jit(gru.GRUCell.run, warmup=1)
    for seed in range(3):
        xs = np.random.default_rng(seed).standard_normal((6, 2, 3)).astype(np.float32) * 3
        cell_jit.reset(2)
        cell_py.reset(2)
        same_tree(run(cell_jit, xs), cell_py.run(xs))
        same_tree(cell_jit, cell_py)
    fully_compiled(run, 2)


# ---- a layer list with dropout from a Generator on the model ---------------------------------------
def test_layer_list_forward_with_dropout_keeps_the_rng_stream():
    x = np.random.default_rng(6).standard_normal((4, 5)).astype(np.float32)
    model_jit, model_py = layers.MLP([5, 8, 8, 3]), layers.MLP([5, 8, 8, 3])
    forward = janus.jit(layers.MLP.forward, warmup=1)
    for _ in range(4):
        same_tree(forward(model_jit, x), model_py.forward(x))
        same_tree(model_jit.rng, model_py.rng)
    version = only_version(forward)  # compiled segments around each ``self.rng.random`` (run in Python)
    assert version.graph.boundary is not None and version.graph.array_work and version.calls == 3
    assert "Generator.random runs in Python" in janus.explain(forward)
    model_jit.training = model_py.training = False  # evaluation: no Python operation left
    for _ in range(2):
        same_tree(forward(model_jit, x), model_py.forward(x))
    compiled = [v for v in forward.versions.values() if v.graph.boundary is None]
    assert len(compiled) == 1 and compiled[0].calls == 1, janus.explain(forward)


# ---- k-means and PCA steps ----------------------------------------------------------------------
def test_kmeans_steps_match_python():
    rng = np.random.default_rng(7)
    X = np.concatenate([rng.standard_normal((10, 2)) + c for c in ([0, 0], [5, 5], [0, 6])]).astype(np.float32)
    step = janus.jit(kmeans.kmeans_step, warmup=1)
    c_jit = c_py = X[[0, 1, 2]].astype(np.float64)
    for _ in range(4):
        got, want = step(X, c_jit), kmeans.kmeans_step(X, c_py)
        same_tree(got, want)
        c_jit, c_py = got[0], want[0]
    fully_compiled(step, 3)


def test_pca_power_iteration_matches_python():
    X = np.random.default_rng(8).standard_normal((30, 3)).astype(np.float32) * np.float32([3, 1, 0.5])
    pca = janus.jit(kmeans.pca_step, warmup=1)
    v = np.ones(3, np.float32)
    for _ in range(2):
        same_tree(pca(X, v), kmeans.pca_step(X, v))
    fully_compiled(pca, 1)


# ---- logistic regression: namedtuple state, a partial in an attribute, f-string logging ------------
def test_logreg_updates_match_python_with_logging(capsys):
    rng = np.random.default_rng(8)
    X = rng.standard_normal((32, 3))
    y = (X[:, 0] > 0).astype(np.float64)
    trainer = logreg.Trainer.default()
    update = janus.jit(logreg.Trainer.update, warmup=1, fallback="silent")
    s_jit = s_py = logreg.TrainState(np.zeros(3), np.zeros(3), 0)
    for step in range(8):
        verbose = step % 4 == 3
        s_jit, loss_jit = update(trainer, s_jit, X, y, verbose)
        printed = capsys.readouterr().out
        s_py, loss_py = trainer.update(s_py, X, y, verbose)
        assert printed == capsys.readouterr().out and printed.startswith("step") == verbose
        same_tree((s_jit, loss_jit), (s_py, loss_py))
    quiet = [v for v in update.versions.values() if v.graph.boundary is None]
    assert len(quiet) == 1 and quiet[0].calls >= 4, janus.explain(update)
    assert "relaxing (state[2])" in janus.explain(update)  # the step counter, a namedtuple field, is an int input
    logging = [v for v in update.versions.values() if v.graph.boundary is not None]  # the state live at the split
    assert len(logging) == 1 and logging[0].calls >= 1, janus.explain(update)


def test_a_partial_rebound_on_the_trainer_is_not_stale():
    rng = np.random.default_rng(9)
    X, y = rng.standard_normal((8, 3)), (rng.random(8) > 0.5).astype(np.float64)
    trainer = logreg.Trainer.default()
    update = janus.jit(logreg.Trainer.update, warmup=1)
    state = logreg.TrainState(np.zeros(3), np.zeros(3), 0)
    update(trainer, state, X, y)
    update(trainer, state, X, y)
    trainer.objective.keywords["l2"] = 0.5  # the very partial, changed in place
    same_tree(update(trainer, state, X, y), trainer.update(state, X, y))
    trainer.objective = logreg.functools.partial(logreg.loss_and_grad, l2=2.0)
    same_tree(update(trainer, state, X, y), trainer.update(state, X, y))


class Window:
    def __init__(self):
        self.n = 2

    def step(self, x):
        self.n = 5 - self.n  # 2, 3, 2, ...: a shape, never a graph input
        return x[: self.n] * 2.0


def test_a_heap_int_that_fixes_a_shape_stays_exact():
    w_jit, w_py = Window(), Window()
    step = janus.jit(Window.step, warmup=1)
    x = np.arange(4, dtype=np.float32)
    for _ in range(6):
        same_tree(step(w_jit, x), w_py.step(x))
        same_tree(w_jit, w_py)
    assert "heap values kept exact (self.n)" in janus.explain(step)


# ---- NumPy functions people reach for (tests/helpers/peer_programs/{decoder,features,image_stats}.py) ----
def _unsupported_calls(jf: JitFunction) -> set[str]:
    """The calls ``janus.explain`` reports as run in Python (``call to f is not supported``)."""
    report = janus.explain(jf)
    return {line.split("call to ")[1].split(" is not")[0] for line in report.splitlines() if "is not supported" in line}


def test_einsum_decoder_layer_compiles_finfo_mask_and_norm_included():
    params, x = decoder.init(), np.random.default_rng(8).standard_normal((2, 5, 16)).astype(np.float32)
    layer = janus.jit(decoder.layer, warmup=1)
    for _ in range(2):
        same_tree(layer(params, x), decoder.layer(params, x))
    fully_compiled(layer, 1)


def test_feature_pipeline_compiles_all_but_argpartition():
    """``np.argpartition``'s order inside each side is NumPy's introselect's: it runs in Python
    (co-execution); diff, nan_to_num, take_along_axis, argsort, split, roll, tile... compile."""
    rng = np.random.default_rng(9)
    raw = (rng.standard_normal((6, 8)) * 30).astype(np.float32)
    raw[0, 0], raw[1, 1], raw[2, 2] = np.nan, np.inf, -np.inf
    weights = rng.standard_normal((24, 5)).astype(np.float32)
    run = janus.jit(features.pipeline, warmup=1)
    for _ in range(2):
        same_tree(run(raw, weights), features.pipeline(raw, weights))
    assert _unsupported_calls(run) == {"argpartition"}, janus.explain(run)


def test_uint8_image_statistics_compile():
    images = np.random.default_rng(10).integers(0, 256, (3, 6, 6, 3)).astype(np.uint8)
    stats = janus.jit(image_stats.batch_stats, warmup=1)
    for _ in range(2):
        same_tree(stats(images), image_stats.batch_stats(images))
    fully_compiled(stats, 1)
    gray, darker = stats(images)[1:4:2]
    assert gray.dtype == darker.dtype == np.uint8


def test_point_geometry_compiles_rotation_matrix_from_a_nested_list_included():
    rng = np.random.default_rng(11)
    xs, ys = rng.standard_normal(5).astype(np.float32), rng.standard_normal(5).astype(np.float32)
    shift, patch = np.array([0.5, -1.0], np.float32), rng.standard_normal((4, 4)).astype(np.float32)
    transform, augment = janus.jit(geometry.transform, warmup=1), janus.jit(geometry.augment_patch, warmup=1)
    for degrees in (30.0, 30.0):
        same_tree(transform(xs, ys, np.float32(degrees), shift), geometry.transform(xs, ys, np.float32(degrees), shift))
        same_tree(augment(patch, 3), geometry.augment_patch(patch, 3))
    fully_compiled(transform, 1)
    fully_compiled(augment, 1)
