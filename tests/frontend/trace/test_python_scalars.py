"""Python int arithmetic on i64 graph values: the overflow conditions the graph guards
on, compiled by IREE (whose folders must not remove them) and checked against Python."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from janus.frontend.emitter import Emitter, function_text
from janus.frontend.trace.scalars import no_overflow
from janus.runtime import CompiledModule

EDGES = [0, 1, -1, 2, -2, 3, -7, 2**31, -(2**31), 3037000499, 3037000500, -3037000500, 2**62, -(2**62),
         2**63 - 1, -(2**63), 2**63 - 2, -(2**63) + 1]
OPS = {"+": ("arith.addi", lambda a, b: a + b), "-": ("arith.subi", lambda a, b: a - b), "*": ("arith.muli", lambda a, b: a * b)}


class Scalar:
    def __init__(self, name: str, type_: str) -> None:
        self.name, self.type = name, type_


@pytest.fixture(scope="module")
def checks():
    """One public function per operator: (a, b) -> (wrapped result, no-overflow flag)."""
    functions = []
    for i, (symbol, (opname, _)) in enumerate(OPS.items()):
        em = Emitter()
        params = [Scalar("%arg0", "i64"), Scalar("%arg1", "i64")]
        em.define(*params)
        r = em.scalars().op(opname, ["%arg0", "%arg1"], "i64")
        ok = no_overflow(em, symbol, "%arg0", "%arg1", r)
        functions.append(function_text(f"check{i}", params, [Scalar(r, "i64"), Scalar(ok, "i1")], em.lines))
    module = CompiledModule.from_mlir("module {\n" + "\n".join(functions) + "\n}\n", target="cpu")
    return {symbol: module[f"check{i}"] for i, symbol in enumerate(OPS)}


@pytest.mark.parametrize("symbol", list(OPS))
def test_overflow_flag_matches_python(checks, symbol):
    python = OPS[symbol][1]
    for a, b in itertools.product(EDGES, repeat=2):
        r, ok = checks[symbol](np.int64(a), np.int64(b))
        exact = python(a, b)
        fits = -(2**63) <= exact < 2**63
        assert bool(ok) == fits, (a, symbol, b)
        if fits:
            assert int(r) == exact
