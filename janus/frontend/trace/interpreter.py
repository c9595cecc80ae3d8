"""The bytecode interpreter: symbolic execution of one call into one ``func.func``.

Like TorchDynamo's ``symbolic_convert``, one handler per opcode steps a symbolic frame
(locals and a value stack); the handlers (``opcodes``), calls (``calls``) and branch
speculation (``branching``) are mixins of ``Tracer``, which holds the driver loop. Graph
values are ``Tensor``s; everything else is a real Python object, so Python containers,
ints and slices keep Python's own semantics and ``for`` loops over them unroll by
themselves. Control flow that depends on a graph value follows the way the profile says
it always went, under a ``janus.guard``; user functions are inlined by executing their
bytecode. Attributes, globals, nonlocals and container items are janus heap ops
(``heap.access``). Anything else raises ``NotConvertible``.
"""

from __future__ import annotations

import types
from typing import Any

import numpy as np

from janus.frontend import speculation
from janus.frontend.emitter import Emitter
from janus.frontend.heap.access import HeapTracker
from janus.frontend.profiler import Profile
from janus.frontend.recursion.invoke import Recursion
from janus.frontend.recursion.node_writes import TreeState, Widen
from janus.frontend.trace import exceptions, generators, loops
from janus.frontend.trace.branching import Branching
from janus.frontend.trace.bytecode import EXIT, Instr, decode
from janus.frontend.trace.calls import Calls
from janus.frontend.trace.certain import always_reached
from janus.frontend.trace.frame import NULL, Frame
from janus.frontend.trace.imperative import why_imperative
from janus.frontend.trace.opcodes import Opcodes
from janus.frontend.trace.split import BranchToSplit, SegmentEnd
from janus.frontend.values import NotConvertible

MAX_STEPS = 200_000
MAX_INLINE_DEPTH = 32


class Tracer(Opcodes, Branching, Calls):
    """Symbolic execution of one call into one ``func.func``."""

    def __init__(self, profile: Profile) -> None:
        self.profile = profile
        self.em = Emitter()
        self.guards: list[tuple[int, str, str]] = []
        self.globals_read: dict[tuple[int, str], tuple[dict, str, Any]] = {}
        self.depth = 0
        self.steps = 0
        #: branch sites not speculated even if the profile says they always went one way
        self.unspeculated: frozenset[tuple[types.CodeType, int]] = frozenset()
        self.speculation = speculation.FULL
        self.guard_sites: dict[int, tuple[types.CodeType, int]] = {}
        #: other ``func.func`` definitions of the module (text), emitted with ``em.sibling()``
        self.functions: list[str] = []
        #: code objects being traced (outermost first): calling one again is recursion
        self.active: list[types.CodeType] = []
        self.recursion = Recursion(self)
        self.tree_state = TreeState()  # node attributes written (``node_writes``)
        self.heap = HeapTracker(self)
        self.frames: list[Frame] = []  # the frames being executed, innermost last
        #: per data-dependent branch side being traced, the containers it copied (by id): the
        #: frames outside the branch see those through the join, never through a side's update
        self.branch_copies: list[dict[int, Any]] = []
        self.loops = loops.LoopState()
        self.call_site: tuple[Frame, Instr] | None = None  # the CALL being executed
        #: a generated function asks for its gradient: ``janus-autodiff`` runs before lowering
        self.needs_autodiff = False
        #: generator functions whose calls are boundaries (``generators.RunLazily``)
        self.lazy_generators: frozenset[types.CodeType] = frozenset()
        #: an unconvertible call in the traced function ends the trace there (``split.SegmentEnd``)
        self.splitting = False
        #: a trace that may not split, tried before one that may (``split.BranchToSplit``)
        self.splits_later = False
        #: python guard id -> why a graph keeping it would not pay (``Branching.note_python_side_taken_mostly``)
        self.doomed: dict[int, str] = {}
        #: NumPy arrays the trace made itself from static values (``np.zeros(n)``), by id:
        #: no other code holds them, so an item assignment of static values runs at trace time;
        #: also the stateless context managers it made (``exceptions.is_made_manager``)
        self.local_arrays: dict[int, Any] = {}
        #: how many of them became graph constants (``mutation.as_graph_constant``): a loop
        #: whose body made one is traced again, the array now a carried graph value
        self.graph_constants = 0

    # ---- driver -----------------------------------------------------------------------
    def run(self, code: types.CodeType, globals_: dict, arguments: dict[str, Any], closure: tuple = (),
            made: bool = False) -> Any:
        if code.co_flags & generators.UNSUPPORTED or self.depth == 0 and generators.is_generator(code):
            raise NotConvertible(f"{code.co_name} is a coroutine/async generator or a jitted generator",
                                 any_signature=self.depth == 0)
        if self.depth >= MAX_INLINE_DEPTH:
            raise NotConvertible(f"call depth over {MAX_INLINE_DEPTH} (recursion is not inlined)")
        frame = Frame(decode(code), globals_, dict(arguments))
        frame.cells.update(zip(code.co_freevars, closure))
        if generators.is_generator(code):
            if code in self.lazy_generators:  # a boundary: Python makes it (``RunLazily``)
                raise generators.lazy_call(code)
            frame.yields = []
        self.depth += 1
        self.active.append(code)
        self.frames.append(frame)
        try:
            self.execute(frame, frame.bc.instrs[0].offset)
        finally:
            self.depth -= 1
            self.active.pop()
            self.frames.pop()
        return frame.result if frame.yields is None else generators.GenIter(frame.yields, code.co_name, None if made else code)

    def execute(self, frame: Frame, offset: int, stop: int = EXIT) -> None:
        """Step ``frame`` from ``offset`` until it returns or reaches ``stop``."""
        while frame.result is NULL and offset != stop:
            self.steps += 1
            if self.steps > MAX_STEPS:
                raise NotConvertible(f"trace longer than {MAX_STEPS} instructions")
            ins = frame.bc.at(offset)
            self.em.loc = ins.loc
            handler = getattr(self, ins.opname, None)
            if handler is None:
                raise NotConvertible(f"bytecode {ins.opname} at {frame.bc.source(offset)}: {why_imperative(ins.opname)}",
                                     any_signature=self.depth == 1 and always_reached(frame.bc, offset))
            try:
                target = handler(frame, ins)
            except SegmentEnd:
                raise
            except exceptions.TracedRaise as e:
                raise exceptions.uncaught(e, frame.bc, offset) from None
            except NotConvertible as e:
                if getattr(e, "located", False):
                    raise
                located = NotConvertible(f"{e} (at {frame.bc.source(offset)})", any_signature=e.any_signature)
                located.located = True  # type: ignore[attr-defined]
                raise located from None
            except (Widen, generators.RunLazily, BranchToSplit):  # traced again (a node attribute's column, a lazy
                # generator, a branch that becomes a boundary)
                raise
            except Exception as e:  # Python raised while tracing: the real run will too
                raise NotConvertible(f"{type(e).__name__}: {e} (at {frame.bc.source(offset)})") from None
            if frame.result is NULL:
                offset = frame.bc.next_offset(offset) if target is None else target


    def guard(self, condition: str, kind: str, source: str) -> int:
        """Emit and record a ``janus.guard`` on the ``i1`` ``condition``."""
        gid = self.em.guard(condition, kind, source)
        self.guards.append((gid, kind, source))
        return gid

