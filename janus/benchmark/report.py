"""janus-bench output: one record per model, then JSON, a Markdown table and a PNG plot."""

from __future__ import annotations

import json
import os
import platform
import time
from pathlib import Path
from typing import Any

import numpy as np

from janus.benchmark.compare import differences
from janus.benchmark.measure import Run
from janus.models.workload import ModelSpec


def peak_gflops(n: int = 1024, repeats: int = 5) -> float:
    """The machine's reference peak: the best float32 GEMM rate NumPy reaches (GFLOP/s)."""
    a = np.random.default_rng(0).standard_normal((n, n)).astype(np.float32)
    a @ a
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        a @ a
        best = min(best, time.perf_counter() - start)
    return 2 * n**3 / best / 1e9


def environment(peak: float) -> dict[str, Any]:
    return {"python": platform.python_version(), "numpy": np.__version__, "machine": platform.machine(),
            "processor": platform.processor() or platform.machine(), "cpus": os.cpu_count(),
            "peak_gflops": round(peak, 2), "peak_reference": "best NumPy float32 1024x1024 GEMM in this process"}


def record(spec: ModelSpec, size: str, plain: Run, jitted: Run, peak: float, rtol: float, atol: float) -> dict[str, Any]:
    """Agreement, throughput, speed-up, compile time, recompiles and fallbacks of one model."""
    mismatches = [f"plain Python run failed: {plain.error}"] if plain.error else []
    if jitted.error:
        mismatches.append(f"janus.jit run failed: {jitted.error}")
    if not mismatches:
        mismatches = differences(jitted.outputs, plain.outputs, "outputs", rtol, atol)
        mismatches += differences(jitted.state, plain.state, "state", rtol, atol)
    jit = jitted.jit_summary()
    rate = {"imperative": plain.items_per_second, "compiled": jitted.items_per_second}
    flops = plain.flops_per_step
    gflops = {k: (flops * v / plain.items_per_step / 1e9 if flops and v else None) for k, v in rate.items()}
    if jit["compiled_calls"] == 0:
        status = "imperative (fallback)"
    elif jit["fallbacks"]:
        status = "partly compiled"
    else:
        status = "compiled"
    return {
        "model": spec.name, "description": spec.description, "bound": spec.bound, "size": size,
        "unit": plain.unit, "items_per_step": plain.items_per_step,
        "agree": not mismatches, "mismatches": mismatches[:20], "status": status,
        "imperative": {"items_per_second": rate["imperative"], "step_seconds": plain.step_seconds,
                       "steady_steps": len(plain.steady_times), "warmup_seconds": plain.warmup_seconds,
                       "gflops": gflops["imperative"]},
        "compiled": {"items_per_second": rate["compiled"], "step_seconds": jitted.step_seconds,
                     "steady_steps": len(jitted.steady_times), "warmup_seconds": jitted.warmup_seconds,
                     "gflops": gflops["compiled"],
                     "percent_of_peak": 100 * gflops["compiled"] / peak if gflops["compiled"] else None, **jit},
        "speedup": rate["compiled"] / rate["imperative"] if rate["compiled"] and rate["imperative"] else None,
        "flops_per_step": flops,
    }


def number(value: float | None, digits: int = 2) -> str:
    return "—" if value is None else f"{value:,.{digits}f}"


def markdown(records: list[dict[str, Any]], env: dict[str, Any], command: str) -> str:
    lines = [
        f"`{command}` — Python {env['python']}, NumPy {env['numpy']}, {env['cpus']} CPUs; "
        f"peak {env['peak_gflops']:.1f} GFLOP/s ({env['peak_reference']}).",
        "",
        "| model | bound | unit | imperative /s | compiled /s | speed-up | compile s | versions | GFLOP/s imp / jit (% peak) | status | agree |",
        "|---|---|---|---:|---:|---:|---:|---:|---|---|---|",
    ]
    for r in records:
        c = r["compiled"]
        flops = (f"{number(r['imperative']['gflops'])} / {number(c['gflops'])} ({number(c['percent_of_peak'], 1)}%)"
                 if r["flops_per_step"] else "—")
        lines.append(
            f"| {r['model']} | {r['bound']} | {r['unit']} | {number(r['imperative']['items_per_second'])} "
            f"| {number(c['items_per_second'])} | {number(r['speedup'])}x | {c['compile_seconds']:.2f} | {c['versions']} "
            f"| {flops} | {r['status']} | {'yes' if r['agree'] else '**NO**'} |"
        )
    reasons = [f"{r['model']}, `{f['function']}`: {f['reason']}" for r in records for f in r["compiled"]["fallbacks"]]
    bad = [f"{r['model']}: {m}" for r in records if not r["agree"] for m in r["mismatches"]]
    return "\n".join(lines + explanations(reasons, bad)) + "\n"


def explanations(reasons: list[str], disagreements: list[str]) -> list[str]:
    """The Markdown lists under a table: why calls ran imperatively (each reason once) and
    what disagreed."""
    lines: list[str] = []
    if reasons:
        lines += ["", "Why calls ran imperatively (`janus.explain`):", ""] + [f"- {r}" for r in dict.fromkeys(reasons)]
    if disagreements:
        lines += ["", "Disagreements:", ""] + [f"- {d}" for d in disagreements]
    return lines


NO_PLOT = "no PNG: matplotlib is not installed (pip install -e '.[bench]')"


def pyplot() -> Any:
    """``matplotlib.pyplot`` with a file-only backend, or None when matplotlib is missing."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    return plt


def plot(records: list[dict[str, Any]], path: Path) -> str:
    """Speed-up per model as a bar chart; says why when matplotlib is missing."""
    plt = pyplot()
    if plt is None:
        return NO_PLOT
    shown = [r for r in records if r["speedup"]]
    fig, ax = plt.subplots(figsize=(max(6, 0.5 * len(shown) + 2), 4))
    colors = ["tab:green" if r["status"] == "compiled" else "tab:orange" if r["status"] == "partly compiled"
              else "tab:gray" for r in shown]
    ax.bar([r["model"] for r in shown], [r["speedup"] for r in shown], color=colors)
    for i, r in enumerate(shown):
        if not r["agree"]:
            ax.text(i, r["speedup"], "disagrees", ha="center", color="red", fontsize=7)
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_yscale("log")
    ax.set_ylabel("speed-up over plain Python (steady state)")
    ax.set_title("janus-bench (green: compiled, orange: partly, gray: imperative fallback)", fontsize=9)
    ax.tick_params(axis="x", labelrotation=60, labelsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return f"wrote {path}"


def write(out: Path, records: list[dict[str, Any]], env: dict[str, Any], command: str, plot_png: bool) -> list[str]:
    """Write bench.json, bench.md and (when possible) bench.png into ``out``; what was done."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "bench.json").write_text(json.dumps({"command": command, "environment": env, "models": records},
                                               indent=2) + "\n", encoding="utf-8")
    (out / "bench.md").write_text(markdown(records, env, command), encoding="utf-8")
    done = [f"wrote {out / 'bench.json'}", f"wrote {out / 'bench.md'}"]
    if plot_png:
        done.append(plot(records, out / "bench.png"))
    return done
