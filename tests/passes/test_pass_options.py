"""Pass options in pipeline text (``pass{key=value ...}``): how passes declare them, how
named pipelines forward them, and the located errors for bad ones. Lowered output and
``janus-opt``'s messages are checked by ``lit_tests/passes/pass-options.mlir`` and
``lit_tests/janus-opt/pass-options-invalid.mlir``."""

from __future__ import annotations

import pytest

from janus.ir import make_context, parse_module
from janus.passes import (
    PIPELINES,
    ModulePass,
    Pipeline,
    PipelineError,
    build_pass_manager,
    option,
    register_pass,
    run_pipeline,
)
from janus.passes.pipeline_text import elements
from janus.passes.recursion.eliminate_recursion import EliminateRecursion
from janus.passes.recursion.recursion_to_dispatch import RecursionToDispatch
from tests.helpers import MODULES


def test_options_are_fields_with_their_defaults() -> None:
    assert EliminateRecursion().max_stack_entries == 1 << 20
    assert RecursionToDispatch(dispatch_stack_entries=8).dispatch_stack_entries == 8
    assert list(EliminateRecursion.options()) == ["max-stack-entries"]


@pytest.mark.parametrize("value", [0, -1, True, 2.0])
def test_a_pass_built_from_python_checks_its_options(value: object) -> None:
    with pytest.raises(ValueError, match="max-stack-entries"):
        EliminateRecursion(max_stack_entries=value)  # type: ignore[arg-type]


def test_elements_keep_their_offsets_in_the_text() -> None:
    text = "builtin.module(cse, janus-verify{a=1}, func.func(canonicalize,cse))"
    found = [(e.name, e.text, e.offset) for e in elements(text)]
    assert found == [
        ("cse", "cse", 15),
        ("janus-verify", "janus-verify{a=1}", 20),
        ("func.func", "func.func(canonicalize,cse)", 39),
    ]
    assert [(o.key, o.value, o.offset) for o in elements(text)[1].options()] == [("a", "1", 33)]


ERRORS = {
    "unknown option": ("janus-eliminate-recursion{depth=3}", 26, "has no option 'depth' (options: max-stack-entries)"),
    "not an int": ("janus-eliminate-recursion{max-stack-entries=6x}", 44, "expects an integer, got '6x'"),
    "below the range": ("janus-eliminate-recursion{max-stack-entries=-5}", 44, "must be at least 1, got -5"),
    "above the range": ("cse,janus-recursion-to-dispatch{dispatch-stack-entries=9999}", 55, "must be at most 4096"),
    "no value": ("janus-eliminate-recursion{max-stack-entries}", 26, "expected 'key=value'"),
    "unclosed": ("janus-eliminate-recursion{max-stack-entries=2", 25, "'{' is never closed"),
    "stray bracket": ("janus-verify)", 12, "unexpected ')'"),
    "trailing text": ("janus-eliminate-recursion{max-stack-entries=2}x", 46, "unexpected text after the options"),
    "given twice": ("janus-eliminate-recursion{max-stack-entries=2  max-stack-entries=3}", 47, "given twice"),
    "pipeline option": ("janus-to-iree{dispatch-stack-entries=8}", 14, "pipeline 'janus-to-iree' has no option"),
}


@pytest.mark.parametrize("pipeline, offset, message", ERRORS.values(), ids=ERRORS.keys())
def test_bad_options_are_located_errors(pipeline: str, offset: int, message: str) -> None:
    with pytest.raises(PipelineError) as error:
        build_pass_manager(pipeline, make_context())
    assert error.value.offset == offset and message in error.value.message
    assert str(error.value).endswith(f"\n{pipeline}\n{' ' * offset}^")
    assert isinstance(error.value, ValueError)  # what callers of build_pass_manager catch


def _fib_after(pipeline: str) -> str:
    """``tests/modules/fib.mlir`` after ``pipeline``, printed."""
    module = parse_module((MODULES / "fib.mlir").read_text())
    run_pipeline(module, pipeline)
    return str(module)


def test_pipelines_forward_options_and_the_outer_text_wins(monkeypatch: pytest.MonkeyPatch) -> None:
    inner = Pipeline("test-inner", "", ("janus-eliminate-recursion{max-stack-entries=7}",))
    monkeypatch.setitem(PIPELINES, "test-inner", inner)
    monkeypatch.setitem(PIPELINES, "test-outer", Pipeline("test-outer", "", ("test-inner",)))
    assert "arith.constant 7 : index" in _fib_after("test-outer")
    lowered = _fib_after("test-outer{max-stack-entries=9}")
    assert "arith.constant 9 : index" in lowered and "arith.constant 7 : index" not in lowered


def test_registration_rejects_what_pipeline_text_could_not_set() -> None:
    class Plain(ModulePass):
        name = "test-plain-field"
        summary = ""
        depth: int = 3

    class BadDefault(ModulePass):
        name = "test-bad-default"
        summary = ""
        depth: int = option(0, "", minimum=1)

    with pytest.raises(TypeError, match="not declared with option"):
        register_pass(Plain)
    with pytest.raises(ValueError, match="at least 1"):
        register_pass(BadDefault)
