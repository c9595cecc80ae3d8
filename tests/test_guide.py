"""Every ``python`` block of docs/guide.md and of the README's first-steps section runs:
the blocks of one section in order, in one namespace, from the repository root. A
``FallbackWarning`` fails it: what the pages show as compiled must compile."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import pytest

import janus

ROOT = Path(__file__).resolve().parents[1]
BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


def sections(path: Path, only: str | None = None) -> dict[str, str]:
    """``## heading`` -> the python blocks under it, joined (``only``: that heading alone)."""
    found: dict[str, str] = {}
    for part in re.split(r"^## ", path.read_text(encoding="utf-8"), flags=re.M)[1:]:
        heading, _, body = part.partition("\n")
        code = "\n".join(BLOCK.findall(body))
        if code and (only is None or heading == only):
            found[f"{path.name}: {heading}"] = code
    return found


CASES = {**sections(ROOT / "docs" / "guide.md"), **sections(ROOT / "README.md", only="Your first jitted function")}


def test_the_pages_have_examples():
    assert len(CASES) >= 8 and any(name.startswith("README.md") for name in CASES), sorted(CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_example_runs(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    with warnings.catch_warnings():
        warnings.simplefilter("error", janus.FallbackWarning)
        exec(compile(CASES[name], name, "exec"), {"__name__": "__guide__"})
