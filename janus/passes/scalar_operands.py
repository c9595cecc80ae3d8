"""``janus-scalar-operands-into-bodies``: a scalar made into a 0-d tensor only to feed an
elementwise op is used by the op's body directly.

Python scalar arithmetic traced into a graph (``1 - 0.9 ** s.t`` in a hand-written Adam)
ends in ``tensor.from_elements %s : tensor<f64>``, broadcast into a ``linalg.generic`` by a
``() -> ()``-style indexing map. IREE gives each such ``tensor.from_elements`` a dispatch of
its own that writes the one element into a transient buffer the consumer then reads
(adam_pow: two extra dispatches and a transient allocation per call, 3.9 -> 9.5 us per
invoke). A body that reads ``%s`` from above instead makes it a push constant of the
consumer's dispatch: no dispatch, no buffer. The values are the same: the block argument
was that element.

An operand qualifies when it is an ``ins`` operand of a ``linalg.generic``, defined by a
one-element ``tensor.from_elements`` of rank 0, and read through an indexing map with no
results. A ``tensor.from_elements`` of a ``tensor.extract`` is left alone (that scalar
would be read back from a device buffer; canonicalize folds the pair).
"""

from __future__ import annotations

from janus.ir import ir
from janus.passes.matmuls import owner
from janus.passes.rebuild import rebuild
from janus.passes.registry import ModulePass, register_pass
from janus.passes.walk import collect


def _scalar_of(value: ir.Value, map_attr: ir.Attribute) -> ir.Value | None:
    """The scalar ``value`` was made of, when it is a rank-0 ``tensor.from_elements`` of
    one host-side scalar read through a map with no results."""
    op = owner(value)
    if op is None or op.name != "tensor.from_elements" or len(op.operands) != 1:
        return None
    if len(ir.AffineMapAttr(map_attr).value.results) != 0:
        return None
    element = op.operands[0]
    source = owner(element)
    if source is not None and source.name == "tensor.extract":
        return None
    return element


def _fold_scalar_operands(generic: ir.Operation) -> None:
    """Rebuild ``generic`` without its qualifying operands, their block arguments replaced
    by the scalars themselves."""
    sizes = list(ir.DenseI32ArrayAttr(generic.attributes["operandSegmentSizes"]))
    inputs = sizes[0]
    maps = list(ir.ArrayAttr(generic.attributes["indexing_maps"]))
    operands = list(generic.operands)
    scalars = {i: _scalar_of(operands[i], maps[i]) for i in range(inputs)}
    folded = [i for i, scalar in scalars.items() if scalar is not None]
    if not folded:
        return
    body = generic.regions[0].blocks[0]
    for i in folded:
        body.arguments[i].replace_all_uses_with(scalars[i])
    for i in reversed(folded):
        body.erase_argument(i)
    kept = [i for i in range(len(operands)) if i not in folded]
    new = rebuild(generic, operands=[operands[i] for i in kept])
    new.attributes["indexing_maps"] = ir.ArrayAttr.get([maps[i] for i in kept])
    new.attributes["operandSegmentSizes"] = ir.DenseI32ArrayAttr.get([inputs - len(folded), *sizes[1:]])
    makers: list[ir.Operation] = []
    for i in folded:
        made = owner(operands[i])
        if made not in makers:
            makers.append(made)
    for made in makers:
        if not list(made.results[0].uses):
            made.erase()


@register_pass
class ScalarOperandsIntoBodies(ModulePass):
    name = "janus-scalar-operands-into-bodies"
    summary = "Use a scalar that a rank-0 tensor.from_elements feeds to a linalg.generic in the generic's body (no dispatch for it)."

    def apply(self, module_op: ir.Operation) -> None:
        for generic in collect(module_op, lambda op: op.name == "linalg.generic"):
            _fold_scalar_operands(generic)
