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
from janus.benchmark.plot import NO_PLOT, TARGET_SPEEDUP, finish, pyplot, save, speedup_bars
from janus.benchmark.report import explanations, number, table
from janus.frontend.speculation import FULL, Speculation
from janus.models.workload import ModelSpec

#: (label, switches); None is the imperative program
STAGES: tuple[tuple[str, Speculation | None], ...] = (
    ("imperative", None),
    ("graph, no speculation", Speculation(speculate=False, unroll=False, specialize=False)),
    ("+ unrolling", Speculation(speculate=True, unroll=True, specialize=False)),
    ("+ specialization", FULL),
)


def record(spec: ModelSpec, size: str, on_start: Callable[[str], None], on_finish: Callable[[str], None],
           min_seconds: float, rtol: float, atol: float) -> dict[str, Any]:
    """Every stage of one model: throughput, speed-up over imperative, agreement, status.
    ``on_start`` and ``on_finish`` hear of each stage's run (progress)."""
    stages = []
    plain = None
    for label, switches in STAGES:
        on_start(f"{spec.name}: {label}")
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
        on_finish(f"{spec.name}: {label}: {'DISAGREES' if mismatches else 'agrees'}")
    return {"model": spec.name, "unit": plain.unit, "size": size, "stages": stages,
            "agree": all(s["agree"] for s in stages)}


def _cell(stage: dict[str, Any]) -> str:
    note = "" if stage["stage"] == "imperative" or stage["compiled_calls"] else " (imperative)"
    bad = "" if stage["agree"] else " **DISAGREES**"
    return f"{number(stage['items_per_second'])} ({number(stage['speedup'])}x){note}{bad}"


def markdown(records: list[dict[str, Any]], command: str) -> str:
    rows = [[r["model"], r["unit"], *(_cell(s) for s in r["stages"])] for r in records]
    lines = [f"`{command}` — items/s (speed-up over imperative)", "",
             table(rows, ["model", "unit", *(label for label, _ in STAGES)], ("left", "left") + ("right",) * len(STAGES))]
    reasons = [f"{r['model']}, {s['stage']}: {f['reason']}" for r in records for s in r["stages"] for f in s["fallbacks"]]
    bad = [f"{r['model']}, {s['stage']}: {m}" for r in records for s in r["stages"] for m in s["mismatches"]]
    return "\n".join(lines + explanations(reasons, bad)) + "\n"


def plot(records: list[dict[str, Any]], path: Path, target: float = TARGET_SPEEDUP) -> str:
    """ablation.png (``figure``); says why when matplotlib is missing."""
    plt = pyplot()
    if plt is None:
        return NO_PLOT
    return save(figure(plt, records, target), path)


def figure(plt: Any, records: list[dict[str, Any]], target: float) -> Any:
    """Grouped bars: speed-up of each compiled stage per model, as in JANUS's Figure 7 (the
    imperative stage is the 1× line)."""
    fig, ax = plt.subplots(figsize=(max(6, 1.4 * len(records) + 2), 4.5))
    compiled = STAGES[1:]
    width = 0.8 / len(compiled)
    for j, (label, _) in enumerate(compiled, start=1):
        shown = [(i, r["stages"][j]["speedup"]) for i, r in enumerate(records) if r["stages"][j]["speedup"]]
        offset = (j - 1 - (len(compiled) - 1) / 2) * width
        speedup_bars(ax, [i + offset for i, _ in shown], [s for _, s in shown], width, label=label)
    finish(ax, [r["model"] for r in records], target, "speed-up over imperative")
    return fig


def write(out: Path, records: list[dict[str, Any]], command: str, plot_png: bool,
          target: float = TARGET_SPEEDUP) -> list[str]:
    """ablation.json, ablation.md and (when possible) ablation.png in ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "ablation.json").write_text(json.dumps({"command": command, "models": records}, indent=2) + "\n",
                                       encoding="utf-8")
    (out / "ablation.md").write_text(markdown(records, command), encoding="utf-8")
    done = [f"wrote {out / 'ablation.json'}", f"wrote {out / 'ablation.md'}"]
    if plot_png:
        done.append(plot(records, out / "ablation.png", target))
    return done
