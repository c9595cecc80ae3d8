"""Heap state in recursive functions: a method recursing with ``self`` (``self.encode(tree)``).

A generated recursive function (``recursion``) must not hold heap ops: its frames are
replayed by ``janus-eliminate-recursion`` and ``janus-externalize-heap`` works on the entry
function only. A heap object passed to a recursive call is therefore a *static* argument
of the generated function (the kind names its access path, so the same object is passed at
every level; another object is another specialization), and while the function is traced
the heap tracker's reads go through a ``RecursionHeap``: each array it reads is read in
the *caller* (a ``janus.get_attr`` there, checked on every call like any other read) and
becomes an extra, invariant parameter of the function, as ``grad_heap`` does for
``janus.grad``. Every ``janus.invoke`` of the function passes those arrays: a call site
outside reads them again where it stands; the function's own recursive calls pass its
parameters (written as a placeholder, filled in once tracing found them all). Writes stay
``NotConvertible`` (all-or-nothing heap semantics would need the stack to carry a shadow
heap). Mutual recursion that reaches heap state through a function still being traced is
refused.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from janus.frontend.heap.access import HeapRef, HoistedReads
from janus.frontend.values import NotConvertible, Tensor
from janus.heap import AccessPath, Key

if TYPE_CHECKING:
    from janus.frontend.emitter import Emitter
    from janus.frontend.trace.interpreter import Tracer


class RecursionHeap(HoistedReads):
    """The heap tracker's reads while one generated recursive function is traced."""

    refusal = "inside a recursive function (heap writes there are not supported)"
    DYNAMIC_READ = "a recursive function reads {label}, an array with ? dims"

    def __init__(self, tracer: "Tracer", name: str, caller: "Emitter", first: int) -> None:
        self.tracer, self.name, self.caller = tracer, name, caller
        self.enclosing: Any = tracer.heap.scope  # a janus.grad or recursive function being traced around this one
        self.first = first  # index of the first extra parameter
        self.reads: list[tuple[HeapRef, str, Key]] = []  # the locations passed as extra parameters, in order
        self.arguments: dict[AccessPath, Tensor] = {}  # location -> parameter of the function

    def parameter(self, ref: HeapRef, kind: str, key: Key, value: Tensor) -> Tensor:
        self.reads.append((ref, kind, key))
        parameter = Tensor(f"%arg{self.first + len(self.reads) - 1}", value.shape, value.dtype)
        self.tracer.em.define(parameter)
        return parameter

    def parameters(self) -> list[Tensor]:
        return [self.arguments[ref.path.child(kind, key)] for ref, kind, key in self.reads]

    def placeholder(self) -> str:
        """Stands for the extra operands of this function's own recursive calls until known."""
        return f"@@heap_{self.name}@@"

    def fill(self, text: str) -> str:
        """``text`` with the placeholder operands and types of this function's calls filled in."""
        params = self.parameters()
        names, types = "".join(f", {t.name}" for t in params), "".join(f", {t.type}" for t in params)
        token = self.placeholder()
        text = text.replace(f", {token}:names", names).replace(f", {token}:types", types)
        return text.replace(f"{token}:names", names[2:]).replace(f"{token}:types", types[2:])

    def finish(self, own: str, others: list[str]) -> str:
        """This function's text, filled in; ``others`` (finished functions, traced inside this
        one: mutual recursion) filled in place when this function reads no heap state."""
        token = self.placeholder()
        for i, text in enumerate(others):
            if token in text:
                if self.reads:
                    raise NotConvertible("mutual recursion whose functions read heap state is not supported")
                others[i] = self.fill(text)
        return self.fill(own)


def extra_operands(tracer: "Tracer", fn_scope: RecursionHeap | None,
                   reads: list[tuple[HeapRef, str, Key]]) -> tuple[list[str], list[str]]:
    """(operands, types) a ``janus.invoke`` passes for the heap reads of its callee: the
    callee's placeholders inside its own tracing, else the arrays read where the call stands."""
    if fn_scope is not None:  # only the function's own body may hold these (``RecursionHeap.finish``)
        token = fn_scope.placeholder()
        return [f"{token}:names"], [f"{token}:types"]
    values = [tracer.heap.read(ref, kind, key) for ref, kind, key in reads]
    return [v.name for v in values], [v.type for v in values]
