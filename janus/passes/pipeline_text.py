"""Pipeline text as mlir-opt writes it: ``builtin.module(a,b{key=value other=value},func.func(c))``.

Janus reads only the top level: the elements, and the name and options of the janus ones,
each with its offset so that an error points into the text the user wrote (like MLIR's
own pipeline parser). Nested pipelines and upstream passes stay text for MLIR to parse.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

_OPEN, _CLOSE = "({[", ")}]"
_MODULE = re.compile(r"\s*builtin\.module\(")


class PipelineError(ValueError):
    """A pipeline that cannot be built; ``str()`` shows the message at its place in the text."""

    def __init__(self, message: str, source: str, offset: int) -> None:
        self.message, self.source, self.offset = message, source, offset
        start = source.rfind("\n", 0, offset) + 1
        end = source.find("\n", offset) if "\n" in source[offset:] else len(source)
        line, col = source.count("\n", 0, offset) + 1, offset - start + 1
        caret = " " * (col - 1) + "^"
        super().__init__(f"<pass-pipeline>:{line}:{col}: error: {message}\n{source[start:end]}\n{caret}")


@dataclass(frozen=True)
class OptionText:
    """``key=value`` as written, starting at ``offset`` in ``source``."""

    key: str
    value: str
    source: str
    offset: int

    def key_error(self, message: str) -> PipelineError:
        return PipelineError(message, self.source, self.offset)

    def value_error(self, message: str) -> PipelineError:
        return PipelineError(message, self.source, self.offset + len(self.key) + 1)


@dataclass(frozen=True)
class Element:
    """One top-level element: ``text`` as written, starting at ``offset`` in ``source``."""

    text: str
    source: str
    offset: int

    @property
    def name(self) -> str:
        """The pass or pipeline name: the text before any ``{`` or ``(``."""
        return re.split(r"[{(]", self.text, maxsplit=1)[0].strip()

    def options(self) -> tuple[OptionText, ...]:
        """The ``{key=value ...}`` of a janus element; ``PipelineError`` when malformed."""
        rest, end = self.text[len(self.name) :], self.offset + len(self.name)
        if not rest:
            return ()
        if not rest.startswith("{"):
            raise PipelineError("expected '{key=value ...}' after the pass name", self.source, end)
        if not rest.endswith("}"):
            raise PipelineError("unexpected text after the options", self.source, end + rest.rfind("}") + 1)
        inner_offset = end + 1
        out: dict[str, OptionText] = {}
        for start, token in _split(rest[1:-1], str.isspace, self.source, inner_offset):
            key, eq, value = token.partition("=")
            at = inner_offset + start
            if not eq or not key:
                raise PipelineError(f"expected 'key=value', got '{token}'", self.source, at)
            if key in out:
                raise PipelineError(f"option '{key}' given twice", self.source, at)
            out[key] = OptionText(key, value, self.source, at)
        return tuple(out.values())


def elements(source: str) -> list[Element]:
    """The top-level elements of ``builtin.module(...)`` or of a bare comma-separated list."""
    text, base = source, 0
    m = _MODULE.match(source)
    if m and source.rstrip().endswith(")"):
        base = m.end()
        text = source[base : len(source.rstrip()) - 1]
    return [Element(t, source, base + start) for start, t in _split(text, lambda ch: ch == ",", source, base)]


def _split(text: str, is_separator: Callable[[str], bool], source: str, base: int) -> list[tuple[int, str]]:
    """``text`` (at ``base`` in ``source``) cut at separators outside brackets: (offset in
    ``text``, stripped piece), empty pieces dropped; an unbalanced bracket is an error."""
    pieces, stack, start = [], [], 0
    for i, ch in enumerate(text):
        if ch in _OPEN:
            stack.append(i)
        elif ch in _CLOSE:
            if not stack or _OPEN[_CLOSE.index(ch)] != text[stack[-1]]:
                raise PipelineError(f"unexpected '{ch}'", source, base + i)
            stack.pop()
        elif not stack and is_separator(ch):
            pieces.append((start, text[start:i]))
            start = i + 1
    if stack:
        raise PipelineError(f"'{text[stack[-1]]}' is never closed", source, base + stack[-1])
    pieces.append((start, text[start:]))
    stripped = [(s + len(p) - len(p.lstrip()), p.strip()) for s, p in pieces]
    return [(s, p) for s, p in stripped if p]
