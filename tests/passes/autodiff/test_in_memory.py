"""``janus-autodiff`` builds its gradient functions in memory: no IR text is parsed, and
the copies of forward ops keep the forward ops' locations."""

from __future__ import annotations

from pathlib import Path

import pytest

from janus.ir import file_line_col, ir, parse_module
from janus.passes import run_pipeline
from janus.passes.callgraph import functions
from tests.helpers import MODULES

LIT = Path(__file__).parents[3] / "lit_tests" / "passes"
INPUTS = sorted(MODULES.glob("autodiff_*.mlir")) + [p for p in sorted(LIT.glob("autodiff*.mlir")) if "expected-error" not in p.read_text()]
PARSERS = [ir.Module, ir.Operation, ir.Attribute, ir.Type]
#: Attributes the upstream linalg builders parse themselves: the bindings have no other
#: constructor for them.
ENUM_ATTRIBUTES = {"#linalg.iterator_type<parallel>", "#linalg.iterator_type<reduction>"}


@pytest.fixture
def parse_calls(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """Every call of the bindings' parsers while the test runs: (class name, text)."""
    calls: list[tuple[str, str]] = []
    for cls in PARSERS:

        def counting(text: str, *args: object, _original=cls.parse, _cls=cls, **kwargs: object) -> object:
            calls.append((_cls.__name__, str(text)))
            return _original(text, *args, **kwargs)

        monkeypatch.setattr(cls, "parse", staticmethod(counting))
    return calls


@pytest.mark.parametrize("path", INPUTS, ids=lambda p: p.name)
def test_autodiff_parses_no_ir(path: Path, parse_calls: list[tuple[str, str]]) -> None:
    module = parse_module(path.read_text())
    assert [cls for cls, _ in parse_calls] == ["Module"]  # the counter sees a module parse
    parse_calls.clear()
    run_pipeline(module, "builtin.module(janus-autodiff)")
    assert [call for call in parse_calls if call[0] != "Attribute"] == []
    assert {text for _, text in parse_calls} <= ENUM_ATTRIBUTES
    assert any(name.endswith("_vjp") for name in functions(module.operation))


def test_copies_keep_locations() -> None:
    module = parse_module(
        'func.func @f(%x: f64) -> f64 attributes {janus.grad} {\n'
        '  %y = math.sin %x : f64 loc("model.py":3:5)\n'
        '  return %y : f64\n}'
    )
    run_pipeline(module, "builtin.module(janus-autodiff)")
    vjp = functions(module.operation)["f_vjp"]
    ops = [op for op in vjp.regions[0].blocks[0].operations if op.name.startswith("math.")]
    assert [op.name for op in ops] == ["math.sin", "math.cos"]  # the copy, then the adjoint
    assert all(file_line_col(op.location) == ("model.py", 3, 5) for op in ops)
