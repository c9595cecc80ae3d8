"""``janus.distributed`` in one process (size 1): the API's checks and the traced form."""

from __future__ import annotations

import numpy as np
import pytest

import janus
import janus.distributed as dist


def test_allreduce_keeps_the_structure_and_values() -> None:
    g = {"w": np.ones((2, 3), np.float32), "rest": [np.arange(3.0), np.int64(4)]}
    out = dist.allreduce(g, op="sum")
    assert set(out) == {"w", "rest"} and isinstance(out["rest"], list)
    np.testing.assert_array_equal(out["w"], g["w"])
    np.testing.assert_array_equal(out["rest"][0], np.arange(3.0))
    assert out["rest"][1] == 4 and out["rest"][1].dtype == np.int64


@pytest.mark.parametrize("x, op, error", [
    (np.ones(2, np.float32), "max", ValueError),
    (np.ones(2, np.int64), "mean", TypeError),
    (np.ones(2, bool), "sum", TypeError),
    ({"a": "text"}, "sum", TypeError),
])
def test_allreduce_rejects(x: object, op: str, error: type) -> None:
    with pytest.raises(error):
        dist.allreduce(x, op=op)


def test_traced_allreduce_is_a_call_of_the_host_module() -> None:
    @janus.jit
    def step(w: np.ndarray, g: np.ndarray, b: np.ndarray) -> tuple:
        r = dist.allreduce({"g": g * 2.0, "b": b})
        return w - 0.5 * r["g"], r["b"]

    w, g, b = np.ones((3, 2), np.float32), np.full((3, 2), 0.25, np.float32), np.arange(4.0)
    for _ in range(5):
        got_w, got_b = step(w, g, b)
        np.testing.assert_allclose(got_w, w - 0.25)
        np.testing.assert_array_equal(got_b, b)
    version = next(iter(step.versions.values()))
    assert version.calls == 2 and version.graph.text.count("call @janus_mpi.allreduce") == 2  # f32 and f64


def test_broadcast_parameters_walks_attributes_dicts_and_lists() -> None:
    class Layer:
        def __init__(self) -> None:
            self.w = np.ones(2)

    class Model:
        def __init__(self) -> None:
            self.layers = [Layer(), {"b": np.zeros(3)}]
            self.lr = 0.1

    model = Model()
    dist.broadcast_parameters(model)  # one rank: nothing changes, the walk and the check run
    np.testing.assert_array_equal(model.layers[0].w, np.ones(2))
    assert dist.broadcast({"any": 1}) == {"any": 1}
