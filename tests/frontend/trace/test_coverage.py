"""docs/coverage.md is what the graph generator's handlers say, and says it completely."""

from __future__ import annotations

import dis
from pathlib import Path

from janus.frontend.trace import coverage
from janus.frontend.trace.interpreter import Tracer
from janus.frontend.trace.imperative import IMPERATIVE_ONLY
from janus.frontend.trace.versions import DIALECT, SUPPORTED, running
from tests.helpers import check_compiled, rand

COVERAGE_DOC = Path(__file__).resolve().parents[3] / "docs" / "coverage.md"

_NEW_IN_3_12 = {"POP_JUMP_IF_TRUE", "POP_JUMP_IF_FALSE", "POP_JUMP_IF_NONE", "POP_JUMP_IF_NOT_NONE", "END_FOR",
                "LOAD_FAST_AND_CLEAR", "LOAD_SUPER_ATTR"}
_NEW_IN_3_13 = {"TO_BOOL", "CALL_KW", "SET_FUNCTION_ATTRIBUTE"}
_GONE_IN_3_12 = {"PRECALL", "JUMP_IF_TRUE_OR_POP", "JUMP_IF_FALSE_OR_POP", "LIST_TO_TUPLE", "UNARY_POSITIVE"} | {
    f"POP_JUMP_{way}_IF_{cond}" for way in ("FORWARD", "BACKWARD") for cond in ("TRUE", "FALSE", "NONE", "NOT_NONE")}
_GONE_IN_3_13 = {"KW_NAMES", "FORMAT_VALUE"}
#: handlers of opcodes the running version does not have (another supported version's)
OTHER_VERSIONS_ONLY = {
    (3, 11): _NEW_IN_3_12 | _NEW_IN_3_13,
    (3, 12): _GONE_IN_3_12 | _NEW_IN_3_13,
    (3, 13): _GONE_IN_3_12 | _GONE_IN_3_13,
}


def test_coverage_section_of_this_interpreter_is_up_to_date() -> None:
    page = COVERAGE_DOC.read_text(encoding="utf-8")
    assert coverage.sections(page).get(running()) == coverage.render(), (
        f"{COVERAGE_DOC} is stale for this interpreter: run `make docs` and commit the result"
    )


def test_coverage_page_has_the_header_and_every_supported_version() -> None:
    page = COVERAGE_DOC.read_text(encoding="utf-8")
    assert page.startswith(coverage.HEADER) and list(coverage.sections(page)) == list(SUPPORTED)
    assert coverage.document(page) == page


def test_every_opcode_has_one_row() -> None:
    text = coverage.render()
    for op in dis.opmap:
        assert text.count(f"| `{op}` |") == 1, op
    assert f"**{len(dis.opmap)} opcodes," in text


def test_every_handler_is_an_opcode_and_states_its_rule() -> None:
    assert coverage.handlers(), "no handlers found on Tracer"
    others = OTHER_VERSIONS_ONLY[running()]
    assert not others & set(dis.opmap), "an opcode of this version is listed as another version's"
    for name in coverage.handlers():
        assert name in dis.opmap or name in others, f"Tracer.{name} is not an opcode of a supported CPython"
        doc = getattr(Tracer, name).__doc__
        assert doc and doc.strip(), f"Tracer.{name} has no docstring"


def test_rewrites_decode_into_handled_instructions() -> None:
    for opname, rewrite in DIALECT.rewrites.items():
        assert opname in dis.opmap, opname
        assert coverage.handling(opname) == (coverage.CONVERTED, rewrite.__doc__)


def test_imperative_reasons_name_only_unhandled_opcodes() -> None:
    for reason, ops in IMPERATIVE_ONLY.items():
        for op in ops & set(dis.opmap):  # the table names opcodes of every supported version
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
