"""Decoded CPython 3.11 bytecode: what the profiler and the graph generator read.

``dis`` already resolves jump targets to absolute offsets (``argval``) and names the
operator of ``BINARY_OP`` (``argrepr``); this module drops the inline ``CACHE`` entries and
gives each instruction the facts both consumers need (is it a conditional jump, where
does it go, which source line), so neither re-derives them.
"""

from __future__ import annotations

import dis
import sys
from dataclasses import dataclass
from functools import lru_cache
from types import CodeType

from janus.dialects.opdef import quote

#: The interpreter whose bytecode this package understands.
SUPPORTED_VERSION = (3, 11)

#: Unconditional jumps, and instructions after which a frame does not go on.
JUMPS = frozenset({"JUMP_FORWARD", "JUMP_BACKWARD", "JUMP_BACKWARD_NO_INTERRUPT"})
EXITS = frozenset({"RETURN_VALUE", "RAISE_VARARGS", "RERAISE"})
#: The pseudo-offset of the frame's exit (a return or a raise), for post-dominators.
EXIT = -1

#: Conditional jumps: the opname's suffix says when the jump is taken.
CONDITIONAL_JUMPS = frozenset(
    f"POP_JUMP_{direction}_IF_{cond}"
    for direction in ("FORWARD", "BACKWARD")
    for cond in ("TRUE", "FALSE", "NONE", "NOT_NONE")
) | {"JUMP_IF_TRUE_OR_POP", "JUMP_IF_FALSE_OR_POP"}


def supported() -> bool:
    """True on the CPython version whose bytecode this package decodes."""
    return sys.implementation.name == "cpython" and sys.version_info[:2] == SUPPORTED_VERSION


@dataclass(frozen=True)
class Instr:
    offset: int
    opname: str
    arg: int | None
    argval: object
    argrepr: str
    line: int | None
    #: `` loc("file":line:col)`` of the instruction, the location of the ops emitted for it
    loc: str = ""

    @property
    def is_conditional_jump(self) -> bool:
        return self.opname in CONDITIONAL_JUMPS

    @property
    def target(self) -> int:
        """Absolute offset a jump (or an exhausted ``FOR_ITER``) goes to."""
        return self.argval  # type: ignore[return-value]


@dataclass(frozen=True)
class Bytecode:
    code: CodeType
    instrs: tuple[Instr, ...]
    index: dict[int, int]  # offset -> position in instrs

    def at(self, offset: int) -> Instr:
        return self.instrs[self.index[offset]]

    def next_offset(self, offset: int) -> int:
        return self.instrs[self.index[offset] + 1].offset

    def source(self, offset: int) -> str:
        """``file:line`` of the instruction, the form guards carry."""
        return f"{self.code.co_filename}:{self.at(offset).line}"

    def join_point(self, offset: int) -> int:
        """Where the two ways out of the branch at ``offset`` meet again (its immediate
        post-dominator), or ``EXIT`` when they meet only at the frame's exit."""
        return _post_dominators(self.code)[offset]

    def successors(self, offset: int) -> tuple[int, ...]:
        ins = self.at(offset)
        if ins.opname in EXITS:
            return (EXIT,)
        if ins.opname in JUMPS:
            return (ins.target,)
        nxt = self.index[offset] + 1
        following = (self.instrs[nxt].offset,) if nxt < len(self.instrs) else (EXIT,)
        if ins.is_conditional_jump or ins.opname == "FOR_ITER":
            return following + (ins.target,)
        return following


@lru_cache(maxsize=None)
def decode(code: CodeType) -> Bytecode:
    """The instructions of ``code`` without CACHE entries, indexed by offset."""
    instrs: list[Instr] = []
    line, col = code.co_firstlineno, 1
    file = quote(code.co_filename)
    for i in dis.get_instructions(code):
        if i.opname == "CACHE":
            continue
        if i.positions is not None and i.positions.lineno is not None:
            line = i.positions.lineno
            col = 1 if i.positions.col_offset is None else i.positions.col_offset + 1
        # dis leaves KW_NAMES unresolved on 3.11: its arg indexes co_consts
        argval = code.co_consts[i.arg] if i.opname == "KW_NAMES" else i.argval
        instrs.append(Instr(i.offset, i.opname, i.arg, argval, i.argrepr, line, f" loc({file}:{line}:{col})"))
    return Bytecode(code, tuple(instrs), {ins.offset: n for n, ins in enumerate(instrs)})


@lru_cache(maxsize=None)
def _post_dominators(code: CodeType) -> dict[int, int]:
    """Immediate post-dominator of every instruction (iterative dataflow; code is small)."""
    bc = decode(code)
    offsets = [i.offset for i in bc.instrs]
    everything = frozenset(offsets) | {EXIT}
    pdom: dict[int, frozenset[int]] = {o: everything for o in offsets}
    pdom[EXIT] = frozenset({EXIT})
    changed = True
    while changed:
        changed = False
        for o in reversed(offsets):
            new = frozenset({o}) | frozenset.intersection(*(pdom[s] for s in bc.successors(o)))
            if new != pdom[o]:
                pdom[o], changed = new, True
    # post-dominators form a chain: the immediate one has the most post-dominators itself
    return {o: max(pdom[o] - {o}, key=lambda p: len(pdom[p])) for o in offsets}
