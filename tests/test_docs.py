"""The committed dialect reference is what the registry generates."""

from __future__ import annotations

from pathlib import Path

import pytest

from janus.dialects import REGISTRY, docgen

DIALECT_DOC = Path(__file__).resolve().parents[1] / "docs" / "dialect.md"


def test_dialect_reference_is_up_to_date() -> None:
    assert DIALECT_DOC.read_text(encoding="utf-8") == docgen.render(), (
        f"{DIALECT_DOC} is stale: run `make docs` and commit the result"
    )


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_each_op_section_lists_its_definition(name: str) -> None:
    cls = REGISTRY[name]
    section = "\n".join(docgen.op_section(cls))
    assert section in docgen.render()
    assert section.startswith(f"## `{name}` ({cls.__name__})\n\n{cls.SUMMARY}")
    for d in (*cls.OPERANDS, *cls.RESULTS, *cls.ATTRIBUTES):
        assert f"| `{d.name}` |" in section
