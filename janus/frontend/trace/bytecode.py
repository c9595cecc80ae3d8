"""Decoded CPython bytecode (3.11, 3.12, 3.13): what the profiler and the graph generator read.

``dis`` already resolves jump targets to absolute offsets (``argval``) and names the
operator of ``BINARY_OP`` (``argrepr``); this module drops the inline ``CACHE`` entries and
gives each instruction the facts both consumers need (is it a conditional jump, where
does it go, which source line), so neither re-derives them. A later version's bytecode is
decoded into 3.11's instructions where its table says so (``versions``): an opcode may
become two instructions (the second at the odd offset after it, which no real instruction
has); 3.12's ``POP_JUMP_IF_X`` over a ``JUMP_BACKWARD`` into a ``while`` body becomes 3.11's
backward jump (the ``JUMP_BACKWARD`` is folded away: ``Bytecode.landing``); an exhausted
``FOR_ITER`` targets where CPython lands (past 3.12's ``END_FOR``, 3.13's ``END_FOR, POP_TOP``).
"""

from __future__ import annotations

import dis
from dataclasses import dataclass, field
from functools import lru_cache
from types import CodeType

from janus.dialects.opdef import quote
from janus.frontend.trace.versions import DIALECT, Dialect, Part

#: Unconditional jumps, and instructions after which a frame does not go on.
JUMPS = frozenset({"JUMP_FORWARD", "JUMP_BACKWARD", "JUMP_BACKWARD_NO_INTERRUPT"})
EXITS = frozenset({"RETURN_VALUE", "RAISE_VARARGS", "RERAISE"})
#: calls whose result a ``STORE_FAST`` right after may keep (the profiler records it)
CALLS = frozenset({"CALL", "CALL_KW"})
#: The pseudo-offset of the frame's exit (a return or a raise), for post-dominators.
EXIT = -1

#: Conditional jumps: the opname's suffix says when the jump is taken.
CONDITIONAL_JUMPS = frozenset(
    f"POP_JUMP_{direction}_IF_{cond}"
    for direction in ("FORWARD", "BACKWARD")
    for cond in ("TRUE", "FALSE", "NONE", "NOT_NONE")
) | {f"POP_JUMP_IF_{cond}" for cond in ("TRUE", "FALSE", "NONE", "NOT_NONE")} | {
    "JUMP_IF_TRUE_OR_POP", "JUMP_IF_FALSE_OR_POP"}
#: the opposite condition of a 3.12 conditional jump
_OPPOSITE = {"TRUE": "FALSE", "FALSE": "TRUE", "NONE": "NOT_NONE", "NOT_NONE": "NONE"}


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
    #: offset of a real instruction decoded away -> where executing it leads (a folded jump)
    folded: dict[int, int] = field(default_factory=dict)

    def landing(self, offset: int) -> int:
        """The decoded instruction execution is at when CPython reports ``offset``."""
        return self.folded.get(offset, offset)

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
def decode(code: CodeType, dialect: Dialect = DIALECT) -> Bytecode:
    """The instructions of ``code`` without CACHE entries, in 3.11's terms, indexed by offset."""
    raw = [i for i in dis.get_instructions(code) if i.opname != "CACHE"]
    position = {i.offset: n for n, i in enumerate(raw)}
    cells = frozenset(code.co_cellvars + code.co_freevars)
    instrs: list[Instr] = []
    folded: dict[int, int] = {}
    line, col = code.co_firstlineno, 1
    file = quote(code.co_filename)
    for n, i in enumerate(raw):
        if i.offset in folded:
            continue
        if i.positions is not None and i.positions.lineno is not None:
            line = i.positions.lineno
            col = 1 if i.positions.col_offset is None else i.positions.col_offset + 1
        # dis leaves KW_NAMES unresolved on 3.11: its arg indexes co_consts
        argval = code.co_consts[i.arg] if i.opname == "KW_NAMES" else i.argval
        after = raw[n + 1] if n + 1 < len(raw) else None
        if i.opname == "FOR_ITER" and dialect.for_iter_skips:  # the exit goes past END_FOR (and POP_TOP)
            argval = raw[position[i.argval] + dialect.for_iter_skips].offset
        if dialect.forward_jumps_only and _jumps_back_over(i, after, raw[n + 2] if n + 2 < len(raw) else None, raw, position):
            folded[after.offset] = after.argval  # type: ignore[union-attr]
            opname = "POP_JUMP_BACKWARD_IF_" + _OPPOSITE[i.opname.removeprefix("POP_JUMP_IF_")]
            instrs.append(Instr(i.offset, opname, i.arg, after.argval, i.argrepr, line, _loc(file, line, col)))  # type: ignore[union-attr]
            continue
        rewrite = dialect.rewrites.get(i.opname)
        parts = rewrite(i.arg, argval, cells) if rewrite else (Part(i.opname, i.arg, argval),)
        instrs += [Instr(i.offset + k, p.opname, p.arg, p.argval, i.argrepr, line, _loc(file, line, col)) for k, p in enumerate(parts)]
    return Bytecode(code, tuple(instrs), {ins.offset: n for n, ins in enumerate(instrs)}, folded)


def _loc(file: str, line: int, col: int) -> str:
    """The MLIR location suffix of the ops an instruction emits."""
    return f" loc({file}:{line}:{col})"


def _jumps_back_over(test: dis.Instruction, jump: dis.Instruction | None, after: dis.Instruction | None,
                     raw: list[dis.Instruction], position: dict[int, int]) -> bool:
    """Whether ``test`` is 3.12's form of 3.11's backward conditional jump: it skips just a
    ``JUMP_BACKWARD`` that nothing else jumps to, and that goes back to a ``while`` body
    (a jump back to ``FOR_ITER`` is an ``if`` at the end of a ``for`` body, forward on 3.11)."""
    return (test.opname in CONDITIONAL_JUMPS and jump is not None and after is not None
            and jump.opname == "JUMP_BACKWARD" and not jump.is_jump_target and test.argval == after.offset
            and raw[position[jump.argval]].opname != "FOR_ITER")


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
