"""janus-bench output: one record per model, then JSON, a Markdown table and a PNG plot."""

from __future__ import annotations

import json
import os
import platform
import time
from pathlib import Path
from typing import Any, Sequence

import numpy as np
from tabulate import tabulate

from janus.benchmark.compare import differences
from janus.benchmark.measure import Run
from janus.benchmark.plot import NO_PLOT, TARGET_SPEEDUP, finish, pyplot, save, speedup_bars
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
    elif jit["fallbacks"] or jit["splits"]:
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


#: The bench table's columns, numbers right-aligned.
COLUMNS = ("model", "bound", "unit", "imperative /s", "compiled /s", "speed-up", "compile s", "versions",
           "GFLOP/s imp / jit (% peak)", "status", "agree")
_ALIGN = ("left",) * 3 + ("right",) * 5 + ("left",) * 3


def table(rows: list[list[str]], headers: Sequence[str], align: Sequence[str]) -> str:
    """A GitHub Markdown table of preformatted cells."""
    return tabulate(rows, headers, tablefmt="github", colalign=align, disable_numparse=True)


def markdown(records: list[dict[str, Any]], env: dict[str, Any], command: str) -> str:
    rows = []
    for r in records:
        c = r["compiled"]
        flops = (f"{number(r['imperative']['gflops'])} / {number(c['gflops'])} ({number(c['percent_of_peak'], 1)}%)"
                 if r["flops_per_step"] else "—")
        rows.append([r["model"], r["bound"], r["unit"], number(r["imperative"]["items_per_second"]),
                     number(c["items_per_second"]), f"{number(r['speedup'])}x", f"{c['compile_seconds']:.2f}",
                     str(c["versions"]), flops, r["status"], "yes" if r["agree"] else "**NO**"])
    lines = [
        f"`{command}` — Python {env['python']}, NumPy {env['numpy']}, {env['cpus']} CPUs; "
        f"peak {env['peak_gflops']:.1f} GFLOP/s ({env['peak_reference']}).",
        "",
        table(rows, COLUMNS, _ALIGN),
    ]
    reasons = [f"{r['model']}, `{f['function']}`: {f['reason']}" for r in records for f in r["compiled"]["fallbacks"]]
    bad = [f"{r['model']}: {m}" for r in records if not r["agree"] for m in r["mismatches"]]
    splits = [f"{r['model']}, `{s['function']}`: {s['operation']} at {s['at']} ({s['runs']} run(s), "
              f"{s['python_seconds']:.4f} s in Python)" for r in records for s in r["compiled"].get("splits", ())]
    if splits:  # co-execution: the Python part of partly compiled calls
        lines += ["", "Python operations between compiled segments (`janus.explain`):", ""] + [f"- {s}" for s in splits]
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


#: Bar colour of each ``status`` of a record.
STATUS_COLORS = {"compiled": "tab:green", "partly compiled": "tab:orange", "imperative (fallback)": "tab:gray"}


def plot(records: list[dict[str, Any]], path: Path, target: float = TARGET_SPEEDUP) -> str:
    """bench.png (``figure``); says why when matplotlib is missing."""
    plt = pyplot()
    if plt is None:
        return NO_PLOT
    return save(figure(plt, records, target), path)


def figure(plt: Any, records: list[dict[str, Any]], target: float) -> Any:
    """Speed-up per model, coloured by how much of it ran compiled."""
    shown = [r for r in records if r["speedup"]]
    fig, ax = plt.subplots(figsize=(max(6, 0.5 * len(shown) + 2), 4.5))
    for status, color in STATUS_COLORS.items():
        group = [(i, r) for i, r in enumerate(shown) if r["status"] == status]
        if group:
            speedup_bars(ax, [i for i, _ in group], [r["speedup"] for _, r in group], 0.7, color=color, label=status)
    for i, r in enumerate(shown):
        if not r["agree"]:
            ax.annotate("disagrees", (i, r["speedup"]), xytext=(0, 10), textcoords="offset points", ha="center",
                        color="red", fontsize=7)
    finish(ax, [r["model"] for r in shown], target, "speed-up over plain Python (steady state)")
    ax.set_title("janus-bench: janus.jit vs plain Python", fontsize=9)
    return fig


def write(out: Path, records: list[dict[str, Any]], env: dict[str, Any], command: str, plot_png: bool,
          target: float = TARGET_SPEEDUP) -> list[str]:
    """Write bench.json, bench.md and (when possible) bench.png into ``out``; what was done."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "bench.json").write_text(json.dumps({"command": command, "environment": env, "models": records},
                                               indent=2) + "\n", encoding="utf-8")
    (out / "bench.md").write_text(markdown(records, env, command), encoding="utf-8")
    done = [f"wrote {out / 'bench.json'}", f"wrote {out / 'bench.md'}"]
    if plot_png:
        done.append(plot(records, out / "bench.png", target))
    return done
