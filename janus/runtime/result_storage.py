"""Caller-provided storage for small results (IREE's ``iree.abi.output``).

A result IREE allocates costs the call an allocation, and Python a buffer-view wrapper, a
mapping and an array over it before the copy out (~1 us for a small array). For a
static-shaped tensor result under ``SHARE_MIN_BYTES`` (large ones are handed out over
their IREE buffers instead, ``values.TensorType.pull``), the exported function gets one
more trailing argument, ``%storage: tensor<...> {iree.abi.output = <result index>}``: IREE
writes the result into the buffer passed there, which the runtime keeps per function and
driver (``values.Stage``) and copies out of after the call. A failed guard leaves only
that buffer written, never the heap. Only host-memory targets get storage (the CPU; a GPU's
results are copied to the host anyway).
"""

from __future__ import annotations

from typing import Callable

from janus.ir import ir
from janus.runtime.values import SHARE_MIN_BYTES, TensorType, ValueType

#: the argument attribute IREE's native ABI reads (``iree.abi.output = N : index``)
OUTPUT_ATTR = "iree.abi.output"


def wants_storage(kind: ValueType) -> bool:
    """A result that gets caller storage: a non-empty static tensor under ``SHARE_MIN_BYTES``."""
    if not isinstance(kind, TensorType) or None in kind.shape:
        return False
    nbytes = kind.dtype.itemsize
    for d in kind.shape:
        nbytes *= d
    return 0 < nbytes < SHARE_MIN_BYTES


def add_result_storage(module: ir.Module, value_type: Callable[[ir.Type], ValueType]) -> None:
    """Give each public function of ``module`` a trailing storage argument per result whose
    converter (``value_type``) ``wants_storage``, in place."""
    with module.context, ir.Location.unknown():
        for op in module.body.operations:
            if not exported(op):
                continue
            results = ir.FunctionType(ir.TypeAttr(op.operation.attributes["function_type"]).value).results
            picked = [i for i, t in enumerate(results) if wants_storage(value_type(t))]
            if picked:
                _append_storage(op.operation, picked)


def storage_results(function: ir.Operation) -> tuple[tuple[int, ...], int]:
    """The result index each trailing storage argument of ``function`` holds, and the
    number of arguments before them."""
    attrs = function.attributes
    arg_attrs = list(attrs["arg_attrs"]) if "arg_attrs" in attrs else []
    indices = [ir.IntegerAttr(a[OUTPUT_ATTR]).value for a in arg_attrs if OUTPUT_ATTR in ir.DictAttr(a)]
    inputs = len(ir.FunctionType(ir.TypeAttr(attrs["function_type"]).value).inputs)
    return tuple(indices), inputs - len(indices)


def exported(op: ir.OpView) -> bool:
    """An exported function with a body (what ``compiler.public_functions`` lists)."""
    attrs = op.operation.attributes
    return (op.operation.name == "func.func" and bool(len(op.regions[0].blocks))
            and ("sym_visibility" not in attrs or attrs["sym_visibility"].value == "public"))


def _append_storage(function: ir.Operation, picked: list[int]) -> None:
    attrs = function.attributes
    ftype = ir.FunctionType(ir.TypeAttr(attrs["function_type"]).value)
    inputs, results = list(ftype.inputs), list(ftype.results)
    block = function.regions[0].blocks[0]
    arg_attrs = list(attrs["arg_attrs"]) if "arg_attrs" in attrs else [ir.DictAttr.get({})] * len(inputs)
    index = ir.IndexType.get()
    for i in picked:
        block.add_argument(results[i], ir.Location.unknown())
        arg_attrs.append(ir.DictAttr.get({OUTPUT_ATTR: ir.IntegerAttr.get(index, i)}))
    attrs["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(inputs + [results[i] for i in picked], results))
    attrs["arg_attrs"] = ir.ArrayAttr.get(arg_attrs)
