"""Pass options: dataclass fields with a default, one line of help and a valid range.

A pass declares ``max_stack_entries: int = option(1 << 20, "...", minimum=1)``; pipeline
text names it ``max-stack-entries``. The range is checked whenever a pass is built, from
text or from Python, so a pass never runs with a value it cannot use. Options are
integers: the only kind the passes need so far.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Any

_METADATA_KEY = "janus.option"
_INT = re.compile(r"[+-]?[0-9]+")


@dataclass(frozen=True)
class OptionSpec:
    """One option of a pass: ``name`` as written in pipeline text, ``attr`` on the pass."""

    name: str
    attr: str
    default: int
    help: str
    minimum: int | None = None
    maximum: int | None = None

    def check(self, value: object) -> None:
        """``ValueError`` unless ``value`` is an integer in range."""
        if type(value) is not int:
            raise ValueError(f"option '{self.name}' expects an integer, got {value!r}")
        if self.minimum is not None and value < self.minimum:
            raise ValueError(f"option '{self.name}' must be at least {self.minimum}, got {value}")
        if self.maximum is not None and value > self.maximum:
            raise ValueError(f"option '{self.name}' must be at most {self.maximum}, got {value}")

    def parse(self, text: str) -> int:
        """The value written as ``text``; ``ValueError`` when it is no integer in range."""
        if not _INT.fullmatch(text):
            raise ValueError(f"option '{self.name}' expects an integer, got '{text}'")
        self.check(int(text))
        return int(text)

    def describe(self) -> str:
        """``name=<int>`` with its default, range and help, for ``--list-passes``."""
        bounds = [f">= {self.minimum}"] if self.minimum is not None else []
        bounds += [f"<= {self.maximum}"] if self.maximum is not None else []
        extra = "".join(f", {b}" for b in bounds)
        return f"{self.name}=<int> (default {self.default}{extra}): {self.help}"


def option(default: int, help: str, *, minimum: int | None = None, maximum: int | None = None) -> Any:
    """A dataclass field declaring a pass option (see the module doc)."""
    return dataclasses.field(default=default, metadata={_METADATA_KEY: (help, minimum, maximum)})


def option_specs(cls: type) -> dict[str, OptionSpec]:
    """The options of the dataclass ``cls`` by pipeline name; a field that is no option is
    a ``TypeError``, since pipeline text could not set it."""
    specs = {}
    for f in dataclasses.fields(cls):
        if _METADATA_KEY not in f.metadata:
            raise TypeError(f"{cls.__name__}.{f.name} is not declared with option()")
        help_, minimum, maximum = f.metadata[_METADATA_KEY]
        name = f.name.replace("_", "-")
        specs[name] = OptionSpec(name, f.name, f.default, help_, minimum, maximum)
    return specs
