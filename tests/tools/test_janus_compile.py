"""janus-compile: .mlir in, .vmfb + manifest out, run by IREE's own iree-run-module."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from tests.helpers import GUARD_PIPELINE, module_path

from janus.tools.janus_compile import main

BIN = Path(sys.executable).parent


def run_module(vmfb: Path, function: str, *inputs: str) -> subprocess.CompletedProcess:
    """Run ``function`` with IREE's iree-run-module, the deployment path without Python."""
    command = [BIN / "iree-run-module", "--device=local-sync", f"--module={vmfb}", f"--function={function}"]
    return subprocess.run(command + [f"--input={i}" for i in inputs], capture_output=True, text=True)


@pytest.fixture(scope="module")
def vmfb(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("cli") / "guards.vmfb"
    assert main([str(module_path("guards")), "-o", str(out), "--pipeline", GUARD_PIPELINE]) == 0
    return out


def test_writes_vmfb_and_manifest(vmfb: Path) -> None:
    manifest = json.loads(Path(f"{vmfb}.json").read_text())
    assert manifest["target"] == "cpu"
    assert set(manifest["functions"]) == {"scale", "next_below"}
    next_below = manifest["functions"]["next_below"]
    assert (next_below["inputs"], next_below["results"]) == ([{"scalar": "i64"}] * 2, [{"scalar": "i64"}])


def test_iree_run_module_runs_the_vmfb(vmfb: Path) -> None:
    scaled = run_module(vmfb, "scale", "4xf32=1,2,3,4", "2.5")
    assert scaled.returncode == 0, scaled.stderr
    assert "4xf32=2.5 5 7.5 10" in scaled.stdout
    counted = run_module(vmfb, "next_below", "3", "10")
    assert counted.returncode == 0, counted.stderr
    assert "i64=4" in counted.stdout


def test_iree_run_module_reports_a_failed_guard(vmfb: Path) -> None:
    failed = run_module(vmfb, "next_below", "10", "3")
    assert failed.returncode != 0
    assert "FAILED_PRECONDITION; janus.guard id=2 kind=branch source=model.py:14" in failed.stdout + failed.stderr


def test_console_script_passes_iree_flags_through(tmp_path: Path) -> None:
    out = tmp_path / "guards_vulkan.vmfb"
    command = [BIN / "janus-compile", module_path("guards"), "-o", out, "--target", "vulkan"]
    done = subprocess.run(command + ["--pipeline", GUARD_PIPELINE, "--iree-vulkan-target=rdna3"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert b'arch = "rdna3"' in out.read_bytes()
    assert json.loads(Path(f"{out}.json").read_text())["target"] == "vulkan"


def test_emit_mlir_prints_the_lowered_module(capsys) -> None:
    assert main([str(module_path("guards")), "--emit-mlir", "--pipeline", GUARD_PIPELINE]) == 0
    printed = capsys.readouterr().out
    assert 'cf.assert %0, "janus.guard id=1 kind=value source=model.py:10"' in printed
    assert '"janus.guard"(' not in printed


def test_bad_input_is_a_located_error_with_exit_1(tmp_path: Path, capsys) -> None:
    bad = tmp_path / "bad.mlir"
    bad.write_text("func.func @f(%x: i64) -> i64 {\n  %y = arith.addi %x, %x : i32\n  return %y : i64\n}\n")
    assert main([str(bad), "-o", str(tmp_path / "bad.vmfb")]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"{bad}:2:19: error: use of value '%x' expects different type")
    assert "Traceback" not in err
    assert not (tmp_path / "bad.vmfb").exists()


def test_cyclic_module_is_refused(tmp_path: Path, capsys) -> None:
    path = module_path("recursive")
    assert main([str(path), "-o", str(tmp_path / "r.vmfb"), "--pipeline", "janus-verify"]) == 1
    assert f"{path}:3:1: error: call graph has a cycle (@factorial)" in capsys.readouterr().err


def test_missing_input_file(capsys) -> None:
    assert main(["no/such/file.mlir"]) == 1
    assert capsys.readouterr().err == "janus-compile: no/such/file.mlir: No such file or directory\n"


PYTHON_MODEL = """
import numpy as np

def layer(x, W):
    return np.tanh(x @ W)
"""


@pytest.fixture
def python_model(tmp_path: Path) -> tuple[Path, dict[str, np.ndarray]]:
    (tmp_path / "model.py").write_text(PYTHON_MODEL)
    rng = np.random.default_rng(0)
    example = {"x": rng.standard_normal((2, 3)).astype(np.float32), "W": rng.standard_normal((3, 4)).astype(np.float32)}
    np.savez(tmp_path / "example.npz", **example)
    return tmp_path, example


def test_python_export_prints_a_command_that_runs_as_printed(python_model, capsys) -> None:
    folder, example = python_model
    assert main([f"{folder / 'model.py'}:layer", "--example-args", str(folder / "example.npz"),
                 "--params", "W", "-o", str(folder / "out" / "layer.vmfb")]) == 0
    command = capsys.readouterr().out.split("run it with: ", 1)[1].strip()
    done = subprocess.run(f"{command} --output=@{folder / 'got.npy'}", shell=True, capture_output=True, text=True,
                          cwd="/", env={**os.environ, "PATH": f"{BIN}:{os.environ['PATH']}"})
    assert done.returncode == 0, done.stdout + done.stderr
    np.testing.assert_allclose(np.load(folder / "got.npy"), np.tanh(example["x"] @ example["W"]), rtol=1e-5)


def test_emit_mlir_of_a_python_function_is_the_lowered_module(python_model, capsys) -> None:
    folder, _ = python_model
    assert main([f"{folder / 'model.py'}:layer", "--example-args", str(folder / "example.npz"), "--emit-mlir"]) == 0
    printed = capsys.readouterr().out
    assert "func.func @layer(%arg0: tensor<2x3xf32>, %arg1: tensor<3x4xf32>) -> tensor<2x4xf32>" in printed
    assert "math.tanh" in printed and "janus." not in printed
    assert not (folder / "model.vmfb").exists()


@pytest.mark.parametrize("tool", ["janus_opt", "janus_compile", "janus_bench"])
def test_every_cli_prints_janus_and_iree_versions(tool: str) -> None:
    done = subprocess.run([sys.executable, "-m", f"janus.tools.{tool}", "--version"], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[2])})
    assert done.returncode == 0, done.stderr
    assert re.fullmatch(rf"{tool.replace('_', '-')}: janus \S+, iree-base-compiler 3\.13\.\S+, "
                        r"iree-base-runtime 3\.13\.\S+\n", done.stdout)
