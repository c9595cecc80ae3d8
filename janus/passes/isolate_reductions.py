"""``janus-isolate-reductions-read-twice``: a reduction whose result may be read at two
different indices by one fused elementwise op is computed by a dispatch of its own.

IREE 3.13's llvm-cpu code generation gets one dispatch wrong: a reduction (row sums ``s``)
fused into an elementwise consumer that reads ``s`` through two indexing maps (``s[i] + s[j]``,
as in the pairwise squared distances ``sq[:, None] + sq[None, :] - 2 X @ X.T`` of kNN, RBF
kernels and t-SNE). The consumer's tile reads elements of ``s`` that the fused reduction did
not compute, so only ``i == j`` is right and the rest is zero (seen on an AVX-512 host with
iree-compile alone: ``lit_tests/passes/isolate-reductions-read-twice.mlir``'s first function,
without this pass). A reduction read once, or twice through the same map of one op, compiles
right (softmax, layer norm, losses), and so does a matmul result.

IREE fuses a chain of elementwise consumers into one op (``t = a + s[i]; u = t + s[j]``, also
through a transpose), so a reduction result read by two elementwise ops over the same number of
loops (or by two, one of them through a reshape, transpose or broadcast) is isolated:
``util.optimization_barrier`` on the result keeps it out of its consumers' dispatch. That costs
one dispatch where it applies; ``logsumexp``'s max, read by a 2-d and a 1-d op, is left alone,
and so is a result with ``?`` dims (``_static``).
"""

from __future__ import annotations

from typing import Iterator

from janus.ir import ir
from janus.passes.registry import ModulePass, register_pass
from janus.passes.walk import collect

#: ops that only view or rearrange their operand: a read through them is a read of the operand
_VIEWS = frozenset({"tensor.expand_shape", "tensor.collapse_shape", "tensor.cast", "linalg.transpose",
                    "linalg.broadcast", "tensor.extract_slice"})


def _is_reduction(op: ir.Operation) -> bool:
    if op.name == "linalg.reduce":
        return True
    return op.name == "linalg.generic" and "reduction" in str(op.attributes["iterator_types"])


def _reads(value: ir.Value, through_view: bool = False) -> Iterator[tuple[ir.Operation, int, bool]]:
    """(op, operand number, whether a view op stands between) for each read of ``value``."""
    for use in value.uses:
        user = use.owner
        if user.name in _VIEWS and use.operand_number == 0:
            for result in user.results:
                yield from _reads(result, True)
        else:
            yield user, use.operand_number, through_view


def _map_of(op: ir.Operation, operand: int) -> ir.AffineMap:
    """The indexing map through which a ``linalg.generic`` reads operand ``operand``."""
    return ir.AffineMapAttr(ir.ArrayAttr(op.attributes["indexing_maps"])[operand]).value


def read_at_two_indices(value: ir.Value) -> bool:
    """Whether one fused elementwise op may read ``value`` at two different indices: two
    ``linalg.generic`` reads over the same number of loops, other than through one map of one
    op (two ops may fuse through a transpose, which changes the map: t-SNE's
    ``((num + s).T + s)``), or two reads of which one goes through a view. Other readers (a
    matmul, ``return``) never take a reduction into their dispatch."""
    reads = [(op, operand, viewed) for op, operand, viewed in _reads(value) if op.name == "linalg.generic"]
    if len(reads) < 2:
        return False
    if any(viewed for _, _, viewed in reads):
        return True
    groups: dict[int, set[tuple[ir.Operation, str]]] = {}
    for op, operand, _ in reads:
        indexing = _map_of(op, operand)
        groups.setdefault(indexing.n_dims, set()).add((op, str(indexing)))
    return any(len(found) > 1 for found in groups.values())


def _static(value: ir.Value) -> bool:
    """A barrier on a tensor with ``?`` dims stops IREE resolving them ("'tensor.dim' op unexpected
    during shape cleanup"), and with ``?`` dims the fused dispatch computed right: left alone."""
    return ir.ShapedType(value.type).has_static_shape


def _isolate(op: ir.Operation, value: ir.Value) -> None:
    with op.location, ir.InsertionPoint.after(op):
        barrier = ir.Operation.create("util.optimization_barrier", results=[value.type], operands=[value])
    value.replace_all_uses_except(barrier.results[0], barrier)


@register_pass
class IsolateReductionsReadTwice(ModulePass):
    name = "janus-isolate-reductions-read-twice"
    summary = ("Put a util.optimization_barrier on a reduction result read at two places (IREE 3.13's llvm-cpu "
               "miscompiles a reduction fused into a consumer reading it through two indexing maps).")

    def apply(self, module_op: ir.Operation) -> None:
        for reduction in collect(module_op, _is_reduction):
            for value in reduction.results:
                if _static(value) and read_at_two_indices(value):
                    _isolate(reduction, value)
