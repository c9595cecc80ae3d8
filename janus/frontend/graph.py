"""Graph generator: symbolic execution of CPython 3.11 bytecode into an MLIR module.

Like TorchDynamo's ``symbolic_convert``, one handler per opcode steps a symbolic frame
(locals and a value stack). Graph values are ``Tensor``s; everything else is a real
Python object, so Python containers, ints and slices keep Python's own semantics and
``for`` loops over them unroll by themselves. Control flow that depends on a graph
value follows the way the profile says it always went, under a ``janus.guard``; user
functions are inlined by executing their bytecode. Attributes, globals, nonlocals and
container items are janus heap ops (``heap_access``). Anything else (a call with side
effects, a generator) raises ``NotConvertible``.
"""

from __future__ import annotations

import builtins
import re
import types
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from janus.frontend import (exceptions, generators, indexing, loops, mutation, op_table, relax, scalar_abi, scalars,
                            speculation, supercall, trees)
from janus.frontend.branches import Cell, Copier, Joiner, SymFunction, SymIter
from janus.frontend.bytecode import EXIT, Bytecode, Instr, decode
from janus.frontend.certain import always_reached
from janus.frontend.emitter import Emitter
from janus.frontend.imperative import why_imperative
from janus.frontend.heap_access import HeapRef, HeapTracker, holds_ref
from janus.frontend.heap_rules import is_heap_object
from janus.frontend.profiler import Profile
from janus.frontend.recursion import Recursion, simplify
from janus.frontend import recursion_results
from janus.frontend.values import NotConvertible, Tensor, Weak, contains_tensor

MAX_STEPS = 200_000
MAX_INLINE_DEPTH = 32
#: nesting limit of branches converted to scf.if (each side is traced separately)
MAX_FORK_DEPTH = 16
NULL = object()  # the stack marker PUSH_NULL / LOAD_GLOBAL / LOAD_METHOD leave for CALL

#: builtins that only rearrange their arguments, safe on graph values inside containers
STRUCTURAL_BUILTINS = {len, list, tuple, zip, enumerate, reversed}
#: structural builtins that iterate their arguments: an array argument is its rows
ITERATING_BUILTINS = {list, tuple, zip, enumerate, reversed}
#: builtins that are pure on static values
PURE_BUILTINS = STRUCTURAL_BUILTINS | {range, min, max, abs, int, float, bool, isinstance, sum, slice, round, divmod, sorted, all, any}
#: local containers whose methods may be called (they live only in the traced frame)
LOCAL_CONTAINERS = (list, dict, tuple, str, range)


class ArgumentList(list):
    """A list passed in by the caller: readable, but mutating it would be a heap write."""


MUTATORS = frozenset({"append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse"})


@dataclass
class BoundTensorMethod:
    receiver: Tensor
    name: str


@dataclass
class Frame:
    bc: Bytecode
    globals: dict
    locals: dict[str, Any]
    cells: dict[str, Cell] = field(default_factory=dict)
    stack: list[Any] = field(default_factory=list)
    kw_names: tuple[str, ...] = ()
    result: Any = NULL
    #: branches this (forked) frame is a side of: reaching one again means a data-dependent loop
    forking: frozenset[int] = frozenset()
    #: a generator's yields so far (None: not a generator; see ``generators``)
    yields: list[Any] | None = None

    def pop(self, n: int) -> list[Any]:
        if n == 0:
            return []
        values = self.stack[-n:]
        del self.stack[-n:]
        return values


@dataclass(frozen=True)
class Graph:
    """A generated function: the module text and how to call it from Python."""

    text: str
    func_name: str
    output: Any  # the returned value with each Tensor replaced by its result index
    guards: tuple[tuple[int, str, str], ...]  # (id, kind, source)
    globals_read: tuple[tuple[dict, str, Any], ...]  # (function globals, name, value seen)
    guard_sites: dict = field(default_factory=dict)  # guard id -> (code, offset) it speculates on
    heap: Any = None  # a heap_plan.HeapPlan when the graph reads or writes the Python heap

    def globals_unchanged(self) -> bool:
        """Whether every global the graph baked in still names the same object."""
        return all(resolve_global(ns, name, NULL) is value for ns, name, value in self.globals_read)


def local_dict(pairs: Any) -> dict:
    """A dict built by the traced code; its keys must be static (a graph value or heap
    object hashes by identity, not by what Python would compare)."""
    result = {}
    for key, value in pairs:
        if not _static_key(key):
            raise NotConvertible(f"a dict key of type {type(key).__name__} (only static keys)")
        result[key] = value
    return result


def _static_key(key: Any) -> bool:
    return type(key) in (bool, int, float, str, type(None)) or type(key) is tuple and all(map(_static_key, key))


def resolve_global(namespace: dict, name: str, default: Any) -> Any:
    """``name`` as ``LOAD_GLOBAL`` sees it: module globals first, then builtins."""
    return namespace[name] if name in namespace else vars(builtins).get(name, default)


