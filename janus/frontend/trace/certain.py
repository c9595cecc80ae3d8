"""When a generation failure holds for every argument signature (``NotConvertible``'s
``any_signature``): ``janus.jit`` then runs the function imperatively for good without
computing entry keys, so a fallback costs what a plain call costs.

Certainty is judged conservatively: an instruction of the jitted function itself that
every call reaches before anything could branch away from it (straight-line code from the
entry, no exception handlers). Arguments decide branches, trip counts and which callees run,
so nothing reached only through them is ever called certain.
"""

from __future__ import annotations

from janus.frontend.trace.bytecode import Bytecode


def always_reached(bc: Bytecode, offset: int) -> bool:
    """Whether every execution of ``bc``'s code reaches ``offset`` (or raises first)."""
    if bc.code.co_exceptiontable:
        return False
    for ins in bc.instrs:
        if ins.offset == offset:
            return True
        if bc.successors(ins.offset) != (bc.next_offset(ins.offset),):
            return False
    return False
