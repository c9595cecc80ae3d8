"""docs/coverage.md is what the graph generator's handlers say, and says it completely."""

from __future__ import annotations

import dis
from pathlib import Path

from janus.frontend.trace import coverage
from janus.frontend.trace.interpreter import Tracer
from janus.frontend.trace.imperative import IMPERATIVE_ONLY
from tests.helpers import check_compiled, rand

COVERAGE_DOC = Path(__file__).resolve().parents[3] / "docs" / "coverage.md"


def test_coverage_table_is_up_to_date() -> None:
    assert COVERAGE_DOC.read_text(encoding="utf-8") == coverage.render(), (
        f"{COVERAGE_DOC} is stale: run `make docs` and commit the result"
    )


def test_every_opcode_has_one_row() -> None:
    text = coverage.render()
    for op in dis.opmap:
        assert text.count(f"| `{op}` |") == 1, op
    assert f"**{len(dis.opmap)} opcodes," in text


def test_every_handler_is_an_opcode_and_states_its_rule() -> None:
    assert coverage.handlers(), "no handlers found on Tracer"
    for name in coverage.handlers():
        assert name in dis.opmap, f"Tracer.{name} is not a CPython 3.11 opcode"
        status, rule = coverage.handling(name)
        assert status == coverage.CONVERTED and rule != coverage.UNDESCRIBED, f"Tracer.{name} has no docstring"


def test_imperative_reasons_name_only_unhandled_opcodes() -> None:
    for reason, ops in IMPERATIVE_ONLY.items():
        for op in ops:
            assert op in dis.opmap, op
            assert not callable(getattr(Tracer, op, None)), f"{op} has a handler: drop it from '{reason}'"
            assert coverage.handling(op) == (coverage.IMPERATIVE, reason)


def long_branch_source(lines: int) -> str:
    body = "".join(f"        y = y + {i}\n" for i in range(lines))
    return f"def long_branch(x, n):\n    y = 0\n    if n > 0:\n{body}    return x + y\n"


def test_extended_arg_is_converted() -> None:
    namespace: dict = {}
    exec(long_branch_source(150), namespace)
    fn = namespace["long_branch"]
    assert any(i.opname == "EXTENDED_ARG" for i in dis.get_instructions(fn)), "the jump needs no EXTENDED_ARG"
    x = rand(3)
    check_compiled(fn, x, 1)
