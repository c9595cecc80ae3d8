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
import numpy as np

from janus.frontend.values import NotConvertible, Tensor, Weak, tensor_type


@dataclass(frozen=True)
class _Scalar:
    """A scalar parameter or result of the entry function (what ``function_text`` reads)."""

    name: str
    type: str


def _element(t: Tensor) -> str:
    return t.type.removeprefix("tensor<").removesuffix(">")


def _unsigned(type_: str) -> str:
    """``tensor<4xi8>`` as ``tensor<4xui8>``."""
    return type_.replace("xi", "xui") if "x" in type_ else type_.replace("<i", "<ui")


def _unsigned_input(em: Emitter, t: Tensor, index: int) -> _Scalar:
    """An unsigned-int parameter (``tensor<4xui8>``: the runtime then takes ``uint8``
    arrays), bitcast to the signless tensor ``t`` the body uses."""
    if not t.static or t.size < 2:
        raise NotConvertible(f"a {t.dtype.name} argument of one element (or of ? dims): IREE 3.13 cannot bufferize its tensor.bitcast")
    param = _Scalar(f"%unsigned_in{index}", _unsigned(t.type))
    em.define(param)
    em.append(f"{t.name} = tensor.bitcast {param.name} : {param.type} to {t.type}", [(param.name, param.type)])
    return param


def _unsigned_output(em: Emitter, t: Tensor, index: int) -> _Scalar:
    """The unsigned-int result ``t`` as ``tensor<..xui8>``. A one-element result is bitcast
    as two elements and sliced afterwards: IREE 3.13 cannot bufferize a one-element
    ``tensor.bitcast``."""
    if not t.static:
        raise NotConvertible(f"a {t.dtype.name} result of ? dims: IREE 3.13 cannot bufferize a one-element tensor.bitcast")
    name = f"%unsigned_out{index}"
    if t.size > 1:
        em.append(f"{name} = tensor.bitcast {t.name} : {t.type} to {_unsigned(t.type)}", [(t.name, t.type)])
        return _Scalar(name, _unsigned(t.type))
    pair = em.concat([em.reshape(t, (1,)), em.literal(np.zeros(1, t.dtype))], 0, (2,))
    slice_type = _unsigned(tensor_type((1,), t.dtype))
    em.append(f"{name}_pair = tensor.bitcast {pair.name} : {pair.type} to {_unsigned(pair.type)}", [(pair.name, pair.type)])
    em.append(f"{name}_one = tensor.extract_slice {name}_pair[0] [1] [1] : {_unsigned(pair.type)} to {slice_type}")
    if t.shape == (1,):
        return _Scalar(f"{name}_one", slice_type)
    reshape = "collapse_shape" if not t.shape else "expand_shape"
    grouping = "[]" if not t.shape else f"[[{', '.join(str(i) for i in range(t.ndim))}]] output_shape {list(t.shape)}"
    em.append(f"{name} = tensor.{reshape} {name}_one {grouping} : {slice_type} into {_unsigned(t.type)}")
    return _Scalar(name, _unsigned(t.type))


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
    for i, t in enumerate(inputs):
        if t.dtype.kind == "u" and i not in scalar_inputs:
            params[i] = _unsigned_input(em, t, i)
    prologue, em.lines = em.lines, body
    results: list[Tensor | _Scalar] = list(outputs)
    for i in scalar_outputs:
        results[i] = _Scalar(em.scalar(outputs[i]), _element(outputs[i]))
    for i, t in enumerate(outputs):
        if t.dtype.kind == "u" and i not in scalar_outputs:
            results[i] = _unsigned_output(em, t, i)
    return function_text(name, params, results, [*prologue, *heap_prologue, *em.function_lines()])  # type: ignore[arg-type]
