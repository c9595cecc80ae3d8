"""Python scalars at the entry function's boundary: plain ``i64``/``f64``/``i1`` values.

A relaxed int argument or a Python scalar result passed as a 0-d tensor costs a buffer
allocation and copy each way (about 1.5 µs each, see docs/frontend.md "per-call path"); as
a scalar it is one VM int or float push. The graph body keeps its 0-d tensors: only the
entry function converts, ``tensor.from_elements`` of a scalar parameter and
``tensor.extract`` of a result, which IREE folds into the surrounding code.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Collection, Sequence

from janus.frontend.emitter import Emitter, function_text
from janus.frontend.values import Tensor, Weak


@dataclass(frozen=True)
class _Scalar:
    """A scalar parameter or result of the entry function (what ``function_text`` reads)."""

    name: str
    type: str


def _element(t: Tensor) -> str:
    return t.type.removeprefix("tensor<").removesuffix(">")


def scalar_results(outputs: Sequence[Tensor], returned: Collection[int]) -> frozenset[int]:
    """The ``returned`` output indices that hold Python scalars (``Weak``: int, float, bool)."""
    return frozenset(i for i in returned if isinstance(outputs[i], Weak))


def entry_function(name: str, em: Emitter, inputs: Sequence[Tensor], outputs: Sequence[Tensor], heap_prologue: Sequence[str],
                   scalar_inputs: Collection[int], scalar_outputs: Collection[int]) -> str:
    """``function_text`` of ``em``'s body (after the ``heap_prologue``) with the inputs and
    outputs at the given indices passed as scalars, converted by ops ``em`` emits.

    Scalar inputs must be integers or floats: IREE rejects ``tensor.from_elements`` of an
    ``i1`` computed at run time (see ``Emitter.tensor_of``)."""
    em.loc = ""  # the conversions belong to no Python line
    params: list[Tensor | _Scalar] = list(inputs)
    body, em.lines = em.lines, []
    for i in scalar_inputs:
        t = inputs[i]
        assert t.dtype.kind != "b" and not t.shape, f"{t} cannot be a scalar parameter"
        params[i] = _Scalar(f"%scalar_in{i}", _element(t))
        em.define(params[i])
        em.tensor_of(t.name, params[i].name, t.dtype)
    prologue, em.lines = em.lines, body
    results: list[Tensor | _Scalar] = list(outputs)
    for i in scalar_outputs:
        results[i] = _Scalar(em.scalar(outputs[i]), _element(outputs[i]))
    return function_text(name, params, results, [*prologue, *heap_prologue, *em.lines])  # type: ignore[arg-type]
