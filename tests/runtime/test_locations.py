"""Source positions read from MLIR locations through the bindings' location classes."""

from __future__ import annotations

import pytest

from janus.ir import file_line_col, ir


@pytest.fixture
def ctx():
    with ir.Context() as ctx:
        yield ctx


def test_first_file_line_col_of_every_location_kind(ctx) -> None:
    here, there = ir.Location.file('dir/a "quoted".py', 3, 4), ir.Location.file("b.py", 5, 6)
    assert file_line_col(here) == ('dir/a "quoted".py', 3, 4)
    assert file_line_col(ir.Location.callsite(there, [here])) == ("b.py", 5, 6)
    assert file_line_col(ir.Location.fused([ir.Location.unknown(), ir.Location.name("n", here)])) == (
        'dir/a "quoted".py', 3, 4)
    assert file_line_col(ir.Location.unknown()) is None
    assert file_line_col(ir.Location.name("only a name")) is None


def test_locations_of_parsed_ops(ctx) -> None:
    module = ir.Module.parse('func.func @f() { return loc("m.py":7:2) } loc(callsite("g.py":1:1 at "m.py":9:3))')
    func = module.body.operations[0]
    assert file_line_col(func.location) == ("g.py", 1, 1)
    assert file_line_col(func.regions[0].blocks[0].operations[0].location) == ("m.py", 7, 2)
