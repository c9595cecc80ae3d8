"""Speed-up charts a reader can trust: log-scale bars that grow from 1× (a speed-up points
up, a slowdown down, equal ratios look equal), each labelled with its value, with the
plain-Python line, a target line and a legend. matplotlib is optional (``bench`` extra)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

#: The speed-up line drawn as the goal unless the caller names another (``--target-speedup``).
TARGET_SPEEDUP = 2.0

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


def speedup_bars(ax: Any, positions: Sequence[float], speedups: Sequence[float], width: float, **style: Any) -> Any:
    """Bars from 1× to each speed-up, labelled ``2.3×``; returns matplotlib's container."""
    bars = ax.bar(positions, [s - 1.0 for s in speedups], width, bottom=1.0, **style)
    ax.bar_label(bars, labels=[f"{s:.2g}×" for s in speedups], fontsize=6, padding=2)
    return bars


def finish(ax: Any, names: Sequence[str], target: float, ylabel: str) -> None:
    """Log scale with ticks read as ratios (0.5×, 1×, 2×), model names, the 1× and target lines, and the legend."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    ax.set_yscale("log")
    ax.yaxis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}×"))
    ax.yaxis.set_minor_formatter(NullFormatter())
    ax.set_xticks(range(len(names)), names, rotation=45, ha="right", fontsize=7)
    ax.axhline(1.0, color="black", linewidth=0.8, label="plain Python (1×)")
    ax.axhline(target, color="tab:red", linestyle="--", linewidth=1.0, label=f"target ({target:g}×)")
    ax.margins(y=0.15)
    ax.set_ylabel(ylabel)
    ax.legend(fontsize=7)


def save(fig: Any, path: Path) -> str:
    """Write ``fig`` to ``path`` and free it; what was done."""
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    pyplot().close(fig)
    return f"wrote {path}"
