"""``janus-bench --ablation``: JANUS's Figure 7 — each speculative optimization added in turn.

Stages: the imperative program; a graph with no speculation (branches on graph values as
``scf.if``, loops as ``scf.for``/``scf.while``, every dim ``?`` and int a graph input);
+ unrolling (control-flow speculation: pruned branches and unrolled loops behind guards);
+ specialization (exact shapes and int values: ``janus.jit``'s default). Every stage's
outputs and final state are compared with the imperative run; speed-ups are over it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

from janus.benchmark import compare, measure
from janus.benchmark.report import NO_PLOT, explanations, number, pyplot
from janus.frontend.speculation import FULL, Speculation
from janus.models.workload import ModelSpec

#: (label, switches); None is the imperative program
STAGES: tuple[tuple[str, Speculation | None], ...] = (
    ("imperative", None),
    ("graph, no speculation", Speculation(speculate=False, unroll=False, specialize=False)),
    ("+ unrolling", Speculation(speculate=True, unroll=True, specialize=False)),
    ("+ specialization", FULL),
)


def record(spec: ModelSpec, size: str, on_run: Callable[[str], None], min_seconds: float, rtol: float,
           atol: float) -> dict[str, Any]:
    """Every stage of one model: throughput, speed-up over imperative, agreement, status."""
    stages = []
    plain = None
    for label, switches in STAGES:
        on_run(f"{spec.name}: {label}")
        run = measure.run(spec, size, switches is not None, min_seconds=min_seconds, switches=switches)
        plain = plain or run
        errors = [e for e in (plain.error, run.error) if e]
        mismatches = errors or (compare.differences(run.outputs, plain.outputs, "outputs", rtol, atol)
                                + compare.differences(run.state, plain.state, "state", rtol, atol))
        jit = run.jit_summary()
        rate = run.items_per_second
        stages.append({
            "stage": label, "items_per_second": rate,
            "speedup": rate / plain.items_per_second if rate and plain.items_per_second else None,
            "compiled_calls": jit["compiled_calls"], "versions": jit["versions"],
            "fallbacks": jit["fallbacks"], "agree": not mismatches, "mismatches": mismatches[:10],
        })
    return {"model": spec.name, "unit": plain.unit, "size": size, "stages": stages,
            "agree": all(s["agree"] for s in stages)}


def _cell(stage: dict[str, Any]) -> str:
    note = "" if stage["stage"] == "imperative" or stage["compiled_calls"] else " (imperative)"
    bad = "" if stage["agree"] else " **DISAGREES**"
    return f"{number(stage['items_per_second'])} ({number(stage['speedup'])}x){note}{bad}"


def markdown(records: list[dict[str, Any]], command: str) -> str:
    header = " | ".join(label for label, _ in STAGES)
    lines = [f"`{command}` — items/s (speed-up over imperative)", "",
             f"| model | unit | {header} |", "|---|---|" + "---:|" * len(STAGES)]
    lines += [f"| {r['model']} | {r['unit']} | " + " | ".join(_cell(s) for s in r["stages"]) + " |" for r in records]
    reasons = [f"{r['model']}, {s['stage']}: {f['reason']}" for r in records for s in r["stages"] for f in s["fallbacks"]]
    bad = [f"{r['model']}, {s['stage']}: {m}" for r in records for s in r["stages"] for m in s["mismatches"]]
    return "\n".join(lines + explanations(reasons, bad)) + "\n"


def plot(records: list[dict[str, Any]], path: Path) -> str:
    """Grouped bars: speed-up of each stage per model, as in JANUS's Figure 7."""
    plt = pyplot()
    if plt is None:
        return NO_PLOT
    fig, ax = plt.subplots(figsize=(max(6, 1.2 * len(records) + 2), 4))
    width = 0.8 / len(STAGES)
    for j, (label, _) in enumerate(STAGES):
        ax.bar([i + (j - (len(STAGES) - 1) / 2) * width for i in range(len(records))],
               [r["stages"][j]["speedup"] or 0 for r in records], width, label=label)
    ax.set_xticks(range(len(records)), [r["model"] for r in records], rotation=30, fontsize=7)
    ax.set_yscale("log")
    ax.set_ylabel("speed-up over imperative")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return f"wrote {path}"


def write(out: Path, records: list[dict[str, Any]], command: str, plot_png: bool) -> list[str]:
    """ablation.json, ablation.md and (when possible) ablation.png in ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "ablation.json").write_text(json.dumps({"command": command, "models": records}, indent=2) + "\n",
                                       encoding="utf-8")
    (out / "ablation.md").write_text(markdown(records, command), encoding="utf-8")
    done = [f"wrote {out / 'ablation.json'}", f"wrote {out / 'ablation.md'}"]
    if plot_png:
        done.append(plot(records, out / "ablation.png"))
    return done
