"""One handler per CPython opcode (the method's name is the opname; its docstring is the
coverage table's entry in docs/coverage.md)."""

from __future__ import annotations

import dataclasses
import operator
import types
from typing import Any, Callable

from janus.frontend.heap.access import HeapRef
from janus.frontend.heap.rules import LAZY_ITERATORS, bind
from janus.frontend.ops import indexing, mutation, registry
from janus.frontend.recursion import results as recursion_results
from janus.frontend.recursion import node_writes, trees
from janus.frontend.trace import either, exceptions, generators, loops, scalars
from janus.frontend.trace import split as boundary
from janus.frontend.trace.branches import Cell, SymFunction, SymIter
from janus.frontend.trace.calls import DictView
from janus.frontend.trace.bytecode import CONDITIONAL_JUMPS, Instr
from janus.frontend.trace.versions import DIALECT
from janus.frontend.trace.frame import NULL, ArgumentList, BoundTensorMethod, Frame, local_dict, resolve_global
from janus.frontend.values import NotConvertible, Tensor, Weak, contains_tensor


class Opcodes:
    """The ``Tracer``'s opcode handlers (a mixin)."""

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
        """local variable: rebinds the symbolic value (NULL, from LOAD_FAST_AND_CLEAR, unbinds it)"""
        value = frame.stack.pop()
        if value is NULL:
            frame.locals.pop(ins.argval, None)
        else:
            frame.locals[ins.argval] = value

    def LOAD_FAST_AND_CLEAR(self, frame: Frame, ins: Instr) -> None:
        """an inlined comprehension saves its variable (NULL if unbound); STORE_FAST restores it"""
        if ins.argval in frame.cells:
            raise NotConvertible(f"a comprehension variable {ins.argval} shadows a closure cell")
        frame.stack.append(frame.locals.pop(ins.argval, NULL))

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
        value = resolve_global(frame.globals, ins.argval, NULL)
        frame.push_callable(self.global_value(frame.globals, ins.argval, value, f"global {ins.argval}"), null=bool(ins.arg & 1))

    def STORE_GLOBAL(self, frame: Frame, ins: Instr) -> None:
        """global assignment: janus.set_attr on the module object, committed after the call"""
        self.heap.store_global(frame.globals, ins.argval, frame.stack.pop())

    def LOAD_ATTR(self, frame: Frame, ins: Instr) -> None:
        """attribute of an array (shape, dtype, T...), a NumPy module or a number; of a heap object, janus.get_attr; of a tree node, a gather"""
        obj = frame.stack.pop()
        tested = trees.none_test(self, obj, ins.argval, frame.bc, ins.offset) if isinstance(obj, trees.SymNode) else None
        frame.stack.append(self.attribute(obj, ins.argval) if tested is None else tested)

    def STORE_ATTR(self, frame: Frame, ins: Instr) -> None:
        """attribute assignment on a heap object: janus.set_attr, committed after the call; on a tree node, its column"""
        value, obj = frame.pop(2)
        self.store_attribute(obj, ins.argval, value)

    def store_attribute(self, obj: Any, name: str, value: Any) -> None:
        """``obj.name = value`` (``STORE_ATTR``, ``setattr``)."""
        if isinstance(obj, trees.SymNode):
            return node_writes.write(self, obj, name, value)
        if not isinstance(obj, HeapRef):
            raise NotConvertible(f"attribute assignment on a {type(obj).__name__}")
        self.heap.write(obj, "attr", name, value)

    def LOAD_METHOD(self, frame: Frame, ins: Instr) -> None:
        """method of an array (op table), a local container or a heap object (inlined)"""
        obj = frame.stack.pop()
        method = self.heap.method(obj, ins.argval) if isinstance(obj, HeapRef) else None
        if type(method) is property:  # ``self.act(x)`` where ``act`` is a property: its getter inlined, its value called
            frame.push_callable(self.call(method.fget, [obj], {}))
            return
        if type(method) is types.FunctionType:  # CALL sees (function, self, args...)
            frame.stack.extend((method, obj))
            return
        if method is not None and type(method) is not property:  # a static or class method
            frame.push_callable(bind(method, obj.obj, obj))
            return
        host = None if DictView.of(obj, ins.argval) else boundary.host_method(obj, ins.argval)
        if host is not None:  # called, a segment boundary (``trace.split``)
            frame.push_callable(host)
            return
        frame.push_callable(BoundTensorMethod(obj, ins.argval) if isinstance(obj, Tensor) else self.attribute(obj, ins.argval))

    def LOAD_SUPER_ATTR(self, frame: Frame, ins: Instr) -> None:
        """super().name: the call of super (zero-argument form, see supercall), then LOAD_ATTR or LOAD_METHOD"""
        global_super, cls, obj = frame.pop(3)
        frame.stack.append(self.call(global_super, [cls, obj] if ins.arg & 2 else [], {}))
        (self.LOAD_METHOD if ins.arg & 1 else self.LOAD_ATTR)(frame, ins)

    def KW_NAMES(self, frame: Frame, ins: Instr) -> None:
        """keyword names of the next CALL"""
        frame.kw_names = ins.argval

    def CALL(self, frame: Frame, ins: Instr) -> None:
        """op-table function (NumPy), inlined Python function or method, pure builtin"""
        values = frame.pop(ins.arg)
        first, second = frame.pop(2)  # (NULL, callable), or (callable, NULL) on 3.13; a method is (function, self)
        if first is NULL or second is NULL:
            fn = second if first is NULL else first
        else:
            fn, values = first, [second, *values]
        kwnames, frame.kw_names = frame.kw_names, ()
        split = len(values) - len(kwnames)
        self.call_site = (frame, ins)
        args, kwargs = values[:split], dict(zip(kwnames, values[split:]))
        attempt = boundary.Attempt(self, fn, args, kwargs)
        try:
            result = self.call(fn, args, kwargs)
        except NotConvertible as e:
            boundary.end_segment(self, frame, ins, fn, args, kwargs, e, attempt)  # raises
        frame.stack.append(result)

    def CALL_KW(self, frame: Frame, ins: Instr) -> None:
        """call with keyword names on the stack: as KW_NAMES, CALL"""
        frame.kw_names = frame.stack.pop()
        self.CALL(frame, ins)

    def CALL_FUNCTION_EX(self, frame: Frame, ins: Instr) -> None:
        """call with *args/**kwargs unpacked at trace time (as CALL)"""
        kwargs = frame.stack.pop() if ins.arg & 1 else {}
        args = frame.stack.pop()
        fn = frame.stack.pop()
        if fn is NULL:  # 3.13 pushes the NULL after the callable
            fn = frame.stack.pop()
        elif frame.stack and frame.stack[-1] is NULL:
            frame.stack.pop()
        if type(kwargs) is not dict:
            raise NotConvertible(f"** of a {type(kwargs).__name__} (only dicts built in the traced code)")
        frame.stack.append(self.call(fn, self.iterate(args), dict(kwargs)))

    def MAKE_FUNCTION(self, frame: Frame, ins: Instr) -> None:
        """function made in the trace (lambda, comprehension): inlined where called"""
        frame.stack.append(SymFunction(frame.stack.pop(), frame.globals))
        for flag in (0x08, 0x04, 0x02, 0x01):  # 3.11 and 3.12 pop what 3.13 sets one by one
            if (ins.arg or 0) & flag:
                self._set_function_attribute(frame, flag)

    def SET_FUNCTION_ATTRIBUTE(self, frame: Frame, ins: Instr) -> None:
        """defaults, keyword defaults or closure of a function made in the trace (as MAKE_FUNCTION's flags)"""
        self._set_function_attribute(frame, ins.arg)

    def _set_function_attribute(self, frame: Frame, flag: int) -> None:
        fn, value = frame.stack.pop(), frame.stack.pop()
        field = {0x01: "defaults", 0x02: "kwdefaults", 0x08: "closure"}.get(flag)  # 0x04: annotations, unused
        if field is not None:
            fn = dataclasses.replace(fn, **{field: dict(value) if field == "kwdefaults" else tuple(value)})
        frame.stack.append(fn)

    def binary(self, symbol: str, a: Any, b: Any) -> Any:
        if isinstance(a, trees.SymChildren) or isinstance(b, trees.SymChildren):
            return trees.compare_children(self, symbol, a, b)
        if symbol == "%" and type(a) is str and self.splitting and (contains_tensor(b) or isinstance(b, boundary.Deferred)):
            return boundary.Deferred(operator.mod, (a, b))  # ``"loss %.4f" % (loss,)``: text made at a boundary
        if isinstance(a, either.Either) or isinstance(b, either.Either):
            return either.lift(lambda x, y: self.binary(symbol, x, y), self.em, a, b)
        if not (isinstance(a, Tensor) or isinstance(b, Tensor)):
            return self.local_result(_PY_OPERATORS[symbol](a, b), [a, b])
        if symbol not in registry.OPERATORS:
            raise NotConvertible(f"operator {symbol} on arrays is not in the op table")
        a, b = scalars.operands(self.em, symbol, a, b)
        return scalars.result(self, symbol, a, b, registry.apply(self.em, registry.OPERATORS[symbol], [a, b], {}))

    def BINARY_OP(self, frame: Frame, ins: Instr) -> None:
        """operator: op-table op on graph values, Python's on static values"""
        a, b = frame.pop(2)
        symbol = ins.argrepr
        if symbol.endswith("=") and symbol != "==" and isinstance(a, Tensor) and a.name in self.heap.numpy_scalars:
            symbol = symbol[:-1]  # a NumPy scalar read from the heap: immutable, ``self.b -= g`` rebinds
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
            if isinstance(a, (Tensor, ArgumentList)) and not isinstance(a, Weak) or isinstance(a, list) and contains_tensor(a):
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
        frame.stack.append(registry.apply(self.em, registry.UNARY_OPERATORS["-"], [x], {}) if isinstance(x, Tensor) else -x)

    def TO_BOOL(self, frame: Frame, ins: Instr) -> None:
        """truth of a static value; before a conditional jump, nothing (the jump takes the truth, as on 3.11)"""
        before_jump = frame.bc.at(frame.bc.next_offset(ins.offset)).opname in CONDITIONAL_JUMPS
        if before_jump or isinstance(frame.stack[-1], Tensor):
            return
        try:
            frame.stack[-1] = bool(frame.stack[-1])
        except (ValueError, TypeError) as e:
            raise NotConvertible(f"truth value: {e}") from None

    def LIST_TO_TUPLE(self, frame: Frame, ins: Instr) -> None:
        """`f(*args)`: the argument list as a tuple (a container local to the trace)"""
        frame.stack.append(tuple(frame.stack.pop()))

    def UNARY_POSITIVE(self, frame: Frame, ins: Instr) -> None:
        """unary +: the same graph value (NumPy's copy is invisible in a graph); Python's on static values"""
        x = frame.stack.pop()
        if isinstance(x, Tensor) and x.dtype.kind == "b":
            raise NotConvertible("unary + of a bool value (NumPy raises, Python makes an int)")
        frame.stack.append(x if isinstance(x, Tensor) else operator.pos(x))

    def UNARY_INVERT(self, frame: Frame, ins: Instr) -> None:
        """`~x`: the op table's invert on graph values (NumPy raises on floats: then Python runs it); Python's on static values"""
        x = frame.stack.pop()
        if isinstance(x, Weak):
            if x.dtype.kind != "i":
                raise NotConvertible(f"~ of a traced Python {x.python_type.__name__} (only ints are traced)")
            frame.stack.append(self.binary("-", -1, x))  # Python's ~n is -1 - n
            return
        frame.stack.append(registry.apply(self.em, registry.UNARY_OPERATORS["~"], [x], {}) if isinstance(x, Tensor) else ~x)

    def FORMAT_VALUE(self, frame: Frame, ins: Instr) -> None:
        """f-string field of a static number, string, bool or None; of an array value, text made in Python at a segment boundary"""
        spec = frame.stack.pop() if ins.arg & 0x04 else ""
        value = frame.stack.pop()
        # a Deferred value: 3.13's CONVERT_VALUE (``!r``) before its FORMAT_SIMPLE/FORMAT_WITH_SPEC
        if isinstance(value, (Tensor, boundary.Deferred)) and self.splitting and type(spec) is str:
            frame.stack.append(boundary.Deferred(boundary.f_string_field, (value, ins.arg & 0x03, spec)))
            return
        if type(value) not in (str, int, float, bool, type(None)):
            raise NotConvertible(f"an f-string field of a {type(value).__name__} (only static numbers and strings)")
        frame.stack.append(boundary.f_string_field(value, ins.arg & 0x03, spec))

    def BUILD_STRING(self, frame: Frame, ins: Instr) -> None:
        """f-string of static fields (with a field of an array value: text made in Python at a segment boundary)"""
        parts = frame.pop(ins.arg)
        deferred = any(isinstance(p, boundary.Deferred) for p in parts)
        frame.stack.append(boundary.Deferred(boundary.joined, tuple(parts)) if deferred else "".join(parts))

    def UNARY_NOT(self, frame: Frame, ins: Instr) -> None:
        """`not` of a static value; of a 0-d graph value, a graph Python bool (``np.logical_not``)"""
        x = frame.stack.pop()
        if isinstance(x, Tensor):
            if x.ndim:
                raise NotConvertible("`not` on an array value of rank >= 1")
            frame.stack.append(scalars.weak(registry.apply(self.em, registry.OPS["logical_not"], [x], {})))
            return
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
        masked = mutation.masked_read(self, frame, ins.offset, container, key)
        if masked is None and self.local_arrays.get(id(container)) is container and contains_tensor(key):
            container = self.em.literal(container)  # ``np.eye(2)[actions]``: a constant the trace made, gathered from
        if masked is not None:  # ``a[mask] op= v``: the whole array is updated, never the selection made
            frame.stack.append(masked)
        elif isinstance(container, Tensor) and indexing.is_dynamic(key):
            frame.stack.append(self._dynamic_item(frame, ins, container, key))
        elif isinstance(container, Tensor):
            frame.stack.append(registry.apply(self.em, registry.OPS["getitem"], [container, key], {}))
        elif isinstance(container, HeapRef):
            frame.stack.append(self.heap.read(container, "item", key))
        elif isinstance(container, trees.SymChildren):
            frame.stack.append(trees.child_item(self, container, key))
        elif isinstance(key, Tensor) or contains_tensor(key):
            raise NotConvertible("indexing a Python container with an array value")
        else:
            frame.stack.append(container[key])

    def _dynamic_item(self, frame: Frame, ins: Instr, container: Tensor, key: Any) -> Any:
        """``x[key]`` with graph values in ``key``; a boolean mask read the op table does not
        compile (``x[mask, 1:]``: its length depends on the values) is a segment boundary,
        where Python indexes the real arrays."""
        try:
            return indexing.getitem(self, container, key)
        except NotConvertible as e:
            if not indexing.has_bool_mask(key):
                raise
            attempt = boundary.Attempt(self, operator.getitem, [], {})
            boundary.end_segment(self, frame, ins, operator.getitem, [container, key], {}, e, attempt)  # raises
            raise

    def STORE_SUBSCR(self, frame: Frame, ins: Instr) -> None:
        """item assignment into a list or dict local to the trace; into a heap container, janus.set_item"""
        value, container, key = frame.pop(3)
        if isinstance(container, HeapRef):
            return self.heap.write(container, "item", key, value)
        if isinstance(container, Tensor):
            if not self.heap.update_in_place(container, lambda what: mutation.assigned(self, container, key, value, what),
                                             "item assignment"):
                mutation.setitem(self, container, key, value)
            return
        if self.local_arrays.get(id(container)) is container:
            return mutation.setitem_local_array(self, container, key, value)
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

    def BUILD_SET(self, frame: Frame, ins: Instr) -> None:
        """set local to the trace, of static items (a graph value hashes by identity, not value)"""
        frame.stack.append(set(local_dict((item, None) for item in frame.pop(ins.arg))))

    def SET_ADD(self, frame: Frame, ins: Instr) -> None:
        """set comprehension item"""
        item = local_dict([(frame.stack.pop(), None)])
        frame.stack[-ins.arg].update(item)

    def SET_UPDATE(self, frame: Frame, ins: Instr) -> None:
        """``{*items}`` into a set local to the trace"""
        items = local_dict((item, None) for item in self.iterate(frame.stack.pop()))
        frame.stack[-ins.arg].update(items)

    def DICT_MERGE(self, frame: Frame, ins: Instr) -> None:
        """``f(**a, **b)``: as ``DICT_UPDATE``, a key given twice is Python's TypeError"""
        mapping = frame.stack[-1]
        if type(mapping) is dict and set(mapping) & set(frame.stack[-1 - ins.arg]):
            raise NotConvertible("a keyword argument is given twice (Python raises TypeError)")
        self.DICT_UPDATE(frame, ins)

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

    def MATCH_SEQUENCE(self, frame: Frame, ins: Instr) -> None:
        """`case [a, b]:` on a static value: whether it is a list, tuple or range (str and numbers are not)"""
        value = frame.stack[-1]
        if not isinstance(value, (list, tuple, range, str, bytes, dict, int, float, type(None))):
            raise NotConvertible(f"a sequence pattern on a {type(value).__name__} (only static Python values)")
        frame.stack.append(isinstance(value, (list, tuple, range)))

    def GET_LEN(self, frame: Frame, ins: Instr) -> None:
        """`match` length test of a static sequence"""
        value = frame.stack[-1]
        if not isinstance(value, (list, tuple, range, str, bytes, dict)):
            raise NotConvertible(f"len() in a pattern of a {type(value).__name__} (only static Python values)")
        frame.stack.append(len(value))

    def GET_ITER(self, frame: Frame, ins: Instr) -> None:
        """iteration over a container or an array's rows (static length); over a relaxed list, range or ? rows, a graph loop"""
        value = frame.stack.pop()
        if isinstance(value, HeapRef) and isinstance(value.obj, LAZY_ITERATORS):  # its own iterator
            frame.stack.append(value)
            return
        generators.refuse_loop(value)
        graph_loop = loops.iterator(self, value)
        if isinstance(value, trees.SymChildren) and frame.bc.at(frame.bc.next_offset(ins.offset)).opname != "FOR_ITER":
            graph_loop = None  # handed to a comprehension or generator: its items, known when the lists have one length
        frame.stack.append(graph_loop if graph_loop is not None else SymIter(self.iterate(value)))

    def FOR_ITER(self, frame: Frame, ins: Instr) -> int | None:
        """loop step: unrolled at trace time, or an scf.for (long loops, relaxed lengths)"""
        if isinstance(frame.stack[-1], loops.GraphIter):
            return loops.run_for(self, frame, ins)
        if isinstance(frame.stack[-1], HeapRef):  # a lazy iterator: Python takes each step (a boundary)
            boundary.end_for(self, frame, ins)
        try:
            frame.stack.append(next(frame.stack[-1]))
            return None
        except StopIteration:
            frame.stack.pop()
            return ins.target

    def END_FOR(self, frame: Frame, ins: Instr) -> None:
        """loop exit cleanup (3.12+): pops as CPython does; an exhausted FOR_ITER jumps past it, as CPython's"""
        frame.pop(DIALECT.end_for_pops)

    def JUMP_FORWARD(self, frame: Frame, ins: Instr) -> int:
        """unconditional jump"""
        return ins.target

    JUMP_BACKWARD = JUMP_BACKWARD_NO_INTERRUPT = JUMP_FORWARD

    def _pop_jump(self, frame: Frame, ins: Instr) -> int | None:
        """conditional jump: static, speculated under a guard (kind branch) or both sides joined in scf.if (3.12+: one over a JUMP_BACKWARD to a while body is decoded as 3.11's backward jump)"""
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
    POP_JUMP_IF_TRUE = POP_JUMP_IF_FALSE = POP_JUMP_IF_NONE = POP_JUMP_IF_NOT_NONE = _pop_jump  # 3.12: see bytecode

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
        """with: __enter__ traced now, __exit__(None, None, None) on the normal way out (exceptions.enter);
        a manager that cannot be entered in the trace is entered in Python (a segment boundary)"""
        manager = frame.stack.pop()
        attempt = boundary.Attempt(self, getattr(type(manager), "__enter__", None), [manager], {})
        try:
            exit_method, entered = exceptions.enter(self.call, manager)
        except NotConvertible as reason:
            boundary.end_with(self, frame, ins, manager, reason, attempt)
            raise
        frame.stack.extend((exit_method, entered))

_PY_OPERATORS: dict[str, Callable[[Any, Any], Any]] = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b, "/": lambda a, b: a / b,
    "//": lambda a, b: a // b, "%": lambda a, b: a % b, "**": lambda a, b: a**b, "@": lambda a, b: a @ b,
    "&": lambda a, b: a & b, "|": lambda a, b: a | b, "^": lambda a, b: a ^ b,
    "<<": lambda a, b: a << b, ">>": lambda a, b: a >> b,
    "<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b, "==": lambda a, b: a == b, "!=": lambda a, b: a != b,
}
