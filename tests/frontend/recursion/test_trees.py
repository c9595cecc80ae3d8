"""``plainly_not_tree``: the cheap test entry guards run before ``is_tree`` never says
"not a tree" of a tree."""

from __future__ import annotations

import numpy as np
import pytest

from janus.frontend.recursion.trees import is_tree, plainly_not_tree


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
