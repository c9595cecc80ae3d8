"""Co-execution checks: a program run plain and jitted in lockstep on equal fresh state
(results, printed output, what it raises), and the compiled calls per segment depth."""

from __future__ import annotations

import pytest

import janus
from janus.frontend.jit import JitFunction
from tests.helpers import assert_same


@pytest.fixture(autouse=True)
def no_cost_rule(monkeypatch):
    """Split versions stay compiled (the programs of a test are tiny: Python would win the
    timing); autouse where a test module imports it."""
    monkeypatch.setattr(JitFunction, "COST_CALLS", 0)


def segment_calls(jf) -> list[int]:
    """Compiled calls per segment depth along the chain of resume functions (segment 1 first)."""
    counts: list[int] = []
    level, seen = [jf], set()
    while level:
        counts.append(sum(v.calls for f in level for v in f.versions.values()))
        seen.update(map(id, level))
        level = [v.resume for f in level for v in f.versions.values() if v.resume is not None and id(v.resume) not in seen]
    return counts


def lockstep(fn, states, argument_lists, capsys, warmup: int = 1):
    """Run ``fn`` plainly on ``states[0]`` and jitted on ``states[1]``, call by call; the jit
    function. ``argument_lists``: per call, a function of the state giving the arguments."""
    jf = janus.jit(fn, warmup=warmup, fallback="silent")
    for make in argument_lists:
        outcomes = []
        for f, state in ((fn, states[0]), (jf, states[1])):
            try:
                outcomes.append(("value", f(*make(state))))
            except Exception as e:  # the Python part raises: the same type and message
                outcomes.append(("raised", (type(e), str(e))))
            outcomes.append(capsys.readouterr().out)
        (kind, want), printed, (got_kind, got), got_printed = outcomes
        assert (got_kind, got_printed) == (kind, printed)
        assert_same(got, want) if kind == "value" else (got == want or pytest.fail(f"{got} != {want}"))
    return jf
