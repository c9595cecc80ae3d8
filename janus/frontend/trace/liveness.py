"""Which locals the rest of a function may still read (backward liveness over its bytecode):
a segment boundary passes only those on to the resume function. A dead local left behind
is not rebuilt, so a view in it (``idx = order[i:j]`` after its loop) no longer has to share
its base's buffer, and a value about to be overwritten (a loop body's temporaries) stays
out of the resume function's entry key.

The answer errs towards live: every exception handler of an instruction is a successor
that sees the locals as they were before it; a function that names ``locals``, ``vars``,
``dir``, ``eval``, ``exec`` or ``super`` (which read the frame itself) keeps every local
live, and so do cells."""

from __future__ import annotations

import dis
import types
from functools import lru_cache

#: instructions after which control never falls through to the next one
_NO_FALL_THROUGH = frozenset({"RETURN_VALUE", "RETURN_CONST", "RAISE_VARARGS", "RERAISE", "JUMP_FORWARD",
                              "JUMP_BACKWARD", "JUMP_BACKWARD_NO_INTERRUPT", "JUMP_ABSOLUTE", "JUMP"})
#: instructions that read (or unbind) a local: ``argval`` a name, or 3.13's pair of names
_READS = frozenset({"LOAD_FAST", "LOAD_FAST_CHECK", "LOAD_FAST_AND_CLEAR", "DELETE_FAST", "LOAD_FAST_LOAD_FAST",
                    "STORE_FAST_LOAD_FAST"})
#: builtins that read a frame's locals without naming them
#: instructions that bind a local, whatever it held before
_KILLS = frozenset({"STORE_FAST", "STORE_FAST_STORE_FAST"})
_FRAME_READERS = frozenset({"locals", "vars", "dir", "eval", "exec", "super"})
_JUMPS = frozenset(dis.hasjrel) | frozenset(dis.hasjabs)


@lru_cache(maxsize=None)
def live_locals(code: types.CodeType, offset: int) -> frozenset[str]:
    """The locals of ``code`` that running it on from instruction ``offset`` may read."""
    return _live_in(code)[offset] & frozenset(code.co_varnames)


@lru_cache(maxsize=None)
def _live_in(code: types.CodeType) -> dict[int, frozenset[str]]:
    """Per instruction offset, the locals live before it (a fixpoint of the dataflow equations)."""
    instructions = [i for i in dis.get_instructions(code) if i.opname != "CACHE"]
    if any(i.opname in ("LOAD_GLOBAL", "LOAD_NAME") and i.argval in _FRAME_READERS for i in instructions):
        return {i.offset: frozenset(code.co_varnames) for i in instructions}
    index = {i.offset: n for n, i in enumerate(instructions)}
    handlers = dis.Bytecode(code).exception_entries
    normal: list[list[int]] = []
    raising: list[list[int]] = []
    for n, ins in enumerate(instructions):
        after = [n + 1] if ins.opname not in _NO_FALL_THROUGH and n + 1 < len(instructions) else []
        if ins.opcode in _JUMPS and ins.argval in index:
            after.append(index[ins.argval])
        normal.append(after)
        raising.append([index[h.target] for h in handlers if h.start <= ins.offset < h.end and h.target in index])
    always = frozenset(code.co_cellvars)
    live = [always] * len(instructions)
    changed = True
    while changed:
        changed = False
        for n in range(len(instructions) - 1, -1, -1):
            ins = instructions[n]
            out = frozenset().union(*(live[s] for s in normal[n]))
            new = always | _names(ins, _READS) | (out - _names(ins, _KILLS)) | frozenset().union(*(live[h] for h in raising[n]))
            if new != live[n]:
                live[n], changed = new, True
    return {ins.offset: live[n] for n, ins in enumerate(instructions)}


def _names(ins: dis.Instruction, opnames: frozenset[str]) -> frozenset[str]:
    if ins.opname not in opnames:
        return frozenset()
    return frozenset(ins.argval if isinstance(ins.argval, tuple) else (ins.argval,))
