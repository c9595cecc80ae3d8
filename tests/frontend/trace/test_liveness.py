"""``trace.liveness``: which locals a resume function still needs (dead ones are not rebuilt
at a segment boundary)."""

from __future__ import annotations

import dis
import types

from janus.frontend.trace.liveness import live_locals


def offset_after_call_to(code: types.CodeType, name: str) -> int:
    """The instruction after the call of global ``name`` (where a resume function would continue)."""
    instructions = [i for i in dis.get_instructions(code) if i.opname != "CACHE"]
    start = next(n for n, i in enumerate(instructions) if i.opname == "LOAD_GLOBAL" and i.argval == name)
    call = next(n for n in range(start, len(instructions)) if instructions[n].opname == "CALL")
    return instructions[call + 1].offset


def after_loop(x, n):
    parts = []
    for i in range(0, 6, n):
        view = x[i:i + n]
        parts.append(view.sum())
    report(parts)
    return parts


def in_loop(xs, rng):
    total = 0.0
    for x in xs:
        noise = draw(rng)
        scaled = x * noise
        total += scaled
    return total


def with_handler(x):
    kept = x * 2
    try:
        y = risky(x)
    except ValueError:
        return kept
    return y


def reads_its_frame(x, unused):
    report(x)
    return locals()


def test_a_view_made_in_a_loop_is_dead_after_it():
    assert live_locals(after_loop.__code__, offset_after_call_to(after_loop.__code__, "report")) == {"parts"}


def test_a_local_stored_again_before_any_read_is_dead():
    live = live_locals(in_loop.__code__, offset_after_call_to(in_loop.__code__, "draw"))
    assert live == {"x", "total", "rng"}  # ``scaled`` from the last iteration is overwritten before it is read


def test_an_exception_handler_keeps_what_it_reads():
    # the normal path reads only ``y``, which the next instruction stores: ``kept`` is live through the handler
    assert live_locals(with_handler.__code__, offset_after_call_to(with_handler.__code__, "risky")) == {"kept"}


def test_a_function_that_reads_its_own_frame_keeps_every_local():
    live = live_locals(reads_its_frame.__code__, offset_after_call_to(reads_its_frame.__code__, "report"))
    assert live == {"x", "unused"}
