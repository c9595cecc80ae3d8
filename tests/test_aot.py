"""janus.export and janus-compile file.py:function: a model trained in Python, exported, and run
by IREE's own iree-run-module in another process, matching the Python result."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import janus
from janus.frontend.values import NotConvertible
from janus.tools.janus_compile import main

BIN = Path(sys.executable).parent
MODEL_SOURCE = '''
import numpy as np


def predict(x, W1, b1, W2, b2):
    h = np.maximum(x @ W1 + b1, 0.0)
    return h @ W2 + b2
'''
namespace: dict = {}
exec(compile(MODEL_SOURCE, "<model>", "exec"), namespace)
predict = namespace["predict"]


def train(steps: int = 20, lr: float = 0.1) -> dict[str, np.ndarray]:
    """A 2-layer MLP regressing a random linear map, trained by hand-written SGD in NumPy."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((64, 8)).astype(np.float32)
    y = x @ rng.standard_normal((8, 3)).astype(np.float32)
    p = {"W1": rng.standard_normal((8, 16)).astype(np.float32) * 0.3, "b1": np.zeros(16, np.float32),
         "W2": rng.standard_normal((16, 3)).astype(np.float32) * 0.3, "b2": np.zeros(3, np.float32)}
    for _ in range(steps):
        h = np.maximum(x @ p["W1"] + p["b1"], 0.0)
        d = 2 * (h @ p["W2"] + p["b2"] - y) / len(x)
        dh = (d @ p["W2"].T) * (h > 0)
        for name, grad in (("W2", h.T @ d), ("b2", d.sum(0)), ("W1", x.T @ dh), ("b1", dh.sum(0))):
            p[name] -= lr * grad
    return p


PARAMS = train()
X = np.random.default_rng(1).standard_normal((5, 8)).astype(np.float32)


