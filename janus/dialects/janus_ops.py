"""The janus dialect: what upstream MLIR cannot say about Python.

Numeric work is emitted straight into upstream dialects; these ops carry speculation
(``janus.guard``), access to the Python heap (``janus.object``, ``janus.get_attr``,
``janus.set_attr``, ``janus.get_item``, ``janus.set_item``) and possibly-recursive calls
(``janus.invoke``).

Heap semantics (a *shadow heap*): within one run of a compiled function, a read sees
every write made earlier in the same run; writes reach the Python heap only when the
whole run has succeeded (commit). A failed guard therefore leaves Python untouched.

Globals and nonlocals are not separate ops: following JANUS, a global is an attribute of
its module object and a nonlocal is the ``cell_contents`` attribute of its closure cell.
Both objects are bound with ``janus.object`` (origin ``module`` / ``cell``), so one pair
of attribute ops covers ``obj.attr``, ``global g`` and ``nonlocal n`` alike.
"""

from __future__ import annotations

import re
from typing import Sequence

from janus.dialects.opdef import (
    ANY_TYPE,
    I1,
    I64,
    KEY,
    KEY_TYPE,
    OBJ,
    STRING,
    SYMBOL,
    AttrDef,
    JanusOp,
    REGISTRY,
    OperandDef,
    ResultDef,
    SymbolLookup,
)
from janus.ir import ir, obj_type

#: What a guard may assume; the runtime reports it when the guard fails.
GUARD_KINDS = (
    "branch",
    "trip_count",
    "type",
    "dtype",
    "shape",
    "value",
    "callee",
    "raise",
    "python",
    "stack_depth",
)

#: Where the object bound by ``janus.object`` comes from.
OBJECT_ORIGINS = ("arg", "module", "cell", "constant")

Loc = ir.Location | None
IP = ir.InsertionPoint | None


class GuardOp(JanusOp):
    """`id` names one assumption within the module: guards sharing an id (copies a pass
    made, such as the host fallback of `janus-recursion-to-dispatch`) have the same kind
    and source. Lowered to `cf.assert`, whose message carries the id and kind so a
    failure maps back to this guard."""

    OPERATION_NAME = "janus.guard"
    SUMMARY = "A speculative assumption; the run fails (and falls back) when it is false."
    OPERANDS = (OperandDef("condition", I1, "true while the assumption holds"),)
    ATTRIBUTES = (
        AttrDef("id", I64, "module-unique id the runtime maps back to the guard"),
        AttrDef("kind", STRING, "what is assumed", choices=GUARD_KINDS),
        AttrDef("source", STRING, "source position protected, as `file:line`"),
    )

    @classmethod
    def build(
        cls, condition: ir.Value, id: int, kind: str, source: str, *, loc: Loc = None, ip: IP = None
    ) -> "GuardOp":
        return cls.create({"condition": condition}, {"id": id, "kind": kind, "source": source}, loc=loc, ip=ip)


class ObjectOp(JanusOp):
    """`slot` is non-negative. Globals are attributes of an `origin = "module"` object;
    nonlocals are the `cell_contents` attribute of an `origin = "cell"` object."""

    OPERATION_NAME = "janus.object"
    SUMMARY = "Binds a Python object from the runtime's object table to an SSA value."
    RESULTS = (ResultDef("result", OBJ, "the object reference"),)
    ATTRIBUTES = (
        AttrDef("slot", I64, "index in the object table the runtime fills at call time"),
        AttrDef("origin", STRING, "where the object comes from", choices=OBJECT_ORIGINS),
        AttrDef("name", STRING, "human-readable name: argument, module or variable name"),
    )

    @classmethod
    def build(cls, slot: int, origin: str, name: str, *, loc: Loc = None, ip: IP = None) -> "ObjectOp":
        return cls.create({}, {"slot": slot, "origin": origin, "name": name}, [obj_type()], loc=loc, ip=ip)

    def verify_extra(self) -> list[str]:
        return ["attribute 'slot' must be non-negative"] if self.slot < 0 else []


class GetAttrOp(JanusOp):
    OPERATION_NAME = "janus.get_attr"
    SUMMARY = "Reads `object.name` through the shadow heap."
    OPERANDS = (OperandDef("object", OBJ, "the object read"),)
    RESULTS = (ResultDef("result", ANY_TYPE, "the attribute's value"),)
    ATTRIBUTES = (AttrDef("name", STRING, "attribute name"),)

    @classmethod
    def build(cls, object: ir.Value, name: str, result_type: ir.Type, *, loc: Loc = None, ip: IP = None) -> "GetAttrOp":
        return cls.create({"object": object}, {"name": name}, [result_type], loc=loc, ip=ip)


class SetAttrOp(JanusOp):
    OPERATION_NAME = "janus.set_attr"
    SUMMARY = "Writes `object.name = value` to the shadow heap (reaches Python at commit)."
    OPERANDS = (
        OperandDef("object", OBJ, "the object written"),
        OperandDef("value", ANY_TYPE, "the new value"),
    )
    ATTRIBUTES = (AttrDef("name", STRING, "attribute name"),)

    @classmethod
    def build(cls, object: ir.Value, value: ir.Value, name: str, *, loc: Loc = None, ip: IP = None) -> "SetAttrOp":
        return cls.create({"object": object, "value": value}, {"name": name}, loc=loc, ip=ip)


