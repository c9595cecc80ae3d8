"""Located diagnostics for the command-line tools, and ``--verify-diagnostics`` checking.

MLIR reports problems as ``ir.MLIRError`` carrying diagnostics with locations; the janus
verifier reports ``Problem``s. Both become ``Diagnostic``s printed the way ``mlir-opt``
prints them (``file:line:col: error: message``), never as a Python traceback.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from janus.ir import STRING_BUFFER, file_line_col, ir


@dataclass
class Diagnostic:
    severity: str
    file: str
    line: int
    col: int
    message: str
    notes: list["Diagnostic"] = field(default_factory=list)

    def format(self) -> str:
        where = f"{self.file}:{self.line}:{self.col}: " if self.line else f"{self.file}: "
        head = f"{where}{self.severity}: {self.message}"
        return "\n".join([head] + [n.format() for n in self.notes])


def located(severity: str, loc: ir.Location, message: str, filename: str) -> Diagnostic:
    """A diagnostic at ``loc``; locations in the string buffer are given ``filename``."""
    file, line, col = file_line_col(loc) or (filename, 0, 0)
    if file == STRING_BUFFER:
        file = filename
    return Diagnostic(severity, file, line, col, message)


def from_mlir_error(error: ir.MLIRError, filename: str) -> list[Diagnostic]:
    """The diagnostics of an MLIR failure (or its bare message when it has none)."""
    out = []
    for d in error.error_diagnostics:
        diag = located(_severity(d.severity), d.location, d.message, filename)
        diag.notes = [located(_severity(n.severity), n.location, n.message, filename) for n in d.notes]
        out.append(diag)
    return out or [Diagnostic("error", filename, 0, 0, error.message)]


def _severity(severity: object) -> str:
    return str(severity).rsplit(".", 1)[-1].lower()


_EXPECTED = re.compile(
    r"expected-(error|warning|remark|note)\s*(?:@([+-]\d+|above|below))?\s*\{\{(.*?)\}\}"
)


@dataclass
class Expectation:
    severity: str
    line: int
    text: str
    source_line: int


def expectations(text: str, first_line: int = 1) -> list[Expectation]:
    """``// expected-error @+1 {{...}}`` comments of ``text`` (numbered from ``first_line``)."""
    out = []
    for offset, source in enumerate(text.splitlines()):
        here = first_line + offset
        for m in _EXPECTED.finditer(source):
            severity, where, message = m.groups()
            if where in (None, ""):
                target = here
            elif where == "above":
                target = here - 1
            elif where == "below":
                target = here + 1
            else:
                target = here + int(where)
            out.append(Expectation(severity, target, message, here))
    return out


def check_expectations(
    expected: list[Expectation], produced: list[Diagnostic], filename: str
) -> list[str]:
    """Failures of ``--verify-diagnostics``: expected but not produced, and unexpected."""
    flat = [d for p in produced for d in [p, *p.notes]]
    unmatched = list(flat)
    failures = []
    for e in expected:
        hit = next(
            (d for d in unmatched if d.severity == e.severity and d.line == e.line and e.text in d.message),
            None,
        )
        if hit is None:
            failures.append(
                f"{filename}:{e.source_line}: {e.severity} expected at line {e.line} was not "
                f"produced: {e.text}"
            )
        else:
            unmatched.remove(hit)
    for d in unmatched:
        if d.severity != "note":
            failures.append(f"unexpected {d.severity}: {d.format()}")
    return failures