def run_exported(command: list[str], folder: Path, inputs: dict[str, np.ndarray]) -> np.ndarray:
    """Run the manifest's iree-run-module command in ``folder`` (a process without Python)."""
    for name, value in inputs.items():
        np.save(folder / f"{name}.npy", value)
    done = subprocess.run([BIN / command[0], *command[1:], "--output=@out.npy"], cwd=folder,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    return np.load(folder / "out.npy")


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    folder = tmp_path_factory.mktemp("export")
    return janus.export(predict, X, *PARAMS.values(), path=folder / "mlp.vmfb", params=list(PARAMS))


def test_export_writes_vmfb_manifest_and_parameters(exported) -> None:
    manifest = json.loads(exported.manifest.read_text())
    info = manifest["export"]
    assert manifest["functions"]["predict"]["inputs"][0] == {"tensor": [5, 8], "element": "f32"}
    assert [i["name"] for i in info["inputs"]] == ["x", "W1", "b1", "W2", "b2"]
    assert info["inputs"][0] == {"name": "x", "mlir": "tensor<5x8xf32>", "shape": [5, 8], "dtype": "float32"}
    assert info["outputs"] == [{"mlir": "tensor<5x3xf32>", "shape": [5, 3], "dtype": "float32"}]
    for entry in info["inputs"][1:]:
        np.testing.assert_array_equal(np.load(exported.vmfb.parent / entry["file"]), PARAMS[entry["name"]])
    assert exported.command[:4] == ["iree-run-module", "--device=local-sync", "--module=mlp.vmfb", "--function=predict"]


def test_iree_run_module_matches_python(exported) -> None:
    x = np.random.default_rng(2).standard_normal((5, 8)).astype(np.float32)  # not the example input
    got = run_exported(exported.command, exported.vmfb.parent, {"x": x})
    want = predict(x, *PARAMS.values())
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_runtime_loads_the_export_in_a_fresh_context(exported) -> None:
    from janus.runtime import CompiledModule

    got = CompiledModule.load(exported.vmfb)["predict"](X, *PARAMS.values())
    np.testing.assert_allclose(got, predict(X, *PARAMS.values()), rtol=1e-5, atol=1e-6)


def test_janus_compile_exports_a_python_file(tmp_path: Path, capsys) -> None:
    (tmp_path / "model.py").write_text(MODEL_SOURCE)
    np.savez(tmp_path / "example.npz", **PARAMS)
    argv = [f"{tmp_path / 'model.py'}:predict", "--example-args", str(tmp_path / "example.npz"),
            "--arg-shape", "x=5x8xf32", "--params", "W1,b1,W2,b2", "-o", str(tmp_path / "model.vmfb")]
    assert main(argv) == 0
    assert "run it with: iree-run-module" in capsys.readouterr().out
    info = json.loads((tmp_path / "model.vmfb.json").read_text())["export"]
    got = run_exported(info["iree_run_module"], tmp_path, {"x": X})
    np.testing.assert_allclose(got, predict(X, *PARAMS.values()), rtol=1e-5, atol=1e-6)


def test_janus_compile_reports_missing_example_arguments(tmp_path: Path, capsys) -> None:
    (tmp_path / "model.py").write_text(MODEL_SOURCE)
    assert main([f"{tmp_path / 'model.py'}:predict", "--arg-shape", "x=5x8xf32"]) == 1
    assert "no example value for parameter 'W1'" in capsys.readouterr().err
    assert main([f"{tmp_path / 'model.py'}:predict", "--arg-shape", "x=5by8"]) == 1
    assert "bad shape '5by8'" in capsys.readouterr().err


def speculative(x):
    if x.sum() > 0:
        return x * 2.0
    return x - 1.0


def test_speculated_branch_is_a_guard_of_the_export(tmp_path: Path) -> None:
    positive = np.ones(4, np.float32)
    done = janus.export(speculative, positive, path=tmp_path / "branch.vmfb")
    assert [g["kind"] for g in done.info["guards"]] == ["branch"]
    np.testing.assert_array_equal(run_exported(done.command, tmp_path, {"x": positive * 3}), positive * 6)
    np.save(tmp_path / "x.npy", -positive)
    failed = subprocess.run([BIN / done.command[0], *done.command[1:]], cwd=tmp_path, capture_output=True, text=True)
    assert failed.returncode != 0 and "FAILED_PRECONDITION" in failed.stdout + failed.stderr


def test_functions_without_a_graph_are_refused_with_the_reason(tmp_path: Path) -> None:
    def noisy(x):
        print("side effect")
        return x

    with pytest.raises(NotConvertible, match="print"):
        janus.export(noisy, X, path=tmp_path / "noisy.vmfb")
    assert not (tmp_path / "noisy.vmfb").exists()


class Regressor:
    """A model holding its parameters as attributes, as a trained model in Python does."""

    def __init__(self, params: dict[str, np.ndarray]) -> None:
        self.W1, self.b1, self.W2, self.b2 = (params[k].copy() for k in ("W1", "b1", "W2", "b2"))

    def infer(self, x):
        h = np.maximum(x @ self.W1 + self.b1, 0.0)
        return h @ self.W2 + self.b2


def test_bound_method_exports_the_attributes_it_reads(tmp_path: Path) -> None:
    model = Regressor(PARAMS)
    done = janus.export(model.infer, X, path=tmp_path / "model.vmfb")
    heap = json.loads(done.manifest.read_text())["functions"]["infer"]["heap"]
    assert len(heap["reads"]) == 4 and not heap["writes"]
    assert [i["name"] for i in done.info["inputs"]] == ["x", "self.W1", "self.b1", "self.W2", "self.b2"]
    model.W1 = model.W1 * 0  # the export captured the values it read
    x = np.random.default_rng(3).standard_normal((5, 8)).astype(np.float32)
    got = run_exported(done.command, tmp_path, {"x": x})
    np.testing.assert_allclose(got, predict(x, *PARAMS.values()), rtol=1e-5, atol=1e-6)


def test_exports_that_write_objects_are_refused(tmp_path: Path) -> None:
    class Counter:
        def __init__(self) -> None:
            self.total = np.zeros(8, np.float32)

        def add(self, x):
            self.total = self.total + x.sum(0)
            return self.total

    with pytest.raises(NotConvertible, match="writes Python objects"):
        janus.export(Counter().add, X, path=tmp_path / "counter.vmfb")
