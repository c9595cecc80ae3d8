"""Reading the Markdown tables reports write."""

from __future__ import annotations


def markdown_rows(text: str) -> dict[str, list[str]]:
    """The body rows of the first table in ``text``, by first cell, cells stripped."""
    lines = [line for line in text.splitlines() if line.startswith("|")]
    rows = [[cell.strip() for cell in line.strip("|").split("|")] for line in lines[2:]]
    return {row[0]: row[1:] for row in rows}
