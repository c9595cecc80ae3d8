"""Leaves of nested dicts, lists and tuples (gradients as ``janus.value_and_grad`` returns
them), and rebuilding the same structure around new leaves."""

from __future__ import annotations

from typing import Any, Callable


def flatten(value: Any, is_leaf: Callable[[Any], bool]) -> tuple[list[Any], Callable[[list[Any]], Any]]:
    """The leaves of ``value`` in order, and a function building the structure from new ones."""
    if isinstance(value, dict):
        keys = list(value)
        parts = [flatten(value[k], is_leaf) for k in keys]
        return _join(parts, lambda built: dict(zip(keys, built)))
    if type(value) in (list, tuple):
        kind = type(value)
        return _join([flatten(v, is_leaf) for v in value], kind)
    if is_leaf(value):
        return [value], lambda leaves: leaves[0]
    raise TypeError(f"expected arrays in dicts, lists or tuples, got a {type(value).__name__}")


def _join(parts: list[tuple[list[Any], Callable]], make: Callable[[list[Any]], Any]) -> tuple[list[Any], Callable]:
    counts = [len(leaves) for leaves, _ in parts]

    def build(leaves: list[Any]) -> Any:
        out, start = [], 0
        for (_, rebuild), n in zip(parts, counts):
            out.append(rebuild(leaves[start : start + n]))
            start += n
        return make(out)

    return [leaf for leaves, _ in parts for leaf in leaves], build
