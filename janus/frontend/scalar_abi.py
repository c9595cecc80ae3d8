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

from janus.frontend.emitter import function_text
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


def entry_function(name: str, inputs: Sequence[Tensor], outputs: Sequence[Tensor], lines: Sequence[str],
                   scalar_inputs: Collection[int], scalar_outputs: Collection[int]) -> str:
    """``function_text`` with the inputs and outputs at the given indices passed as scalars.

    Scalar inputs must be integers or floats: IREE rejects ``tensor.from_elements`` of an
    ``i1`` computed at run time (see ``Emitter._tensor_of``)."""
    params: list[Tensor | _Scalar] = list(inputs)
    prologue: list[str] = []
    for i in scalar_inputs:
        t = inputs[i]
        assert t.dtype.kind != "b" and not t.shape, f"{t} cannot be a scalar parameter"
        params[i] = _Scalar(f"%scalar_in{i}", _element(t))
        prologue.append(f"{t.name} = tensor.from_elements {params[i].name} : {t.type}")
    results: list[Tensor | _Scalar] = list(outputs)
    epilogue: list[str] = []
    for i in scalar_outputs:
        t = outputs[i]
        results[i] = _Scalar(f"%scalar_out{i}", _element(t))
        epilogue.append(f"{results[i].name} = tensor.extract {t.name}[] : {t.type}")
    return function_text(name, params, results, [*prologue, *lines, *epilogue])  # type: ignore[arg-type]