class _KeyedOp(JanusOp, abstract=True):
    """Exactly one key: a constant `key` attribute or a dynamic `index` operand."""

    def verify_extra(self) -> list[str]:
        has_attr = "key" in self.operation.attributes
        has_operand = self.index is not None
        if has_attr == has_operand:
            return ["needs exactly one key: a 'key' attribute or an 'index' operand"]
        return []


class GetItemOp(_KeyedOp):
    OPERATION_NAME = "janus.get_item"
    SUMMARY = "Reads `object[key]` through the shadow heap (dict, list or other container)."
    OPERANDS = (
        OperandDef("object", OBJ, "the container read"),
        OperandDef("index", KEY_TYPE, "dynamic key, when there is no 'key' attribute", "optional"),
    )
    RESULTS = (ResultDef("result", ANY_TYPE, "the item's value"),)
    ATTRIBUTES = (AttrDef("key", KEY, "constant key", optional=True),)

    @classmethod
    def build(
        cls,
        object: ir.Value,
        result_type: ir.Type,
        *,
        key: str | int | None = None,
        index: ir.Value | None = None,
        loc: Loc = None,
        ip: IP = None,
    ) -> "GetItemOp":
        return cls.create({"object": object, "index": index}, {"key": key}, [result_type], loc=loc, ip=ip)


class SetItemOp(_KeyedOp):
    OPERATION_NAME = "janus.set_item"
    SUMMARY = "Writes `object[key] = value` to the shadow heap (reaches Python at commit)."
    OPERANDS = (
        OperandDef("object", OBJ, "the container written"),
        OperandDef("index", KEY_TYPE, "dynamic key, when there is no 'key' attribute", "optional"),
        OperandDef("value", ANY_TYPE, "the new value"),
    )
    ATTRIBUTES = (AttrDef("key", KEY, "constant key", optional=True),)

    @classmethod
    def build(
        cls,
        object: ir.Value,
        value: ir.Value,
        *,
        key: str | int | None = None,
        index: ir.Value | None = None,
        loc: Loc = None,
        ip: IP = None,
    ) -> "SetItemOp":
        return cls.create({"object": object, "index": index, "value": value}, {"key": key}, loc=loc, ip=ip)


class InvokeOp(JanusOp):
    """`callee` names a `func.func` of the enclosing module whose input and result types
    equal the invoke's argument and result types. The callee may be the caller itself or
    part of a call cycle; `janus-eliminate-recursion` removes such cycles before IREE."""

    OPERATION_NAME = "janus.invoke"
    SUMMARY = "Calls a function that may be the caller itself or part of a call cycle."
    OPERANDS = (OperandDef("arguments", ANY_TYPE, "call arguments", "variadic"),)
    RESULTS = (ResultDef("results", ANY_TYPE, "call results", "variadic"),)
    ATTRIBUTES = (AttrDef("callee", SYMBOL, "the function called"),)

    @classmethod
    def build(
        cls,
        callee: str,
        arguments: Sequence[ir.Value],
        result_types: Sequence[ir.Type],
        *,
        loc: Loc = None,
        ip: IP = None,
    ) -> "InvokeOp":
        return cls.create({"arguments": list(arguments)}, {"callee": callee}, result_types, loc=loc, ip=ip)

    def verify_in_module(self, symbols: SymbolLookup) -> list[str]:
        fn = symbols.functions.get(self.callee)
        if fn is None:
            return [f"callee @{self.callee} is not defined in the module"]
        if fn.name != "func.func":
            return [f"callee @{self.callee} is a {fn.name}, not a func.func"]
        ftype = fn.attributes["function_type"].value
        want_in, want_out = [str(t) for t in ftype.inputs], [str(t) for t in ftype.results]
        got_in = [str(v.type) for v in self.arguments]
        got_out = [str(v.type) for v in self.results]
        errors = []
        if got_in != want_in:
            errors.append(
                f"argument types ({', '.join(got_in)}) do not match callee @{self.callee} "
                f"inputs ({', '.join(want_in)})"
            )
        if got_out != want_out:
            errors.append(
                f"result types ({', '.join(got_out)}) do not match callee @{self.callee} "
                f"results ({', '.join(want_out)})"
            )
        return errors


def wrap(operation: ir.Operation | ir.OpView) -> JanusOp:
    """The typed view of a janus operation (``ValueError`` for an unknown janus op)."""
    operation = getattr(operation, "operation", operation)
    cls = REGISTRY.get(operation.name)
    if cls is None:
        raise ValueError(f"unknown janus op '{operation.name}'")
    return cls(operation)


def guard_message(op: GuardOp) -> str:
    """The text a lowered guard carries; ``parse_guard_message`` reads it back."""
    return f"janus.guard id={op.id} kind={op.kind} source={op.source}"


_GUARD_MESSAGE = re.compile(r"janus\.guard id=(-?\d+) kind=(\w+) source=([^;\n\"]*)")


def parse_guard_message(text: str) -> tuple[int, str, str] | None:
    """(id, kind, source) of the first lowered-guard message inside ``text`` (an error)."""
    m = _GUARD_MESSAGE.search(text)
    return (int(m.group(1)), m.group(2), m.group(3).strip()) if m else None


__all__ = [
    "GUARD_KINDS",
    "OBJECT_ORIGINS",
    "GuardOp",
    "ObjectOp",
    "GetAttrOp",
    "SetAttrOp",
    "GetItemOp",
    "SetItemOp",
    "InvokeOp",
    "wrap",
    "guard_message",
    "parse_guard_message",
]
