"""The two failures a caller of compiled code must tell apart from ordinary errors.

``CompileError``: the module could not become a .vmfb; it carries located diagnostics
(janus passes, MLIR or iree-compile) so tools print them like a compiler would.
``GuardFailure``: a speculative assumption did not hold at run time; the caller falls
back to Python. Nothing was committed to the Python heap, and the module stays usable.
"""

from __future__ import annotations

from janus.dialects import parse_guard_message
from janus.diagnostics import Diagnostic


class CompileError(Exception):
    """Lowering or IREE compilation failed; ``diagnostics`` say where and why."""

    def __init__(self, diagnostics: list[Diagnostic]) -> None:
        super().__init__("\n".join(d.format() for d in diagnostics))
        self.diagnostics = diagnostics


class GuardFailure(Exception):
    """The guard ``guard_id`` (its ``kind``, protecting ``source``) failed in ``function``."""

    def __init__(self, guard_id: int, kind: str, source: str, function: str) -> None:
        super().__init__(f"guard {guard_id} ({kind}, {source}) failed in @{function}")
        self.guard_id = guard_id
        self.kind = kind
        self.source = source
        self.function = function

    @classmethod
    def from_error(cls, error: BaseException, function: str) -> "GuardFailure | None":
        """The guard failure ``error`` reports (IREE's FAILED_PRECONDITION text), if any."""
        parsed = parse_guard_message(str(error))
        return None if parsed is None else cls(*parsed, function)
