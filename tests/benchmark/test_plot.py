"""The bench charts: bars grow from 1× on a log axis, labelled, with the 1× and target
lines and a legend; progress lines carry elapsed time and ETA."""

from __future__ import annotations

import io
import re

import pytest

from janus.benchmark import ablation, report
from janus.benchmark.plot import pyplot
from janus.benchmark.progress import Progress

plt = pyplot()
pytestmark = pytest.mark.skipif(plt is None, reason="matplotlib is not installed (bench extra)")


def bench_record(model: str, speedup: float, status: str = "compiled") -> dict:
    return {"model": model, "speedup": speedup, "status": status, "agree": True}


def bars(ax) -> list[tuple[float, float]]:
    """(bottom, top) of each bar."""
    return [(p.get_y(), p.get_y() + p.get_height()) for p in ax.patches]


def test_bench_bars_grow_from_one_with_labels_target_and_legend() -> None:
    records = [bench_record("fast", 4.0), bench_record("slow", 0.25, "partly compiled"), bench_record("none", None)]
    fig = report.figure(plt, records, 3.0)
    (ax,) = fig.axes
    assert ax.get_yscale() == "log"
    assert sorted(bars(ax)) == [(1.0, 0.25), (1.0, 4.0)]  # the slowdown points down
    labels = {t.get_text() for t in ax.texts}
    assert {"4×", "0.25×"} <= labels
    assert sorted(line.get_ydata()[0] for line in ax.get_lines()) == [1.0, 3.0]
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend == ["plain Python (1×)", "target (3×)", "compiled", "partly compiled"]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["fast", "slow"]
    plt.close(fig)


def test_ablation_groups_the_compiled_stages() -> None:
    stages = [{"speedup": s} for s in (1.0, 0.5, 2.0, 8.0)]
    fig = ablation.figure(plt, [{"model": "m", "stages": stages}], 2.0)
    (ax,) = fig.axes
    assert [top for _, top in bars(ax)] == [0.5, 2.0, 8.0]
    assert [t.get_text() for t in ax.get_legend().get_texts()][2:] == [label for label, _ in ablation.STAGES[1:]]
    plt.close(fig)


def test_progress_lines_in_a_log_show_elapsed_and_eta() -> None:
    stream = io.StringIO()
    progress = Progress(4, stream)
    progress.show("m: plain Python")
    progress.step("step 1/3")  # a terminal-only update
    progress.finish("m: plain Python")
    progress.finish("m: agrees")
    progress.close()
    assert re.fullmatch(r"m: plain Python: 1/4 \[00:00<\S+\]\nm: agrees: 2/4 \[00:00<00:00\]\n", stream.getvalue())