class Tracer:
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
        self.heap = HeapTracker(self)
        self.frames: list[Frame] = []  # the frames being executed, innermost last
        self.loops = loops.LoopState()
        self.call_site: tuple[Frame, Instr] | None = None  # the CALL being executed

    # ---- driver -----------------------------------------------------------------------
    def run(self, code: types.CodeType, globals_: dict, arguments: dict[str, Any], closure: tuple = ()) -> Any:
        if code.co_flags & generators.UNSUPPORTED or self.depth == 0 and generators.is_generator(code):
            raise NotConvertible(f"{code.co_name} is a coroutine/async generator, takes *args/**kwargs or is a jitted generator",
                                 any_signature=self.depth == 0)
        if self.depth >= MAX_INLINE_DEPTH:
            raise NotConvertible(f"call depth over {MAX_INLINE_DEPTH} (recursion is not inlined)")
        frame = Frame(decode(code), globals_, dict(arguments))
        frame.cells.update(zip(code.co_freevars, closure))
        if generators.is_generator(code):
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
        return frame.result if frame.yields is None else generators.GenIter(frame.yields, code.co_name)

    def execute(self, frame: Frame, offset: int, stop: int = EXIT) -> None:
        """Step ``frame`` from ``offset`` until it returns or reaches ``stop``."""
        while frame.result is NULL and offset != stop:
            self.steps += 1
            if self.steps > MAX_STEPS:
                raise NotConvertible(f"trace longer than {MAX_STEPS} instructions")
            ins = frame.bc.at(offset)
            handler = getattr(self, ins.opname, None)
            if handler is None:
                raise NotConvertible(f"bytecode {ins.opname} at {frame.bc.source(offset)}: {why_imperative(ins.opname)}",
                                     any_signature=self.depth == 1 and always_reached(frame.bc, offset))
            try:
                target = handler(frame, ins)
            except exceptions.TracedRaise as e:
                raise exceptions.uncaught(e, frame.bc, offset) from None
            except NotConvertible as e:
                if getattr(e, "located", False):
                    raise
                located = NotConvertible(f"{e} (at {frame.bc.source(offset)})", any_signature=e.any_signature)
                located.located = True  # type: ignore[attr-defined]
                raise located from None
            except Exception as e:  # Python raised while tracing: the real run will too
                raise NotConvertible(f"{type(e).__name__}: {e} (at {frame.bc.source(offset)})") from None
            if frame.result is NULL:
                offset = frame.bc.next_offset(offset) if target is None else target

    # ---- calls ------------------------------------------------------------------------
    def call(self, fn: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
        trace = getattr(fn, "janus_trace", None)
        if trace is not None:  # a callable that traces its own calls (janus.grad and what it returns)
            return trace(self, args, kwargs)
        if fn is super and not args and not kwargs:
            return supercall.make(self.frames[-1])
        special = loops.call(self, fn, args, kwargs)
        if special is not loops.NOT_HANDLED:
            return special
        traced = contains_tensor(args) or contains_tensor(kwargs)
        if isinstance(fn, BoundTensorMethod):
            if fn.name not in op_table.METHODS:
                raise NotConvertible(f"array method .{fn.name}() is not in the op table")
            op, bind = op_table.METHODS[fn.name]
            return op_table.apply(self.em, op, [fn.receiver, *args], kwargs, bind)
        if isinstance(fn, types.MethodType):  # a bound Python method: its function, self first
            return self.call(fn.__func__, [fn.__self__, *args], kwargs)
        if isinstance(fn, trees.BoundNodeMethod):
            return self.call(fn.function, [fn.node, *args], kwargs)
        if isinstance(fn, SymFunction):
            return self.inline(fn.code, fn.globals, fn.defaults, {}, fn.closure, args, kwargs)
        if isinstance(fn, types.FunctionType) and not fn.__module__.startswith("numpy"):
            closure = self.heap.closure(fn) if fn.__closure__ else ()
            return self.inline(fn.__code__, fn.__globals__, fn.__defaults__ or (), fn.__kwdefaults__ or {}, closure, args, kwargs)
        if fn is getattr and len(args) == 2 and isinstance(args[0], HeapRef) and type(args[1]) is str and not kwargs:
            return self.attribute(args[0], args[1])  # ``getattr(self, name)``: a heap read, as ``self.name``
        if holds_ref(args) or holds_ref(kwargs):
            raise NotConvertible(f"a heap object is passed to {getattr(fn, '__qualname__', type(fn).__name__)} (only inlined code may use it)")
        op = op_table.BY_FUNCTION.get(fn) if _hashable(fn) else None
        if op is not None:
            return op_table.apply(self.em, op, args, kwargs) if traced else op.eager(*args, **kwargs)
        if fn is abs and traced:
            return op_table.apply(self.em, op_table.OPS["absolute"], args, kwargs)
        if _hashable(fn) and fn in PURE_BUILTINS and (not traced or fn in STRUCTURAL_BUILTINS):
            recursion_results.check_usable(*args)
            if fn is len and args and isinstance(args[0], Tensor):
                return args[0].static_shape()[0]
            if fn in ITERATING_BUILTINS:
                args = [self.iterate(a) if isinstance(a, Tensor) else a for a in args]
            result = fn(*args, **kwargs)
            generators.check_consumed(args, fn.__name__)
            return result
        if isinstance(fn, type) and issubclass(fn, np.generic) and not traced:
            return fn(*args, **kwargs)
        if isinstance(fn, types.BuiltinMethodType) and isinstance(fn.__self__, LOCAL_CONTAINERS):
            return fn(*args, **kwargs)
        made = exceptions.construct(fn, args, kwargs) if isinstance(fn, type) else None
        if made is not None:
            return made
        name = getattr(fn, "__qualname__", type(fn).__name__)
        raise NotConvertible(f"call to {name} is not supported (not in the op table, not inlinable)")

    def inline(
        self, code: types.CodeType, globals_: dict, defaults: tuple, kwdefaults: dict, closure: tuple, args: list, kwargs: dict
    ) -> Any:
        """Run a callee's bytecode with its arguments bound as CPython would; a callee
        already being traced (recursion) is invoked instead (see ``recursion``)."""
        bound = bind_arguments(code, defaults, kwdefaults, args, kwargs)
        if code in self.active:
            return self.recursion.invoke(code, globals_, closure, bound)
        return self.run(code, globals_, bound, closure)

    def guard(self, condition: str, kind: str, source: str) -> int:
        """Emit and record a ``janus.guard`` on the ``i1`` ``condition``."""
        gid = self.em.guard(condition, kind, source)
        self.guards.append((gid, kind, source))
        return gid

    # ---- speculation ------------------------------------------------------------------
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

    def speculate(self, frame: Frame, ins: Instr, condition: str, kind: str) -> None:
        """Guard that ``condition`` holds at the branch ``ins``."""
        source = frame.bc.source(ins.offset)
        gid = self.em.guard(condition, kind, source)
        self.guards.append((gid, kind, source))
        self.guard_sites[gid] = (frame.bc.code, ins.offset)

    def branch(self, frame: Frame, ins: Instr, value: Any, pop_on_fall: bool) -> int | None:
        """The next offset after a conditional jump on ``value``; ``pop_on_fall`` for the
        ``JUMP_IF_*_OR_POP`` forms, which leave the value on the stack when they jump."""
        if ins.target < ins.offset and isinstance(value, Tensor) and not pop_on_fall:
            return loops.back_edge(self, frame, ins, value)
        jump_if = "TRUE" in ins.opname
        if isinstance(value, trees.SymNode):
            value = trees.condition(self, value)
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
            guards = len(self.guards)
            try:
                self.execute(side, start, join)
                sides.append((side, copier, self.em.lines))
            except exceptions.TracedRaise:
                del self.guards[guards:]
                sides.append(None)
            finally:
                self.em.lines = outer
        if sides == [None, None]:
            raise exceptions.TracedRaise(f"both sides of the branch at {frame.bc.source(ins.offset)} raise")
        if None in sides:
            return self.avoid_raise(frame, ins, condition, jump_if, pop_on_fall, raising_if=sides[0] is None)
        (then, then_copier, then_lines), (other, else_copier, else_lines) = sides
        for name in then.locals.keys() ^ other.locals.keys():  # bound on one side only: unbound after
            then.locals.pop(name, None), other.locals.pop(name, None)
        base = self.em.fresh()
        joiner = Joiner(base, then_copier, else_copier, lambda a, b: scalars.promote(self.em, a, b))
        frame.result = joiner(then.result, other.result)
        self.em.scf_if(base, condition, then_lines, else_lines, joiner.results)
        return None if join == EXIT else join

    def avoid_raise(self, frame: Frame, ins: Instr, condition: str, jump_if: bool, pop_on_fall: bool,
                    raising_if: bool) -> int | None:
        """A branch with a side that raises (taken when the condition is ``raising_if``) is
        not forked: guard (kind ``raise``) the other side, and go on along it."""
        self.speculate(frame, ins, self.em.negate(condition) if raising_if else condition, "raise")
        if jump_if != raising_if:
            return ins.target
        if pop_on_fall:
            frame.stack.pop()
        return None

    # ---- opcode handlers (names are opnames) -----------------------------------------------
    def NOP(self, frame: Frame, ins: Instr) -> None:
        """no effect on the symbolic frame"""
        pass

    RESUME = PRECALL = COPY_FREE_VARS = NOP
    EXTENDED_ARG = NOP  # dis already folded its bits into the next instruction's argument

    def PUSH_NULL(self, frame: Frame, ins: Instr) -> None:
        """stack marker for CALL"""
        frame.stack.append(NULL)

    def POP_TOP(self, frame: Frame, ins: Instr) -> None:
        """stack manipulation"""
        frame.stack.pop()

    def COPY(self, frame: Frame, ins: Instr) -> None:
        """stack manipulation"""
        frame.stack.append(frame.stack[-ins.arg])

    def SWAP(self, frame: Frame, ins: Instr) -> None:
        """stack manipulation"""
        s = frame.stack
        s[-1], s[-ins.arg] = s[-ins.arg], s[-1]

    def LOAD_CONST(self, frame: Frame, ins: Instr) -> None:
        """constant: a Python value (arrays become graph literals when used)"""
        frame.stack.append(ins.argval)

    def LOAD_FAST(self, frame: Frame, ins: Instr) -> None:
        """local variable: its symbolic value (a graph value or a Python object)"""
        if ins.argval not in frame.locals:
            raise NotConvertible(f"local {ins.argval} is unbound (or was last bound inside a loop in the graph)")
        frame.stack.append(frame.locals[ins.argval])

    def STORE_FAST(self, frame: Frame, ins: Instr) -> None:
        """local variable: rebinds the symbolic value"""
        frame.locals[ins.argval] = frame.stack.pop()

    def DELETE_FAST(self, frame: Frame, ins: Instr) -> None:
        """local variable: unbinds it"""
        frame.locals.pop(ins.argval, None)

    def MAKE_CELL(self, frame: Frame, ins: Instr) -> None:
        """closure cell: local to the trace, or of the jitted function (janus.get_attr/set_attr of cell_contents)"""
        frame.cells[ins.argval] = Cell(frame.locals.pop(ins.argval, None))

    def LOAD_CLOSURE(self, frame: Frame, ins: Instr) -> None:
        """closure cell: local to the trace, or of the jitted function (janus.get_attr/set_attr of cell_contents)"""
        frame.stack.append(frame.cells[ins.argval])

    def LOAD_DEREF(self, frame: Frame, ins: Instr) -> None:
        """closure cell: local to the trace, or of the jitted function (janus.get_attr/set_attr of cell_contents)"""
        frame.stack.append(frame.cells[ins.argval].contents)

    def STORE_DEREF(self, frame: Frame, ins: Instr) -> None:
        """closure cell: local to the trace, or of the jitted function (janus.get_attr/set_attr of cell_contents)"""
        frame.cells[ins.argval].contents = frame.stack.pop()

    def LOAD_GLOBAL(self, frame: Frame, ins: Instr) -> None:
        """global bound to a module, function, class or constant: baked in, guarded at entry by identity"""
        name = ins.argval
        value = resolve_global(frame.globals, name, NULL)
        traces_itself = hasattr(value, "janus_trace")  # jit and grad functions: baked in
        handled, heap_value = (False, None) if traces_itself else self.heap.load_global(frame.globals, name, value)
        if handled:
            frame.stack.extend((NULL, heap_value) if ins.arg & 1 else (heap_value,))
            return
        if value is NULL:
            raise NotConvertible(f"global {name} is not defined")
        ok = isinstance(value, (types.ModuleType, types.FunctionType, types.BuiltinFunctionType, type, np.ufunc, bool, int, float, str, type(None)))
        ok = ok or traces_itself
        if not ok:
            raise NotConvertible(f"global {name} is a {type(value).__name__} (reading mutable globals needs heap ops)")
        self.globals_read[(id(frame.globals), name)] = (frame.globals, name, value)
        if ins.arg & 1:
            frame.stack.append(NULL)
        frame.stack.append(value)

    def STORE_GLOBAL(self, frame: Frame, ins: Instr) -> None:
        """global assignment: janus.set_attr on the module object, committed after the call"""
        self.heap.store_global(frame.globals, ins.argval, frame.stack.pop())

    def LOAD_ATTR(self, frame: Frame, ins: Instr) -> None:
        """attribute of an array (shape, dtype, T...), a NumPy module or a number; of a heap object, janus.get_attr; of a tree node, a gather"""
        obj = frame.stack.pop()
        tested = trees.none_test(self, obj, ins.argval, frame.bc, ins.offset) if isinstance(obj, trees.SymNode) else None
        frame.stack.append(self.attribute(obj, ins.argval) if tested is None else tested)

    def STORE_ATTR(self, frame: Frame, ins: Instr) -> None:
        """attribute assignment on a heap object: janus.set_attr, committed after the call"""
        value, obj = frame.pop(2)
        if not isinstance(obj, HeapRef):
            raise NotConvertible(f"attribute assignment on a {type(obj).__name__}")
        self.heap.write(obj, "attr", ins.argval, value)

    def LOAD_METHOD(self, frame: Frame, ins: Instr) -> None:
        """method of an array (op table), a local container or a heap object (inlined)"""
        obj = frame.stack.pop()
        method = self.heap.method(obj, ins.argval) if isinstance(obj, HeapRef) else None
        if method is not None:  # CALL sees (function, self, args...)
            frame.stack.extend((method, obj))
            return
        frame.stack.append(NULL)
        if isinstance(obj, Tensor):
            frame.stack.append(BoundTensorMethod(obj, ins.argval))
        elif isinstance(obj, ArgumentList) and ins.argval in MUTATORS:
            raise NotConvertible(f".{ins.argval}() on a list argument (a heap write)")
        elif isinstance(obj, LOCAL_CONTAINERS):
            frame.stack.append(getattr(obj, ins.argval))
        else:
            frame.stack.append(self.attribute(obj, ins.argval))

    def attribute(self, obj: Any, name: str) -> Any:
        if isinstance(obj, trees.SymNode):
            return trees.attribute(self, obj, name)
        if isinstance(obj, supercall.SymSuper):
            return obj.attribute(self, name)
        if isinstance(obj, HeapRef):
            method = self.heap.method(obj, name)  # ``self.loss`` passed along (to janus.grad): bound here
            return types.MethodType(method, obj) if method is not None else self.heap.read(obj, "attr", name)
        if isinstance(obj, Tensor):
            if name == "T":
                return op_table.apply(self.em, op_table.OPS["transpose"], [obj], {})
            if name in ("ndim", "size"):
                return getattr(obj, name)
            if name == "shape":
                return obj.static_shape()
            if name == "dtype":
                return obj.dtype
            raise NotConvertible(f"array attribute .{name} is not supported")
        if isinstance(obj, types.ModuleType) and obj.__name__.split(".")[0] == "numpy":
            return getattr(obj, name)
        if isinstance(obj, types.ModuleType) and hasattr(getattr(obj, name, None), "janus_trace"):
            return getattr(obj, name)
        if obj is np.add and name == "at":
            return mutation.ADD_AT
        if isinstance(obj, (np.ndarray, np.generic, np.dtype, int, float, complex)):
            return getattr(obj, name)
        raise NotConvertible(f"attribute .{name} of a {type(obj).__name__} (object attributes need heap ops)")

    def KW_NAMES(self, frame: Frame, ins: Instr) -> None:
        """keyword names of the next CALL"""
        frame.kw_names = ins.argval

    def CALL(self, frame: Frame, ins: Instr) -> None:
        """op-table function (NumPy), inlined Python function or method, pure builtin"""
        values = frame.pop(ins.arg)
        first, fn = frame.pop(2)
        if first is not NULL:  # a method with its self
            fn, values = first, [fn, *values]
        kwnames, frame.kw_names = frame.kw_names, ()
        split = len(values) - len(kwnames)
        self.call_site = (frame, ins)
        frame.stack.append(self.call(fn, values[:split], dict(zip(kwnames, values[split:]))))

    def CALL_FUNCTION_EX(self, frame: Frame, ins: Instr) -> None:
        """call with *args/**kwargs unpacked at trace time (as CALL)"""
        kwargs = frame.stack.pop() if ins.arg & 1 else {}
        args = frame.stack.pop()
        fn = frame.stack.pop()
        if frame.stack and frame.stack[-1] is NULL:
            frame.stack.pop()
        frame.stack.append(self.call(fn, list(args), dict(kwargs)))

    def MAKE_FUNCTION(self, frame: Frame, ins: Instr) -> None:
        """function made in the trace (lambda, comprehension): inlined where called"""
        code = frame.stack.pop()
        closure = frame.stack.pop() if ins.arg & 0x08 else ()
        if ins.arg & 0x06:
            raise NotConvertible("function definitions with annotations or keyword defaults")
        defaults = frame.stack.pop() if ins.arg & 0x01 else ()
        frame.stack.append(SymFunction(code, frame.globals, tuple(defaults), tuple(closure)))

    def binary(self, symbol: str, a: Any, b: Any) -> Any:
        if not (isinstance(a, Tensor) or isinstance(b, Tensor)):
            return _PY_OPERATORS[symbol](a, b)
        if symbol not in op_table.OPERATORS:
            raise NotConvertible(f"operator {symbol} on arrays is not in the op table")
        a, b = scalars.operands(self.em, symbol, a, b)
        return scalars.result(self, symbol, a, b, op_table.apply(self.em, op_table.OPERATORS[symbol], [a, b], {}))

    def BINARY_OP(self, frame: Frame, ins: Instr) -> None:
        """operator: op-table op on graph values, Python's on static values"""
        a, b = frame.pop(2)
        symbol = ins.argrepr
        if symbol.endswith("=") and symbol != "==":
            updated = self.heap.inplace(symbol, a, b)
            if updated is not None:
                frame.stack.append(updated)
                return
            updated = mutation.inplace(self, frame, ins.offset, symbol, a, b)
            if updated is not None:
                frame.stack.append(updated)
                return
            if type(a) is list and symbol == "+=":  # a list of this trace: extended in place, as in Python
                a += self.iterate(b)
                frame.stack.append(a)
                return
            if isinstance(a, (Tensor, ArgumentList)) or isinstance(a, list) and contains_tensor(a):
                raise NotConvertible(f"in-place {symbol} on an array or list of arrays (a heap write)")
            symbol = symbol[:-1]
        frame.stack.append(self.binary(symbol, a, b))

    def COMPARE_OP(self, frame: Frame, ins: Instr) -> None:
        """comparison: op-table op on graph values, Python's on static values"""
        a, b = frame.pop(2)
        frame.stack.append(self.binary(ins.argval, a, b))

    def UNARY_NEGATIVE(self, frame: Frame, ins: Instr) -> None:
        """negation: op-table op on graph values"""
        x = frame.stack.pop()
        if isinstance(x, Weak):  # Python's -x, through the guarded scalar arithmetic (-0.0 kept)
            frame.stack.append(self.binary("*", -1.0, x) if x.dtype.kind == "f" else self.binary("-", 0, x))
            return
        frame.stack.append(op_table.apply(self.em, op_table.OPS["negative"], [x], {}) if isinstance(x, Tensor) else -x)

    def UNARY_NOT(self, frame: Frame, ins: Instr) -> None:
        """`not` of a static value"""
        x = frame.stack.pop()
        if isinstance(x, Tensor):
            raise NotConvertible("`not` on an array value")
        frame.stack.append(not x)

    def IS_OP(self, frame: Frame, ins: Instr) -> None:
        """identity of static values"""
        a, b = frame.pop(2)
        recursion_results.check_usable(a, b)
        if isinstance(a, (trees.SymNode, trees.OptionalRead)) or isinstance(b, (trees.SymNode, trees.OptionalRead)):
            frame.stack.append(trees.identity(self, a, b, negate=bool(ins.arg)))
            return
        if isinstance(a, Tensor) and isinstance(b, Tensor) and a is not b:
            raise NotConvertible("`is` between two array values")
        if isinstance(a, HeapRef) and isinstance(b, HeapRef) and a is not b:
            raise NotConvertible("`is` between two heap objects reached by different paths")
        frame.stack.append((a is b) != bool(ins.arg))

    def CONTAINS_OP(self, frame: Frame, ins: Instr) -> None:
        """`in` on static values"""
        a, b = frame.pop(2)
        if contains_tensor(a) or contains_tensor(b):
            raise NotConvertible("`in` on array values")
        frame.stack.append((a in b) != bool(ins.arg))

    def BINARY_SUBSCR(self, frame: Frame, ins: Instr) -> None:
        """indexing: op-table slice/gather on graph values, Python's on containers"""
        container, key = frame.pop(2)
        if isinstance(container, Tensor) and indexing.is_dynamic(key):
            frame.stack.append(indexing.getitem(self, container, key))
        elif isinstance(container, Tensor):
            frame.stack.append(op_table.apply(self.em, op_table.OPS["getitem"], [container, key], {}))
        elif isinstance(container, HeapRef):
            frame.stack.append(self.heap.read(container, "item", key))
        elif isinstance(key, Tensor) or contains_tensor(key):
            raise NotConvertible("indexing a Python container with an array value")
        else:
            frame.stack.append(container[key])

    def STORE_SUBSCR(self, frame: Frame, ins: Instr) -> None:
        """item assignment into a list or dict local to the trace; into a heap container, janus.set_item"""
        value, container, key = frame.pop(3)
        if isinstance(container, HeapRef):
            return self.heap.write(container, "item", key, value)
        if isinstance(container, Tensor):
            return mutation.setitem(self, container, key, value)
        if not isinstance(container, (list, dict)) or isinstance(container, ArgumentList) or contains_tensor(key):
            raise NotConvertible(f"item assignment on a {type(container).__name__} (a heap write)")
        container[key] = value

    def BUILD_TUPLE(self, frame: Frame, ins: Instr) -> None:
        """container local to the trace"""
        frame.stack.append(tuple(frame.pop(ins.arg)))

    def BUILD_LIST(self, frame: Frame, ins: Instr) -> None:
        """container local to the trace"""
        frame.stack.append(list(frame.pop(ins.arg)))

    def BUILD_MAP(self, frame: Frame, ins: Instr) -> None:
        """dict local to the trace, with static keys"""
        items = frame.pop(2 * ins.arg)
        frame.stack.append(local_dict(zip(items[::2], items[1::2])))

    def BUILD_CONST_KEY_MAP(self, frame: Frame, ins: Instr) -> None:
        """dict local to the trace, with static keys"""
        keys = frame.stack.pop()
        frame.stack.append(local_dict(zip(keys, frame.pop(ins.arg))))

    def MAP_ADD(self, frame: Frame, ins: Instr) -> None:
        """dict comprehension item"""
        key, value = frame.pop(2)
        frame.stack[-ins.arg].update(local_dict([(key, value)]))

    def DICT_UPDATE(self, frame: Frame, ins: Instr) -> None:
        """``{**d}`` of a dict local to the trace (a heap dict's items would be heap reads)"""
        mapping = frame.stack.pop()
        if type(mapping) is not dict:
            raise NotConvertible(f"** of a {type(mapping).__name__} (only dicts built in the traced code)")
        frame.stack[-ins.arg].update(mapping)

    def BUILD_SLICE(self, frame: Frame, ins: Instr) -> None:
        """slice of static bounds"""
        frame.stack.append(slice(*frame.pop(ins.arg)))

    def LIST_APPEND(self, frame: Frame, ins: Instr) -> None:
        """container local to the trace"""
        value = frame.stack.pop()
        frame.stack[-ins.arg].append(value)

    def LIST_EXTEND(self, frame: Frame, ins: Instr) -> None:
        """container local to the trace"""
        value = frame.stack.pop()
        frame.stack[-ins.arg].extend(value)

    def UNPACK_SEQUENCE(self, frame: Frame, ins: Instr) -> None:
        """unpacking of a container, or of an array's rows"""
        seq = frame.stack.pop()
        items = self.iterate(seq)
        if len(items) != ins.arg:
            raise NotConvertible(f"cannot unpack {len(items)} values into {ins.arg}")
        frame.stack.extend(reversed(items))

    def iterate(self, value: Any) -> list[Any]:
        """The items a Python loop over ``value`` sees (rows, for an array)."""
        if isinstance(value, Tensor):
            if value.ndim == 0:
                raise NotConvertible("iteration over a 0-d array")
            return [op_table.apply(self.em, op_table.OPS["getitem"], [value, i], {}) for i in range(value.static_shape()[0])]
        if isinstance(value, HeapRef) and type(value.obj) in (list, tuple):  # its length is part of its spec
            return [self.heap.read(value, "item", i) for i in range(len(value.obj))]
        try:
            return list(value)
        except TypeError as e:
            raise NotConvertible(f"iteration: {e}") from None

    def GET_ITER(self, frame: Frame, ins: Instr) -> None:
        """iteration over a container or an array's rows (static length); over a relaxed list, range or ? rows, a graph loop"""
        value = frame.stack.pop()
        generators.refuse_loop(value)
        graph_loop = loops.iterator(self, value)
        frame.stack.append(graph_loop if graph_loop is not None else SymIter(self.iterate(value)))

    def FOR_ITER(self, frame: Frame, ins: Instr) -> int | None:
        """loop step: unrolled at trace time, or an scf.for (long loops, relaxed lengths)"""
        if isinstance(frame.stack[-1], loops.GraphIter):
            return loops.run_for(self, frame, ins)
        try:
            frame.stack.append(next(frame.stack[-1]))
            return None
        except StopIteration:
            frame.stack.pop()
            return ins.target

    def JUMP_FORWARD(self, frame: Frame, ins: Instr) -> int:
        """unconditional jump"""
        return ins.target

    JUMP_BACKWARD = JUMP_BACKWARD_NO_INTERRUPT = JUMP_FORWARD

    def _pop_jump(self, frame: Frame, ins: Instr) -> int | None:
        """conditional jump: static, speculated under a guard (kind branch) or both sides joined in scf.if"""
        value = frame.stack.pop()
        if ins.opname.endswith("NONE") and isinstance(value, (trees.SymNode, trees.OptionalRead)):  # both forms as jump-if-false
            test = trees.is_none(self, value, negate=not ins.opname.endswith("NOT_NONE"))
            return self.branch(frame, ins, test, pop_on_fall=False)
        if ins.opname.endswith("NONE"):
            recursion_results.check_usable(value)
            return ins.target if (value is None) == ins.opname.endswith("_IF_NONE") else None
        return self.branch(frame, ins, value, pop_on_fall=False)

    POP_JUMP_FORWARD_IF_TRUE = POP_JUMP_FORWARD_IF_FALSE = POP_JUMP_BACKWARD_IF_TRUE = _pop_jump
    POP_JUMP_BACKWARD_IF_FALSE = POP_JUMP_FORWARD_IF_NONE = POP_JUMP_FORWARD_IF_NOT_NONE = _pop_jump
    POP_JUMP_BACKWARD_IF_NONE = POP_JUMP_BACKWARD_IF_NOT_NONE = _pop_jump

    def _jump_or_pop(self, frame: Frame, ins: Instr) -> int | None:
        """short-circuit and/or: as a conditional jump"""
        return self.branch(frame, ins, frame.stack[-1], pop_on_fall=True)

    JUMP_IF_TRUE_OR_POP = JUMP_IF_FALSE_OR_POP = _jump_or_pop

    def RETURN_VALUE(self, frame: Frame, ins: Instr) -> None:
        """return: the graph's results"""
        frame.result = self.recursion.returned(frame.stack.pop(), frame.bc.code)

    def RETURN_GENERATOR(self, frame: Frame, ins: Instr) -> None:
        """generator start: the body runs eagerly, its yields collected (whole consumers only)"""
        frame.stack.append(None)  # what the first resumption sends (popped by the next POP_TOP)

    def YIELD_VALUE(self, frame: Frame, ins: Instr) -> None:
        """yield in a generator run eagerly: the value is collected, None is sent back"""
        generators.collect(frame.yields, frame.stack.pop(), frame.bc.code, self.loops.active)
        frame.stack.append(None)

    def RAISE_VARARGS(self, frame: Frame, ins: Instr) -> None:
        """raise: the branch leading here is guarded (kind raise); reached on the traced path, NotConvertible"""
        raise exceptions.raised(frame.bc, ins.offset, frame.pop(ins.arg))

    def LOAD_ASSERTION_ERROR(self, frame: Frame, ins: Instr) -> None:
        """assert: pushes AssertionError; a failing assert is a raise"""
        frame.stack.append(AssertionError)

    def BEFORE_WITH(self, frame: Frame, ins: Instr) -> None:
        """with: __enter__ traced now, __exit__(None, None, None) on the normal way out (exceptions.enter)"""
        exit_method, entered = exceptions.enter(self.call, frame.stack.pop())
        frame.stack.extend((exit_method, entered))


def bind_arguments(code: types.CodeType, defaults: tuple, kwdefaults: dict, args: list, kwargs: dict) -> dict[str, Any]:
    """Parameters of ``code`` bound to a call's arguments (no ``*args``/``**kwargs``)."""
    npos = code.co_argcount
    names = code.co_varnames[: npos + code.co_kwonlyargcount]
    if len(args) > npos:
        raise NotConvertible(f"{code.co_name}() got too many positional arguments")
    bound = dict(zip(names, args))
    for name, value in kwargs.items():
        if name in bound or name not in names or names.index(name) < code.co_posonlyargcount:
            raise NotConvertible(f"{code.co_name}() got an unexpected keyword argument {name!r}")
        bound[name] = value
    first_default = npos - len(defaults)
    for i, name in enumerate(names):
        if name in bound:
            continue
        if first_default <= i < npos:
            bound[name] = defaults[i - first_default]
        elif name in kwdefaults:
            bound[name] = kwdefaults[name]
        else:
            raise NotConvertible(f"{code.co_name}() missing argument {name!r}")
    return bound


def _hashable(value: Any) -> bool:
    try:
        hash(value)
        return True
    except TypeError:
        return False


_PY_OPERATORS: dict[str, Callable[[Any, Any], Any]] = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b, "/": lambda a, b: a / b,
    "//": lambda a, b: a // b, "%": lambda a, b: a % b, "**": lambda a, b: a**b, "@": lambda a, b: a @ b,
    "&": lambda a, b: a & b, "|": lambda a, b: a | b, "^": lambda a, b: a ^ b,
    "<<": lambda a, b: a << b, ">>": lambda a, b: a >> b,
    "<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b, "==": lambda a, b: a == b, "!=": lambda a, b: a != b,
}


