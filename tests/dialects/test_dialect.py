"""The Python API of the janus dialect: builders, accessors, verification, guard messages."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable, Iterator

import pytest

from janus.dialects import (
    GUARD_KINDS,
    OBJECT_ORIGINS,
    REGISTRY,
    GetAttrOp,
    GetItemOp,
    GuardOp,
    InvokeOp,
    ObjectOp,
    SetAttrOp,
    SetItemOp,
    guard_message,
    parse_guard_message,
    verify_module,
    wrap,
)
from janus.dialects.opdef import JanusOp
from janus.ir import ir, make_context, obj_type

#: The arguments of the function every op is built in, by name.
ARG_TYPES = {"c": "i1", "o": "!janus.obj", "x": "tensor<4xf32>", "i": "index", "n": "i32"}
CALLEES = """\
func.func private @cell(tensor<4xf32>, !janus.obj) -> (tensor<4xf32>, i1)
func.func private @tick()
"""


@dataclass
class Body:
    """A function body to build janus ops in (before its `return`)."""

    module: ir.Module
    block: ir.Block
    args: dict[str, ir.Value]

    def __getattr__(self, name: str) -> ir.Value:
        return self.args[name]

    def op_names(self) -> list[str]:
        return [op.operation.name for op in self.block.operations]


@pytest.fixture
def body() -> Iterator[Body]:
    params = ", ".join(f"%{n}: {t}" for n, t in ARG_TYPES.items())
    with make_context(), ir.Location.unknown():
        module = ir.Module.parse(f"{CALLEES}func.func @f({params}) {{\n  return\n}}")
        block = module.body.operations[2].regions[0].blocks[0]
        with ir.InsertionPoint.at_block_terminator(block):
            yield Body(module, block, dict(zip(ARG_TYPES, block.arguments)))


def parse_op(body_text: str) -> tuple[ir.Module, JanusOp]:
    """The first op of a function with ``ARG_TYPES`` arguments whose body is ``body_text``,
    and its module (which must outlive the op: ops do not keep their module alive)."""
    params = ", ".join(f"%{n}: {t}" for n, t in ARG_TYPES.items())
    module = ir.Module.parse(f"func.func @f({params}) {{\n{body_text}\n  return\n}}")
    return module, wrap(module.body.operations[0].regions[0].blocks[0].operations[0])


# -- building each op and reading every accessor back ---------------------------------

Build = Callable[[Body], JanusOp]
#: (builder, expected accessor values); a str naming an argument stands for that value,
#: and ("type", t) for a result of type t.
BUILD_CASES: dict[str, tuple[Build, dict[str, Any]]] = {
    "janus.guard": (
        lambda b: GuardOp.build(b.c, 3, "branch", "model.py:7"),
        {"condition": "c", "id": 3, "kind": "branch", "source": "model.py:7"},
    ),
    "janus.object": (
        lambda b: ObjectOp.build(2, "module", "model"),
        {"result": ("type", "!janus.obj"), "slot": 2, "origin": "module", "name": "model"},
    ),
    "janus.get_attr": (
        lambda b: GetAttrOp.build(b.o, "state", b.x.type),
        {"object": "o", "name": "state", "result": ("type", "tensor<4xf32>")},
    ),
    "janus.set_attr": (
        lambda b: SetAttrOp.build(b.o, b.x, "state"),
        {"object": "o", "value": "x", "name": "state"},
    ),
    "janus.get_item": (
        lambda b: GetItemOp.build(b.o, b.x.type, key="weights"),
        {"object": "o", "index": None, "key": "weights", "result": ("type", "tensor<4xf32>")},
    ),
    "janus.set_item": (
        lambda b: SetItemOp.build(b.o, b.x, index=b.i),
        {"object": "o", "index": "i", "value": "x", "key": None},
    ),
    "janus.invoke": (
        lambda b: InvokeOp.build("cell", [b.x, b.o], [b.x.type, b.c.type]),
        {
            "callee": "cell",
            "arguments": ["x", "o"],
            "results": [("type", "tensor<4xf32>"), ("type", "i1")],
        },
    ),
}

#: More ways to build the keyed ops (the other kind of key).
MORE_BUILD_CASES: list[tuple[Build, dict[str, Any]]] = [
    (
        lambda b: GetItemOp.build(b.o, b.x.type, index=b.n),
        {"object": "o", "index": "n", "key": None},
    ),
    (lambda b: SetItemOp.build(b.o, b.x, key=-1), {"object": "o", "index": None, "key": -1}),
    (lambda b: InvokeOp.build("tick", [], []), {"callee": "tick", "arguments": [], "results": []}),
]


def assert_field(body: Body, actual: Any, expected: Any) -> None:
    if isinstance(expected, list):
        assert len(actual) == len(expected)
        for a, e in zip(actual, expected):
            assert_field(body, a, e)
    elif isinstance(expected, tuple):
        assert isinstance(actual, ir.Value) and str(actual.type) == expected[1]
    elif isinstance(expected, str) and expected in body.args:
        assert actual == body.args[expected]
    else:
        assert actual == expected and type(actual) is type(expected)


def test_every_registered_op_has_a_build_case() -> None:
    assert sorted(BUILD_CASES) == sorted(REGISTRY)


@pytest.mark.parametrize(
    "build, expected",
    list(BUILD_CASES.values()) + MORE_BUILD_CASES,
    ids=list(BUILD_CASES) + ["get_item-index", "set_item-key", "invoke-empty"],
)
def test_build_then_read_accessors(body: Body, build: Build, expected: dict[str, Any]) -> None:
    op = build(body)
    assert op.operation.name == type(op).OPERATION_NAME
    assert body.op_names() == [op.operation.name, "func.return"]
    for field, value in expected.items():
        assert_field(body, getattr(op, field), value)
    assert op.verify_local() == []
    assert verify_module(body.module.operation) == []


@pytest.mark.parametrize("name", sorted(BUILD_CASES))
def test_wrap_gives_the_op_class(body: Body, name: str) -> None:
    op = BUILD_CASES[name][0](body)
    wrapped = wrap(op.operation)
    assert type(wrapped) is REGISTRY[name] and wrapped.operation == op.operation


def test_wrap_rejects_ops_outside_the_registry(body: Body) -> None:
    with pytest.raises(ValueError, match="unknown janus op 'func.return'"):
        wrap(body.block.operations[0])
    unknown = ir.Operation.create("janus.frob")
    with pytest.raises(ValueError, match="unknown janus op 'janus.frob'"):
        wrap(unknown)


def test_op_class_rejects_another_op(body: Body) -> None:
    guard = GuardOp.build(body.c, 1, "branch", "m.py:1")
    with pytest.raises(ValueError, match="janus.guard is not janus.object"):
        ObjectOp(guard.operation)


def test_every_guard_kind_and_object_origin_builds(body: Body) -> None:
    for id, kind in enumerate(GUARD_KINDS):
        assert GuardOp.build(body.c, id, kind, "m.py:1").kind == kind
    for slot, origin in enumerate(OBJECT_ORIGINS):
        assert ObjectOp.build(slot, origin, "x").origin == origin
    assert verify_module(body.module.operation) == []


# -- builders refuse what the verifier would reject, and leave nothing behind ---------

@pytest.mark.parametrize(
    "build, message",
    [
        (lambda b: GuardOp.build(b.n, 1, "branch", "m.py:1"), r"operand #0 \('condition'\) must be i1, got i32"),
        (lambda b: GuardOp.build(b.c, 1, "hunch", "m.py:1"), "attribute 'kind' must be one of branch, .*; got 'hunch'"),
        (lambda b: ObjectOp.build(-1, "arg", "self"), "attribute 'slot' must be non-negative"),
        (lambda b: ObjectOp.build(0, "heap", "self"), "attribute 'origin' must be one of arg, module, cell, constant"),
        (lambda b: GetAttrOp.build(b.x, "state", b.x.type), r"operand #0 \('object'\) must be !janus.obj"),
        (lambda b: SetAttrOp.build(b.c, b.x, "state"), r"operand #0 \('object'\) must be !janus.obj, got i1"),
        (lambda b: GetItemOp.build(b.o, b.x.type), "needs exactly one key"),
        (lambda b: GetItemOp.build(b.o, b.x.type, key="k", index=b.i), "needs exactly one key"),
        (lambda b: SetItemOp.build(b.o, b.x), "needs exactly one key"),
        (lambda b: SetItemOp.build(b.o, b.x, index=b.x), r"operand #1 \('index'\) must be index or signless integer"),
    ],
)
def test_build_rejects_invalid_ops(body: Body, build: Build, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        build(body)
    assert body.op_names() == ["func.return"]


@pytest.mark.parametrize("key", [1.5, True, b"k"])
def test_constant_key_must_be_str_or_int(body: Body, key: Any) -> None:
    with pytest.raises(TypeError, match="a constant key must be a str or an int"):
        GetItemOp.build(body.o, body.x.type, key=key)


def test_required_operand_missing_in_generic_builder(body: Body) -> None:
    with pytest.raises(ValueError, match="operand 'condition' is required"):
        GuardOp.create({}, {"id": 1, "kind": "branch", "source": "m.py:1"})


# -- verify_local on ops read from text ------------------------------------------------

@pytest.mark.parametrize(
    "text, errors",
    [
        (
            '"janus.set_attr"(%o, %x) : (!janus.obj, tensor<4xf32>) -> ()',
            ["requires attribute 'name'"],
        ),
        (
            '"janus.guard"(%n) {id = "one", kind = "branch", source = "m.py:1"} : (i32) -> ()',
            [
                "operand #0 ('condition') must be i1, got i32",
                "attribute 'id' must be a 64-bit signless integer attribute",
            ],
        ),
        (
            '%r = "janus.object"(%o) {slot = 0, origin = "arg", name = "self"} : (!janus.obj) -> i1',
            ["expects 0 operands, got 1", "result #0 ('result') must be !janus.obj, got i1"],
        ),
        (
            '"janus.get_attr"(%o) ({\n}) {name = "state"} : (!janus.obj) -> ()',
            ["expects 1 result, got 0", "expects no regions"],
        ),
        (
            '%r = "janus.get_item"(%o) : (!janus.obj) -> f32',
            ["needs exactly one key: a 'key' attribute or an 'index' operand"],
        ),
        (
            '"janus.set_item"(%o, %i, %x, %x) : (!janus.obj, index, tensor<4xf32>, tensor<4xf32>) -> ()',
            ["expects 2 or 3 operands, got 4"],
        ),
        (
            '"janus.invoke"(%x) {callee = "cell"} : (tensor<4xf32>) -> ()',
            ["attribute 'callee' must be a flat symbol reference attribute"],
        ),
        ('"janus.guard"(%c) {id = 1, kind = "branch", source = "m.py:1"} : (i1) -> ()', []),
    ],
)
def test_verify_local(text: str, errors: list[str]) -> None:
    with make_context():
        _module, op = parse_op(text)
        assert op.verify_local() == errors


def test_accessor_of_malformed_op_raises() -> None:
    with make_context():
        _module, op = parse_op('"janus.set_attr"(%o) {name = "x"} : (!janus.obj) -> ()')
        with pytest.raises(ValueError, match="malformed janus.set_attr: wrong number of operands"):
            op.value


# -- verify_module -----------------------------------------------------------------------

BAD_MODULE = """\
func.func private @cell(f32) -> f32
memref.global "private" @table : memref<4xf32>
func.func @f(%c: i1, %x: f32) {
  "janus.guard"(%c) {id = 1, kind = "branch", source = "m.py:1"} : (i1) -> ()
  scf.if %c {
    "janus.guard"(%c) {id = 1, kind = "value", source = "m.py:2"} : (i1) -> ()
  }
  %a = "janus.invoke"(%x) {callee = @cell} : (f32) -> f32
  %b = "janus.invoke"(%c) {callee = @cell} : (i1) -> f32
  %d = "janus.invoke"(%x) {callee = @cell} : (f32) -> i1
  "janus.invoke"() {callee = @nowhere} : () -> ()
  "janus.invoke"() {callee = @table} : () -> ()
  "janus.frob"() : () -> ()
  return
}
"""


def test_verify_module_reports_located_problems_in_order() -> None:
    with make_context():
        module = ir.Module.parse(BAD_MODULE)
        problems = verify_module(module)
        found = [(str(p.location), p.op_name, p.message) for p in problems]
    assert found == [
        ('loc("-":6:5)', "janus.guard", "guard id 1 is already used at line 4, column 3"),
        ('loc("-":9:8)', "janus.invoke", "argument types (i1) do not match callee @cell inputs (f32)"),
        ('loc("-":10:8)', "janus.invoke", "result types (i1) do not match callee @cell results (f32)"),
        ('loc("-":11:3)', "janus.invoke", "callee @nowhere is not defined in the module"),
        ('loc("-":12:3)', "janus.invoke", "callee @table is a memref.global, not a func.func"),
        ('loc("-":13:3)', "janus.frob", "is not a janus op (unknown to the registry)"),
    ]
    assert problems[0].text() == "'janus.guard' op guard id 1 is already used at line 4, column 3"


def test_duplicate_guard_id_names_the_file_of_the_first_guard(body: Body) -> None:
    GuardOp.build(body.c, 4, "branch", "m.py:1", loc=ir.Location.file("model.py", 7, 5))
    GuardOp.build(body.c, 4, "shape", "m.py:2")
    [problem] = verify_module(body.module.operation)
    assert problem.message == "guard id 4 is already used at model.py:7:5"


# -- guard messages ------------------------------------------------------------------------

def test_guard_message_round_trips(body: Body) -> None:
    guard = GuardOp.build(body.c, 12, "trip_count", "rnn.py:42")
    message = guard_message(guard)
    assert message == "janus.guard id=12 kind=trip_count source=rnn.py:42"
    assert parse_guard_message(message) == (12, "trip_count", "rnn.py:42")


@pytest.mark.parametrize(
    "text, parsed",
    [
        (
            "Error invoking function: <vm>:0: FAILED_PRECONDITION; janus.guard id=3 kind=branch source=model.py:7; ",
            (3, "branch", "model.py:7"),
        ),
        ('cf.assert %0, "janus.guard id=0 kind=stack_depth source=tree.py:3"', (0, "stack_depth", "tree.py:3")),
        ("janus.guard id=-2 kind=raise source=a b.py:9\nmore", (-2, "raise", "a b.py:9")),
        ("Error invoking function: <vm>:0: FAILED_PRECONDITION; out of memory; ", None),
        ("", None),
    ],
)
def test_parse_guard_message(text: str, parsed: tuple[int, str, str] | None) -> None:
    assert parse_guard_message(text) == parsed


def test_obj_type_is_the_object_type() -> None:
    with make_context():
        assert str(obj_type()) == "!janus.obj"


# -- printing an op from its declaration (how the frontend emits janus ops) ------------------

ASM_CASES: list[tuple[type[JanusOp], dict[str, Any], dict[str, Any], list[str]]] = [
    (GuardOp, {"condition": ("%c", "i1")}, {"id": 3, "kind": "raise", "source": 'm.py:2 "x" \\ y\n\tz'}, []),
    (ObjectOp, {}, {"slot": 0, "origin": "arg", "name": "self"}, ["!janus.obj"]),
    (GetItemOp, {"object": ("%o", "!janus.obj"), "index": ("%n", "i32")}, {}, ["tensor<4xf32>"]),
    (SetItemOp, {"object": ("%o", "!janus.obj"), "value": ("%x", "tensor<4xf32>")}, {"key": -1}, []),
    (InvokeOp, {"arguments": [("%x", "tensor<4xf32>"), ("%o", "!janus.obj")]}, {"callee": "cell"}, ["tensor<4xf32>", "i1"]),
]


@pytest.mark.parametrize("op, operands, attributes, result_types", ASM_CASES)
def test_asm_prints_what_the_declaration_reads_back(op, operands, attributes, result_types) -> None:
    head = f"%r:{len(result_types)} = " if len(result_types) > 1 else "%r = " if result_types else ""
    with make_context():
        module, parsed = parse_op(f"  {head}{op.asm(operands, attributes, result_types)}")
        assert type(parsed) is op and parsed.verify_local() == []
        assert {a.name: getattr(parsed, a.name) for a in op.ATTRIBUTES} == {a.name: attributes.get(a.name) for a in op.ATTRIBUTES}
        assert [str(r.type) for r in parsed.operation.results] == result_types


@pytest.mark.parametrize("attributes, result_types, message", [
    ({"id": 1, "kind": "branch"}, [], "janus.guard: requires attribute 'source'"),
    ({"id": 1, "kind": "hope", "source": "m.py:1"}, [], "janus.guard: attribute 'kind' must be one of branch, "),
    ({"id": 1, "kind": "branch", "source": "m.py:1"}, ["i1"], "janus.guard: expects 0 results, got 1"),
])
def test_asm_rejects_what_the_declaration_does_not_allow(attributes, result_types, message) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        GuardOp.asm({"condition": ("%c", "i1")}, attributes, result_types)
