"""``plainly_not_tree``: the cheap test entry guards run before ``is_tree`` never says
"not a tree" of a tree; ``not_tree_condition``, the guards' generated form of both, answers
as they do."""

from __future__ import annotations

import numpy as np
import pytest

from janus.frontend.recursion.trees import is_tree, linearize, not_tree_condition, plainly_not_tree


class Holder:
    def __init__(self, **attrs: object) -> None:
        self.__dict__.update(attrs)


class Node:
    def __init__(self, left: "Node | None" = None) -> None:
        self.left = left


class Annotated:
    child: "Annotated | None"


class Slotted:  # no __dict__, but a class that may change: left to is_tree
    __slots__ = ("x",)


def plain_holder() -> Holder:
    return Holder(W=np.ones(2), lr=0.1, steps=3, name="p", done=False, extra=None, table={"a": 1})


@pytest.mark.parametrize("value", [plain_holder(), Holder(), {"W": np.ones(2)}])
def test_plain_objects_are_plainly_no_trees(value: object) -> None:
    assert not is_tree(value)
    assert plainly_not_tree(value) == (type(value) is Holder)  # a dict has no attributes: is_tree decides


@pytest.mark.parametrize("value", [
    Holder(items=[1, 2]), Holder(pair=(np.ones(1),)), Holder(log=[]), Holder(rng=np.random.default_rng(0)),
    Holder(bits=np.random.PCG64(0), empty=()),
])
def test_logs_and_objects_without_a_dict_are_plainly_no_trees(value: object) -> None:
    """A list or tuple whose first item is a builtin value or an array is not all nodes; an
    object of an immutable class without ``__dict__`` (a ``Generator``) is no user object."""
    assert plainly_not_tree(value) and not is_tree(value)


@pytest.mark.parametrize("value", [
    Node(Node()), Holder(root=Node(Node())), Holder(nodes=[Node(), Node()]), Annotated(),
    Holder(inner=Holder()), Holder(items=[Node(), 1]), Holder(slotted=Slotted()),
])
def test_anything_else_leaves_it_to_is_tree(value: object) -> None:
    assert not plainly_not_tree(value)


def test_a_class_seen_as_a_node_is_never_plain() -> None:
    lone = Node()
    Node(lone)  # constructing does not tell; is_tree seeing a node holding a node does
    assert is_tree(Node(lone)) and is_tree(lone)
    assert not plainly_not_tree(lone)


def _condition(cls: type):
    """``not_tree_condition`` for objects of exactly ``cls``, compiled."""
    scope: dict[str, object] = {}

    def bind(value: object) -> str:
        scope[f"c{len(scope)}"] = value
        return f"c{len(scope) - 1}"

    source = f"def check(a0):\n    return bool({not_tree_condition(cls, 'a0', bind)})\n"
    exec(source, scope)
    return scope["check"]


class Fresh:
    """A class no test has made a node class yet (each test below makes its own)."""

    def __init__(self, **attrs: object) -> None:
        self.__dict__.update(attrs)


@pytest.mark.parametrize("value", [
    plain_holder(), Holder(), Holder(items=[1, 2]), Holder(rng=np.random.default_rng(0)), Holder(root=Node(Node())),
    Holder(nodes=[Node(), Node()]), Holder(inner=Holder()), Holder(items=[Node(), 1]), Holder(slotted=Slotted()),
    Node(), Node(Node()), Annotated(), Slotted(),
], ids=lambda v: type(v).__name__)
def test_the_generated_condition_answers_as_the_two_tests(value: object) -> None:
    assert _condition(type(value))(value) == (plainly_not_tree(value) or not is_tree(value))


def test_the_generated_condition_sees_a_class_become_a_node_class_after_it_was_made() -> None:
    """Made while ``Fresh`` was no node class, the condition still says "tree" of a plain
    ``Fresh`` object once another ``Fresh`` object was seen holding one (a one-node tree)."""
    cls = type("Fresh", (Fresh,), {})
    check, lone = _condition(cls), cls(W=np.ones(2), lr=0.1)
    assert check(lone)
    assert is_tree(cls(child=cls()))  # seen holding its own class: a node class from now on
    assert not check(lone) and is_tree(lone)


class Mixed:
    """A node class whose objects need not share their attributes."""

    def __init__(self, **attrs: object) -> None:
        self.__dict__.update(attrs)


def _pythons_columns(objects: list[object], names: list[str]) -> dict[str, tuple[list[bool], list[int]]]:
    """What Python sees of each attribute: whether each object has it, and the row of the
    node it holds (-1 for None or absent)."""
    row = {id(o): i for i, o in enumerate(objects)}
    return {name: ([hasattr(o, name) for o in objects],
                   [row[id(getattr(o, name))] if getattr(o, name, None) is not None else -1 for o in objects])
            for name in names}


@pytest.mark.parametrize("attrs_of_leaf", [
    pytest.param(("left", "right"), id="same-attributes-other-order"),
    pytest.param(("tag", "mark"), id="as-many-attributes-other-names"),
    pytest.param(("left",), id="fewer-attributes"),
])
def test_linearize_matches_python_when_nodes_differ_in_attributes(attrs_of_leaf: tuple[str, ...]) -> None:
    """Every object's attributes decide the columns (not the first object's alone): a node
    class whose leaves hold other attributes than its inner nodes, in the same or another
    number, gives each attribute's exists column as ``hasattr`` says, and child rows as the
    objects are reached breadth-first."""
    def leaf() -> Mixed:
        return Mixed(**{name: None for name in reversed(attrs_of_leaf)})

    shared = leaf()
    root = Mixed(left=Mixed(left=shared, right=leaf()), right=shared)  # a subtree reached twice is one row
    kind, arrays = linearize(root)
    objects = [root, root.left, shared, root.left.right]
    names = [f.name for f in kind.layouts[0].fields]
    assert names == list(dict.fromkeys(["left", "right", *reversed(attrs_of_leaf)]))
    want = _pythons_columns(objects, ["left", "right"])
    columns = dict(zip([c.key for c in kind.columns()], arrays))
    for name, (exists, rows) in want.items():
        field = kind.layouts[0].field(name)
        assert field.partial == (not all(exists))
        if field.partial:
            assert columns[(0, name, "exists")].tolist() == [int(e) for e in exists]
        assert columns[(0, name, "value")].tolist() == rows


def test_linearize_sees_attributes_the_first_node_lacks() -> None:
    """The root holds fewer attributes than its child: the child's others are columns too,
    missing on the root as ``hasattr`` says."""
    child = Mixed(left=None, right=None, word=3)
    root = Mixed(left=child)
    kind, arrays = linearize(root)
    assert [f.name for f in kind.layouts[0].fields] == ["left", "right", "word"]
    columns = dict(zip([c.key for c in kind.columns()], arrays))
    for name in ("right", "word"):
        assert kind.layouts[0].field(name).partial
        assert columns[(0, name, "exists")].tolist() == [int(hasattr(root, name)), int(hasattr(child, name))]
    assert columns[(0, "left", "value")].tolist() == [1, -1]
