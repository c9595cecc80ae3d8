"""Branch speculation: a conditional jump on a graph value is decided by the profile under
a ``janus.guard``, or both sides are traced and joined in an ``scf.if``."""

from __future__ import annotations

import numpy as np
from typing import Any

from janus.frontend.ops import mutation, op_table
from janus.frontend.recursion import trees
from janus.frontend.trace import either, exceptions, loops, scalars, split
from janus.frontend.trace.branches import Copier, Joiner
from janus.frontend.trace.bytecode import EXIT, Instr
from janus.frontend.trace.frame import Frame
from janus.frontend.values import NotConvertible, Tensor

#: nesting limit of branches converted to scf.if (each side is traced separately)
MAX_FORK_DEPTH = 16


class Branching:
    """The ``Tracer``'s conditional jumps (a mixin)."""

    def truth(self, frame: Frame, ins: Instr, value: Any) -> bool | None:
        """Python truth of ``value``; for a graph value, the profiled outcome, guarded, or
        None when the branch is not speculated (it varied, or was never profiled)."""
        if not isinstance(value, Tensor):
            try:
                return bool(value)
            except (ValueError, TypeError) as e:
                raise NotConvertible(f"truth value: {e}") from None
        if value.size != 1:
            raise NotConvertible(f"truth value of an array of shape {value.shape}")
        site = (frame.bc.code, ins.offset)
        taken = None if site in self.unspeculated or not self.speculation.speculate else self.profile.branch_outcome(site)
        if taken is None:
            return None
        truth = taken == ("TRUE" in ins.opname)
        untaken = frame.bc.next_offset(ins.offset) if taken else ins.target
        kind = "raise" if exceptions.raises(frame.bc.code, untaken) else "branch"
        condition = self.em.scalar_condition(op_table.cast(self.em, value, np.dtype(bool)))
        self.speculate(frame, ins, condition if truth else self.em.negate(condition), kind)
        return truth

    def speculate(self, frame: Frame, ins: Instr, condition: str, kind: str, why: str = "") -> None:
        """Guard that ``condition`` holds at the branch ``ins`` (``why``: said after its source line)."""
        source = frame.bc.source(ins.offset) + why
        gid = self.em.guard(condition, kind, source)
        self.guards.append((gid, kind, source))
        self.guard_sites[gid] = (frame.bc.code, ins.offset)

    def branch(self, frame: Frame, ins: Instr, value: Any, pop_on_fall: bool) -> int | None:
        """The next offset after a conditional jump on ``value``; ``pop_on_fall`` for the
        ``JUMP_IF_*_OR_POP`` forms, which leave the value on the stack when they jump."""
        if ins.target < ins.offset and isinstance(value, Tensor) and not pop_on_fall:
            return loops.back_edge(self, frame, ins, value)
        jump_if = "TRUE" in ins.opname
        if isinstance(value, (trees.SymNode, trees.SymChildren)):
            value = trees.condition(self, value)
        if isinstance(value, either.Either) and not pop_on_fall:  # ``x or y`` would leave the value itself
            value = either.truth(self.em, value)
        truth = self.truth(frame, ins, value)
        if truth is None:
            return self.fork(frame, ins, value, jump_if, pop_on_fall)
        if truth == jump_if:
            return ins.target
        if pop_on_fall:
            frame.stack.pop()
        return None

    def fork(self, frame: Frame, ins: Instr, value: Tensor, jump_if: bool, pop_on_fall: bool) -> int | None:
        """Trace both sides of a varying branch to where they meet and join them in an ``scf.if``."""
        if ins.offset in frame.forking:
            raise NotConvertible("a loop whose trip count depends on array values (needs scf.while)")
        if len(frame.forking) >= MAX_FORK_DEPTH:
            raise NotConvertible(f"more than {MAX_FORK_DEPTH} nested data-dependent branches")
        condition = self.em.scalar_condition(op_table.cast(self.em, value, np.dtype(bool)))
        join = frame.bc.join_point(ins.offset)
        attempt, guards_before = split.Attempt(self, bool, [], {}), len(self.guards)
        sides = []
        for jumps in (jump_if, not jump_if):  # the side taken when the condition is true first
            start = ins.target if jumps else frame.bc.next_offset(ins.offset)
            if exceptions.raises(frame.bc.code, start):
                sides.append(None)
                continue
            copier = Copier()
            side = Frame(frame.bc, frame.globals, copier(frame.locals), copier(frame.cells), copier(frame.stack),
                         forking=frame.forking | {ins.offset})
            if pop_on_fall and not jumps:
                side.stack.pop()
            outer, self.em.lines = self.em.lines, []
            self.em.sides[id(self.em.lines)] = outer
            at = next((i for i in range(len(self.frames) - 1, -1, -1) if self.frames[i] is frame), None)
            if at is not None:  # in-place updates substitute into the side's copies
                self.frames[at] = side
            guards = len(self.guards)
            self.branch_copies.append(copier.originals)
            try:
                self.execute(side, start, join)
                sides.append((side, copier, self.em.lines))
            except exceptions.TracedRaise:
                del self.guards[guards:]
                sides.append(None)
            except NotConvertible as e:  # this side runs in Python, if the other converts
                del self.guards[guards:]
                sides.append(e)
            finally:
                del self.em.sides[id(self.em.lines)]
                self.branch_copies.pop()
                self.em.lines = outer
                if at is not None:
                    self.frames[at] = frame
        if sides == [None, None]:
            raise exceptions.TracedRaise(f"both sides of the branch at {frame.bc.source(ins.offset)} raise")
        unconverted = [side for side in sides if isinstance(side, NotConvertible)]
        if len(unconverted) + sides.count(None) == 2:
            raise unconverted[0]
        if None in sides:
            return self.avoid_side(frame, ins, condition, jump_if, pop_on_fall, sides[0] is None, "raise")
        if unconverted:
            avoided_if = sides[0] is unconverted[0]
            python_jumps = jump_if == avoided_if
            if not pop_on_fall and self.python_side_common(frame, ins, python_jumps):
                if self.splits_later:  # a relaxed trace tried whole first: ``JitFunction._generate``
                    raise split.BranchToSplit(f"the branch at {frame.bc.source(ins.offset)} often takes a side that "
                                              f"runs in Python ({unconverted[0]}): a segment boundary there")
                if self.splitting:
                    self.split_at_branch(frame, ins, value, unconverted[0], attempt, guards_before)
            target = self.avoid_side(frame, ins, condition, jump_if, pop_on_fall, avoided_if, "python",
                                     f" (the other side runs in Python: {unconverted[0]})")
            self.note_python_side_taken_mostly(frame, ins, python_jumps, unconverted[0])
            return target
        (then, then_copier, then_lines), (other, else_copier, else_lines) = sides
        for name in then.locals.keys() ^ other.locals.keys():  # bound on one side only: unbound after
            then.locals.pop(name, None), other.locals.pop(name, None)
        base = self.em.fresh()
        joiner = Joiner(base, then_copier, else_copier, lambda a, b: scalars.promote(self.em, a, b, self.local_arrays),
                        lambda a, b, pair: either.join(self.em, a, b, pair))
        frame.result = joiner(then.result, other.result)
        mutation.join_fresh(self.em, joiner.joined)
        self.em.scf_if(base, condition, then_lines, else_lines, joiner.results)
        return None if join == EXIT else join

    def python_side_common(self, frame: Frame, ins: Instr, python_jumps: bool) -> bool:
        """Whether a call should leave the branch at ``ins`` through a segment boundary rather
        than a ``python`` guard (which runs the whole call in Python when the side that does
        not convert is taken): the profile saw that side (the jump taken when ``python_jumps``)
        in half the runs or more, or calls of an earlier version took it often
        (``JitFunction._guard_failed``)."""
        site = (frame.bc.code, ins.offset)
        taken = self.profile.runs_taking(site, python_jumps)
        return site in self.profile.python_sides or taken > 0 and 2 * taken >= self.profile.runs

    def split_at_branch(self, frame: Frame, ins: Instr, value: Tensor, reason: NotConvertible, attempt: split.Attempt,
                        guards_before: int) -> None:
        """End the segment at the jump when it can be a boundary (``split.end_branch``): the
        side that converts was traced for nothing, its guards go; otherwise return, and the
        branch keeps a ``python`` guard."""
        kept = self.guards[guards_before:]
        del self.guards[guards_before:]
        try:
            split.end_branch(self, frame, ins, value, reason, attempt)
        except NotConvertible:
            self.guards[guards_before:] = kept

    def note_python_side_taken_mostly(self, frame: Frame, ins: Instr, python_taken: bool,
                                      why: NotConvertible) -> None:
        """The python guard just made (the branch's side ``python_taken`` runs in Python), if
        the profile saw it fail on most runs, would send most calls to Python after paying for
        the compile: a graph that keeps it does not convert (``refuse_doomed_guards``; a side
        traced and dropped, or a trace tried again, takes its guard with it)."""
        runs = self.profile.runs
        failing = self.profile.runs_taking((frame.bc.code, ins.offset), python_taken)
        if runs and 2 * failing > runs:
            self.doomed[self.guards[-1][0]] = (f"the branch at {frame.bc.source(ins.offset)} took the side that runs "
                                               f"in Python on {failing} of {runs} profiled runs ({why})")

    def refuse_doomed_guards(self) -> None:
        """After the trace: ``NotConvertible`` when a python guard it kept would mostly fail."""
        for gid, _, _ in self.guards:
            if gid in self.doomed:
                raise NotConvertible(self.doomed[gid])

    def avoid_side(self, frame: Frame, ins: Instr, condition: str, jump_if: bool, pop_on_fall: bool,
                   avoided_if: bool, kind: str, why: str = "") -> int | None:
        """A branch with a side that raises or does not convert (taken when the condition is
        ``avoided_if``) is not forked: guard (kind ``raise`` or ``python``: a call taking that
        side runs in Python, the version stays) the other side, and go on along it."""
        self.speculate(frame, ins, self.em.negate(condition) if avoided_if else condition, kind, why)
        if jump_if != avoided_if:
            return ins.target
        if pop_on_fall:
            frame.stack.pop()
        return None

