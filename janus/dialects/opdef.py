"""Declarative op definitions: the single source of truth for every janus op.

The MLIR bindings in IREE expose no IRDL, so janus ops are unregistered-dialect ops in
generic syntax. Each op is one small Python class that *declares* its operands, results
and attributes; from that declaration this module derives the builder, the typed
accessors, the generic verifier and the dialect reference (``docgen``). Rules that a
declaration cannot say live in the op's ``verify_extra``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, ClassVar, Literal, Sequence

from janus.ir import OBJ_TYPE_ASM, ir

Arity = Literal["single", "optional", "variadic"]
#: An operand in text: (SSA name, MLIR type).
Typed = tuple[str, str]


@dataclass(frozen=True)
class TypeConstraint:
    """A named predicate on ``ir.Type`` (the name is what error messages print)."""

    summary: str
    check: Callable[[ir.Type], bool]


ANY_TYPE = TypeConstraint("any type", lambda t: True)
I1 = TypeConstraint("i1", lambda t: str(t) == "i1")
OBJ = TypeConstraint(OBJ_TYPE_ASM, lambda t: str(t) == OBJ_TYPE_ASM)
KEY_TYPE = TypeConstraint(
    "index or signless integer",
    lambda t: isinstance(t, ir.IndexType) or (isinstance(t, ir.IntegerType) and t.is_signless),
)


@dataclass(frozen=True)
class AttrKind:
    """How one kind of attribute is checked, read into Python, built from Python and
    written as text (``asm``)."""

    summary: str
    check: Callable[[ir.Attribute], bool]
    to_python: Callable[[ir.Attribute], Any]
    from_python: Callable[[Any], ir.Attribute]
    asm: Callable[[Any], str]


def quote(text: str) -> str:
    """``text`` as an MLIR string literal: the one place janus op text is escaped."""
    out = []
    for ch in text:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch.isprintable():
            out.append(ch)
        else:
            out.extend(f"\\{b:02X}" for b in ch.encode())
    return '"' + "".join(out) + '"'


def _is_i64(a: ir.Attribute) -> bool:
    return isinstance(a, ir.IntegerAttr) and str(a.type) == "i64"


def _is_string(a: ir.Attribute) -> bool:
    return isinstance(a, ir.StringAttr)


def _key_kind(v: Any) -> "AttrKind":
    if isinstance(v, bool) or not isinstance(v, (int, str)):
        raise TypeError(f"a constant key must be a str or an int, got {v!r}")
    return STRING if isinstance(v, str) else I64


STRING = AttrKind(
    "string attribute",
    _is_string,
    lambda a: a.value,
    lambda v: ir.StringAttr.get(str(v)),
    lambda v: quote(str(v)),
)
I64 = AttrKind(
    "64-bit signless integer attribute",
    _is_i64,
    lambda a: a.value,
    lambda v: ir.IntegerAttr.get(ir.IntegerType.get_signless(64), int(v)),
    lambda v: f"{int(v)} : i64",
)
SYMBOL = AttrKind(
    "flat symbol reference attribute",
    lambda a: isinstance(a, ir.FlatSymbolRefAttr),
    lambda a: a.value,
    lambda v: ir.FlatSymbolRefAttr.get(str(v)),
    lambda v: f"@{v}",
)
KEY = AttrKind(
    "string or 64-bit integer attribute",
    lambda a: _is_string(a) or _is_i64(a),
    lambda a: a.value,
    lambda v: _key_kind(v).from_python(v),
    lambda v: _key_kind(v).asm(v),
)


@dataclass(frozen=True)
class ValueDef:
    """An operand or result: name, type constraint, meaning, arity."""

    name: str
    type: TypeConstraint
    doc: str
    arity: Arity = "single"


OperandDef = ResultDef = ValueDef


@dataclass(frozen=True)
class AttrDef:
    name: str
    kind: AttrKind
    doc: str
    optional: bool = False
    choices: tuple[str, ...] | None = None


#: Every janus op class by its operation name; filled by ``JanusOp.__init_subclass__``.
REGISTRY: dict[str, type["JanusOp"]] = {}


def _segments(defs: Sequence[ValueDef], total: int) -> list[slice] | None:
    """Split ``total`` values among ``defs`` (at most one of variable arity).

    Returns None when the count cannot fit the declaration.
    """
    fixed = sum(1 for d in defs if d.arity == "single")
    variable = [d for d in defs if d.arity != "single"]
    extra = total - fixed
    if extra < 0 or (not variable and extra) or (
        variable and variable[0].arity == "optional" and extra > 1
    ):
        return None
    out, pos = [], 0
    for d in defs:
        n = 1 if d.arity == "single" else extra
        out.append(slice(pos, pos + n))
        pos += n
    return out


def _count_phrase(defs: Sequence[ValueDef], noun: str) -> str:
    fixed = sum(1 for d in defs if d.arity == "single")
    variable = [d for d in defs if d.arity != "single"]
    if not variable:
        return f"{fixed} {noun}{'' if fixed == 1 else 's'}"
    if variable[0].arity == "optional":
        return f"{fixed} or {fixed + 1} {noun}s"
    return f"at least {fixed} {noun}{'' if fixed == 1 else 's'}"


class JanusOp:
    """Base of every janus op class: a typed view over an ``ir.Operation``."""

    OPERATION_NAME: ClassVar[str]
    SUMMARY: ClassVar[str]
    OPERANDS: ClassVar[tuple[OperandDef, ...]] = ()
    RESULTS: ClassVar[tuple[ResultDef, ...]] = ()
    ATTRIBUTES: ClassVar[tuple[AttrDef, ...]] = ()

    def __init_subclass__(cls, abstract: bool = False, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if abstract:
            return
        if cls.OPERATION_NAME in REGISTRY:
            raise ValueError(f"janus op {cls.OPERATION_NAME} defined twice")
        REGISTRY[cls.OPERATION_NAME] = cls
        for i, d in enumerate(cls.OPERANDS):
            setattr(cls, d.name, property(lambda self, i=i: self._group("operands", i)))
        for i, d in enumerate(cls.RESULTS):
            setattr(cls, d.name, property(lambda self, i=i: self._group("results", i)))
        for a in cls.ATTRIBUTES:
            setattr(cls, a.name, property(lambda self, a=a: self._attr(a)))

    def __init__(self, operation: ir.Operation | ir.OpView) -> None:
        operation = getattr(operation, "operation", operation)
        if operation.name != self.OPERATION_NAME:
            raise ValueError(f"{operation.name} is not {self.OPERATION_NAME}")
        self.operation = operation

    # -- construction ---------------------------------------------------------------

    @classmethod
    def create(
        cls,
        operands: dict[str, ir.Value | Sequence[ir.Value] | None],
        attributes: dict[str, Any],
        result_types: Sequence[ir.Type] = (),
        *,
        loc: ir.Location | None = None,
        ip: ir.InsertionPoint | None = None,
    ) -> "JanusOp":
        """Generic builder used by each op's ``build``; validates what it builds."""
        flat: list[ir.Value] = []
        for d in cls.OPERANDS:
            v = operands.get(d.name)
            if d.arity == "variadic":
                flat.extend(v or ())
            elif d.arity == "optional":
                flat.extend([] if v is None else [v])
            else:
                if v is None:
                    raise ValueError(f"{cls.OPERATION_NAME}: operand '{d.name}' is required")
                flat.append(v)
        attrs = {
            a.name: a.kind.from_python(attributes[a.name])
            for a in cls.ATTRIBUTES
            if attributes.get(a.name) is not None
        }
        op = ir.Operation.create(
            cls.OPERATION_NAME,
            results=list(result_types),
            operands=flat,
            attributes=attrs,
            loc=loc,
            ip=ip,
        )
        built = cls(op)
        errors = built.verify_local()
        if errors:
            op.erase()
            raise ValueError(f"{cls.OPERATION_NAME}: " + "; ".join(errors))
        return built

    @classmethod
    def asm(
        cls,
        operands: dict[str, "Typed | Sequence[Typed] | None"],
        attributes: dict[str, Any],
        result_types: Sequence[str] = (),
    ) -> str:
        """The op in generic form, ``"name"(%a) {attrs} : (types) -> (types)``, from
        ``(SSA name, type)`` operands: the textual twin of ``create``, checked against the
        same declaration (operand and result counts, attributes and their choices)."""
        flat: list[Typed] = []
        for d in cls.OPERANDS:
            v = operands.get(d.name)
            if d.arity == "single" and v is None:
                raise ValueError(f"{cls.OPERATION_NAME}: operand '{d.name}' is required")
            flat.extend(v if d.arity == "variadic" else () if v is None else [v])  # type: ignore[arg-type]
        if _segments(cls.RESULTS, len(result_types)) is None:
            raise ValueError(f"{cls.OPERATION_NAME}: expects {_count_phrase(cls.RESULTS, 'result')}, got {len(result_types)}")
        attrs = []
        for a in cls.ATTRIBUTES:
            value = attributes.get(a.name)
            if value is None:
                if not a.optional:
                    raise ValueError(f"{cls.OPERATION_NAME}: requires attribute '{a.name}'")
                continue
            if a.choices is not None and value not in a.choices:
                raise ValueError(f"{cls.OPERATION_NAME}: attribute '{a.name}' must be one of {', '.join(a.choices)}; got '{value}'")
            attrs.append(f"{a.name} = {a.kind.asm(value)}")
        attr_text = f" {{{', '.join(attrs)}}}" if attrs else ""
        signature = f"({', '.join(t for _, t in flat)}) -> ({', '.join(result_types)})"
        return f'"{cls.OPERATION_NAME}"({", ".join(n for n, _ in flat)}){attr_text} : {signature}'

    # -- accessors ------------------------------------------------------------------

    def _group(self, kind: str, index: int) -> Any:
        defs = self.OPERANDS if kind == "operands" else self.RESULTS
        values = list(getattr(self.operation, kind))
        seg = _segments(defs, len(values))
        if seg is None:
            raise ValueError(f"malformed {self.OPERATION_NAME}: wrong number of {kind}")
        chunk = values[seg[index]]
        arity = defs[index].arity
        if arity == "variadic":
            return chunk
        if arity == "optional":
            return chunk[0] if chunk else None
        return chunk[0]

    def _attr(self, a: AttrDef) -> Any:
        attrs = self.operation.attributes
        return a.kind.to_python(attrs[a.name]) if a.name in attrs else None

    # -- verification ----------------------------------------------------------------

    def verify_local(self) -> list[str]:
        """Checks that need only this op: counts, types, attributes, extra rules."""
        errors = self._verify_values("operand", self.OPERANDS, list(self.operation.operands))
        errors += self._verify_values("result", self.RESULTS, list(self.operation.results))
        errors += self._verify_attributes()
        if len(self.operation.regions):
            errors.append("expects no regions")
        return errors or self.verify_extra()

    def verify_in_module(self, symbols: "SymbolLookup") -> list[str]:
        """Checks that need the enclosing module (symbol references)."""
        return []

    def verify_extra(self) -> list[str]:
        """Op-specific rules the declaration cannot express."""
        return []

    def _verify_values(
        self, noun: str, defs: Sequence[ValueDef], values: list[ir.Value]
    ) -> list[str]:
        seg = _segments(defs, len(values))
        if seg is None:
            return [f"expects {_count_phrase(defs, noun)}, got {len(values)}"]
        errors = []
        for d, s in zip(defs, seg):
            for i in range(s.start, s.stop):
                if not d.type.check(values[i].type):
                    errors.append(
                        f"{noun} #{i} ('{d.name}') must be {d.type.summary}, "
                        f"got {values[i].type}"
                    )
        return errors

    def _verify_attributes(self) -> list[str]:
        attrs = self.operation.attributes
        errors = []
        for a in self.ATTRIBUTES:
            if a.name not in attrs:
                if not a.optional:
                    errors.append(f"requires attribute '{a.name}'")
                continue
            if not a.kind.check(attrs[a.name]):
                errors.append(f"attribute '{a.name}' must be a {a.kind.summary}")
            elif a.choices is not None and a.kind.to_python(attrs[a.name]) not in a.choices:
                errors.append(
                    f"attribute '{a.name}' must be one of {', '.join(a.choices)}; "
                    f"got '{a.kind.to_python(attrs[a.name])}'"
                )
        return errors


class SymbolLookup:
    """Functions of a module by symbol name, built once per verification."""

    def __init__(self, module_op: ir.Operation) -> None:
        self.functions: dict[str, ir.Operation] = {}
        for op in module_op.regions[0].blocks[0].operations:
            if "sym_name" in op.attributes:
                self.functions[op.attributes["sym_name"].value] = op.operation

