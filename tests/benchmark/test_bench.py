"""janus-bench: plain Python and janus.jit runs of each model compared, reported, and a
disagreement turned into exit code 1. Times are only reported, never checked here."""

from __future__ import annotations

import itertools
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import janus
from janus.benchmark.compare import differences
from janus.benchmark.measure import run
from janus.benchmark.swap import fresh_jit, plain_python
from janus.frontend.jit import JitFunction
from janus.models import MODELS, ModelSpec, Workload, recursion
from janus.tools.janus_bench import main
from tests.helpers.markdown import markdown_rows

FAST = "--min-seconds=0.02"


@janus.jit
def affine_tanh(x: np.ndarray, W: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.tanh(x @ W + b)


def build_affine(size: str) -> Workload:
    """A model today's frontend compiles: the bench must take (and report) the compiled path."""
    rng = np.random.default_rng(0)
    xs = rng.standard_normal((6, 8, 16)).astype(np.float32)
    W, b = rng.standard_normal((16, 32)).astype(np.float32), rng.standard_normal(32).astype(np.float32)
    return Workload(lambda i: affine_tanh(xs[i % 6], W, b), lambda: {"W": W}, 6, 4, "rows", 8, 2 * 8 * 16 * 32)


@janus.jit(warmup=1)
def row_sums(x: np.ndarray) -> np.ndarray:
    return np.tanh(x).sum(axis=1)


def build_resizing(size: str) -> Workload:
    """Batches of 4 rows, then of 7 from step 4 on: the jit compiles again (relaxing the
    batch dim) in the middle of the run."""
    xs = [np.ones((4 if i < 4 else 7, 3), np.float32) * i for i in range(8)]
    return Workload(lambda i: row_sums(xs[i]), dict, 8, 0, "rows", 4, 0.0)


builds = itertools.count()


def build_drifting(size: str) -> Workload:
    """Each build answers differently, so the janus.jit run disagrees with the plain one."""
    offset = float(next(builds))
    return Workload(lambda i: np.float32(i + offset), dict, 5, 1, "steps", 1, 0.0)


@pytest.fixture
def zoo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(MODELS, "affine", ModelSpec("affine", "tanh(x @ W + b)", "overhead", build_affine, (__name__,)))
    monkeypatch.setitem(MODELS, "drifting", ModelSpec("drifting", "disagrees", "overhead", build_drifting, (__name__,)))


def read_report(out: Path) -> dict:
    return {r["model"]: r for r in json.loads((out / "bench.json").read_text())["models"]}


def test_quick_run_agrees_reports_and_takes_the_compiled_path(zoo, tmp_path: Path, capsys) -> None:
    assert main(["--quick", "--models", "affine,gan,treernn-train-b1", "-o", str(tmp_path), "--no-plot", FAST]) == 0
    records = read_report(tmp_path)
    assert all(r["agree"] and not r["mismatches"] for r in records.values())
    affine = records["affine"]
    assert affine["status"] == "compiled" and affine["compiled"]["versions"] == 1
    assert affine["compiled"]["compiled_calls"] >= 2 and affine["compiled"]["compile_seconds"] > 0
    assert affine["flops_per_step"] == 2 * 8 * 16 * 32 and affine["compiled"]["gflops"] > 0
    for r in records.values():  # every imperative call is explained
        assert r["compiled"]["compiled_calls"] > 0 or r["compiled"]["fallbacks"], r
        assert r["imperative"]["items_per_second"] > 0 and r["compiled"]["items_per_second"] > 0
    table = (tmp_path / "bench.md").read_text()
    rows = markdown_rows(table)
    assert set(rows) == set(records)
    assert rows["affine"][-2:] == ["compiled", "yes"]
    assert not (tmp_path / "bench.png").exists()


def test_a_disagreeing_model_fails_the_run(zoo, tmp_path: Path, capsys) -> None:
    assert main(["--quick", "--models", "affine,drifting", "-o", str(tmp_path), "--no-plot", FAST]) == 1
    records = read_report(tmp_path)
    assert records["affine"]["agree"] and not records["drifting"]["agree"]
    assert records["drifting"]["mismatches"][0].startswith("outputs[0]: max abs difference 1 ")
    assert "disagree for: drifting" in capsys.readouterr().err
    assert markdown_rows((tmp_path / "bench.md").read_text())["drifting"][-1] == "**NO**"


def test_ablation_runs_every_stage_compiled_and_agreeing(zoo, tmp_path: Path, capsys) -> None:
    assert main(["--ablation", "--models", "affine", "-o", str(tmp_path), "--no-plot", FAST]) == 0
    (record,) = json.loads((tmp_path / "ablation.json").read_text())["models"]
    stages = record["stages"]
    assert [s["stage"] for s in stages] == ["imperative", "graph, no speculation", "+ unrolling", "+ specialization"]
    assert all(s["agree"] and s["items_per_second"] > 0 for s in stages)
    assert stages[0]["compiled_calls"] == 0 and all(s["compiled_calls"] >= 2 for s in stages[1:])
    assert markdown_rows((tmp_path / "ablation.md").read_text())["affine"][0] == "rows"


def test_ablation_reports_a_disagreeing_stage(zoo, tmp_path: Path, capsys) -> None:
    assert main(["--ablation", "--models", "drifting", "-o", str(tmp_path), "--no-plot", FAST]) == 1
    assert "**DISAGREES**" in (tmp_path / "ablation.md").read_text()
    assert "a stage disagrees with plain Python for: drifting" in capsys.readouterr().err


def test_steps_that_compile_are_not_steady_state() -> None:
    """The first call compiles (jit warm-up 1) and the new batch size compiles again:
    neither step is timed as steady state, though the workload claims no warm-up."""
    spec = ModelSpec("resizing", "row sums, batch 4 then 7", "overhead", build_resizing, (__name__,))
    result = run(spec, "quick", compiled=True, min_seconds=0.0, max_extra_steps=0)
    compiles = result.jit_summary()["compiles"]
    assert compiles >= 2 and result.error is None
    assert len(result.steady_times) == 8 - compiles


def test_unknown_model_is_a_usage_error(capsys) -> None:
    assert main(["--models", "no-such-model"]) == 2
    assert "unknown model(s) no-such-model" in capsys.readouterr().err


def test_console_script_runs_quick_models(tmp_path: Path) -> None:
    script = Path(sys.executable).parent / "janus-bench"
    done = subprocess.run([script, "--quick", "--models", "reinforce,fib", "-o", tmp_path, FAST],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    records = read_report(tmp_path)
    assert set(records) == {"reinforce", "fib"} and all(r["agree"] for r in records.values())
    assert re.search(r"^reinforce: agrees: 2/4 \[\d\d:\d\d<\d\d:\d\d\]$", done.stderr, re.MULTILINE)  # progress
    png = tmp_path / "bench.png"
    assert png.exists() or "no PNG: matplotlib is not installed" in done.stdout


def test_plain_python_removes_every_jit_wrapper_and_restores_them() -> None:
    jitted = recursion.fib
    with plain_python(("janus.models.recursion",)):
        assert recursion.fib is jitted.fn and recursion.fib(10) == 55
    with fresh_jit(("janus.models.recursion",)) as fresh:
        assert isinstance(recursion.fib, JitFunction) and recursion.fib is not jitted
        assert fresh["fib"] is recursion.fib
    assert recursion.fib is jitted


def test_differences_name_what_disagrees() -> None:
    want = {"loss": np.float32(1.0), "W": np.ones((2, 2), np.float32), "n": 3}
    assert differences({"loss": np.float32(1.00001), "W": np.ones((2, 2), np.float32), "n": 3}, want) == []
    assert differences({"loss": np.float64(1.0), "W": want["W"], "n": 3}, want) == ["loss: float64 instead of float32"]
    assert differences({"loss": np.float32(1.0), "W": np.ones((2, 1), np.float32), "n": 3}, want) == \
        ["W: float32[2, 1] instead of float32[2, 2]"]
    assert differences({"loss": np.float32(1.1), "W": want["W"], "n": 4}, want) == \
        ["loss: max abs difference 0.1 (max |want| 1)", "n: 4 instead of 3"]