def generate(fn: Callable, args: tuple, profile: Profile, shapes: list[tuple] | None = None,
             unspeculated: frozenset = frozenset(), relaxed: frozenset = frozenset(),
             switches: speculation.Speculation = speculation.FULL) -> Graph:
    """The graph of ``fn`` called with ``args`` (positional, defaults applied).

    ``shapes`` gives each array argument's shape with symbols for ``?`` dims (default:
    the exact shapes); branches at ``unspeculated`` sites become ``scf.if`` even if fixed;
    ``relaxed`` holds the list and int positions relaxed by value (see ``relax``);
    ``switches`` turns speculative optimizations off (see ``speculation``).
    """
    tracer = Tracer(profile)
    tracer.unspeculated = unspeculated
    tracer.speculation = switches
    inputs: list[Tensor] = []
    scalar_inputs: set[int] = set()

    def argument(a: Any) -> Tensor:
        if type(a) is int:  # a relaxed int leaf: an i64 parameter (see ``scalar_abi``)
            scalar_inputs.add(len(inputs))
            a = np.asarray(a, np.int64)
        shape = shapes[len(inputs)] if shapes is not None else np.shape(a)
        t = Tensor(f"%arg{len(inputs)}", shape, a.dtype)
        inputs.append(t)
        for d, size in enumerate(shape):
            if isinstance(size, str):
                tracer.em.bind_dim(size, t, d)
        return t

    def tree(root: Any) -> trees.SymNode:
        kind, arrays = trees.linearize(root)
        return trees.tree_argument(tracer.em, kind, [argument(a) for a in arrays])

    code = fn.__code__
    names = code.co_varnames[: code.co_argcount]
    def sequence(typ: type, items: list) -> Any:
        return (ArgumentList if typ is list else typ)(items)

    symbolic = [
        tracer.heap.argument(i, names[i], a) if is_heap_object(a) and not trees.is_tree(a) and i < len(names)
        else relax.symbolic_argument(a, (i,), relaxed, argument, sequence, tree)
        for i, a in enumerate(args)
    ]
    if code.co_kwonlyargcount or len(names) != len(symbolic):
        raise NotConvertible("keyword-only or variadic parameters are not supported")
    closure = tracer.heap.closure(fn) if fn.__closure__ else ()
    result = tracer.run(code, fn.__globals__, dict(zip(names, symbolic)), closure)
    outputs: list[Tensor] = []

    def output(t: Tensor) -> int:
        outputs.append(t)
        return len(outputs) - 1

    shape = _outputs(result, output)
    # not with recursive functions: a scalar result out of eliminate-recursion's frame stack
    # fails at run time in IREE ("variant ... is not a value type", ackermann)
    scalar_outputs = frozenset() if tracer.functions else scalar_abi.scalar_results(outputs, range(len(outputs)))
    tracer.heap.structure_outputs(output)
    func_name = re.sub(r"\W", "_", fn.__name__)
    functions = [scalar_abi.entry_function(func_name, inputs, outputs, tracer.heap.prologue + tracer.em.lines,
                                           scalar_inputs, scalar_outputs), *tracer.functions]
    text = "module {\n" + "\n".join(functions) + "\n}\n"
    if tracer.functions:
        text = simplify(text)
    return Graph(text, func_name, shape, tuple(tracer.guards), tuple(tracer.globals_read.values()), tracer.guard_sites,
                 tracer.heap.plan(inputs, outputs))


@dataclass(frozen=True)
class Result:
    """Where a returned graph value comes from: result ``index`` of the compiled call,
    converted to ``python`` when it stands for a Python scalar."""

    index: int
    #: the Python scalar type of a ``Weak`` result (a Python int stays an int)
    python: type | None = None


def _outputs(value: Any, output: Callable[[Tensor], int]) -> Any:
    if isinstance(value, Tensor):
        return Result(output(value), value.python_type if isinstance(value, Weak) else None)
    if type(value) in (list, tuple, ArgumentList):
        return (tuple if type(value) is tuple else list)(_outputs(v, output) for v in value)
    if type(value) in (bool, int, float, str, type(None)) or isinstance(value, (np.generic, np.ndarray)):
        return value
    raise NotConvertible(f"returning a {type(value).__name__} is not supported")
