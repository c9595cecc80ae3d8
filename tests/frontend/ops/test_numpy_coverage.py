"""docs/numpy-coverage.md is the table the op library generates (``janus.frontend.ops.coverage``)."""

from __future__ import annotations

from pathlib import Path

from janus.frontend.ops import coverage

DOC = Path(__file__).resolve().parents[3] / "docs" / "numpy-coverage.md"


def test_numpy_coverage_table_is_up_to_date() -> None:
    assert DOC.read_text(encoding="utf-8") == coverage.render(), (
        f"{DOC} is stale: run `python -m janus.frontend.ops.coverage > docs/numpy-coverage.md`"
    )


def test_every_numpy_entry_has_a_row() -> None:
    text = coverage.render()
    for op in coverage.numpy_ops():
        assert coverage.row(op) in text
