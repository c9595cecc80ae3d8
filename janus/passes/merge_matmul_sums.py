"""``janus-merge-matmul-sums``: a running sum of matmuls becomes one matmul over a longer K.

Backpropagation through time accumulates a weight gradient step by step
(``dW += xh.T @ dz``); unrolled, that is a chain ``acc_n = acc_{n-1} + A_n @ B_n`` of
matmuls with a small K (the batch) whose sum is read only at the end. Each link is a
skinny GEMM plus a full pass over the accumulator. Their sum is one GEMM:

    acc_0 + A_1 @ B_1 + ... + A_n @ B_n  ==  acc_0 + concat(A_i, dim 1) @ concat(B_i, dim 0)

which a CPU or GPU runs near its peak (K = n * batch) and which reads the accumulator
once. The rewrite reassociates a floating-point sum, as every tiled matmul does already
along K; NumPy's own order differs from both.

A convolution written as shifted matmuls (``out += x[:, i:i+Ho, j:j+Wo].reshape(-1, C) @
W[i, j]``) is such a chain too, over the filter taps: merged, its concatenated left
operand is the im2col matrix and the k*k skinny products become one GEMM with K = k*k*C.
With one input channel each product has K = 1 and the frontend emits it as an outer
product (a broadcast multiply), which counts as a matmul here (``matmuls.matmul_product``).

A link is a ``linalg.generic`` elementwise ``arith.addf``/``arith.addi`` of two tensors of
one type (identity maps) with one operand the only use of a product: a plain
``linalg.matmul`` (default maps, static shapes) into a zero-filled init, or an outer
product; the chain follows the other operand through links used only by the next one,
in the same block.
"""

from __future__ import annotations

from dataclasses import dataclass

from iree.compiler.dialects import tensor

from janus.ir import ir
from janus.passes.matmuls import blocks, concat_type, matmul_product, owner, single_use, static, zero_matmul
from janus.passes.registry import ModulePass, register_pass

_ADDS = frozenset({"arith.addf", "arith.addi"})


@dataclass(frozen=True)
class Link:
    """``add = other + product``: ``other`` is the previous partial sum (or the base)."""

    add: ir.Operation
    product: ir.Operation
    #: operand index of ``add`` that holds the previous partial sum
    other_index: int

    @property
    def other(self) -> ir.Value:
        return self.add.operands[self.other_index]


def _product(value: ir.Value, block: ir.Block) -> ir.Operation | None:
    """The matmul product in ``block`` whose only use is the add, if ``value`` is one."""
    op = owner(value)
    if op is None or op.block != block or not single_use(value) or not matmul_product(op):
        return None
    return op


def _is_elementwise_add(op: ir.Operation) -> bool:
    """``linalg.generic`` adding its two inputs (identity maps, one result type)."""
    if op.name != "linalg.generic" or len(op.operands) != 3 or len(op.results) != 1:
        return False
    t = op.results[0].type
    if not static(t) or any(v.type != t for v in op.operands):
        return False
    maps = ir.ArrayAttr(op.attributes["indexing_maps"])
    identity = ir.AffineMap.get_identity(t.rank, context=op.context)
    if any(ir.AffineMapAttr(m).value != identity for m in maps):
        return False
    body = op.regions[0].blocks[0]
    ops = list(body.operations)
    if len(ops) != 2 or ops[0].name not in _ADDS or ops[1].name != "linalg.yield":
        return False
    args = list(body.arguments)
    lhs, rhs = ops[0].operands
    return ((lhs == args[0] and rhs == args[1]) or (lhs == args[1] and rhs == args[0])) and ops[1].operands[0] == ops[0].results[0]


def _link(op: ir.Operation) -> Link | None:
    if not _is_elementwise_add(op):
        return None
    for index in (1, 0):  # the matmul is usually the right operand (``acc += a @ b``)
        product = _product(op.operands[index], op.block)
        if product is not None and product.results[0].type == op.results[0].type:
            return Link(op, product, 1 - index)
    return None


def _chains(block: ir.Block) -> list[list[Link]]:
    """Chains of two links or more in ``block``, each in program order."""
    links = {}
    for op in block.operations:
        link = _link(op.operation)
        if link is not None:
            links[op.operation] = link
    previous: dict[ir.Operation, Link] = {}
    for op, link in links.items():
        prev = owner(link.other)
        if prev is not None and prev in links and single_use(link.other):
            previous[op] = links[prev]
    continued = {p.add for p in previous.values()}
    chains = []
    for op, link in links.items():
        if link.add in continued:
            continue  # not the last link of its chain
        chain = [link]
        while chain[-1].add in previous:
            chain.append(previous[chain[-1].add])
        if len(chain) >= 2:
            chains.append(chain[::-1])
    return chains


def _merge(chain: list[Link]) -> None:
    """Rewrite ``chain`` into ``base + concat(A) @ concat(B)`` at its last add."""
    last = chain[-1]
    lhs = [link.product.operands[0] for link in chain]
    rhs = [link.product.operands[1] for link in chain]
    at = ir.InsertionPoint(last.add)
    with last.add.location:
        a = tensor.ConcatOp(concat_type(lhs, 1), 1, lhs, ip=at).result
        b = tensor.ConcatOp(concat_type(rhs, 0), 0, rhs, ip=at).result
        merged = zero_matmul(a, b, ir.RankedTensorType(last.product.results[0].type), at)
    last.add.operands[1 - last.other_index] = merged
    last.add.operands[last.other_index] = chain[0].other
    last.product.erase()
    for link in reversed(chain[:-1]):
        link.add.erase()
        link.product.erase()


@register_pass
class MergeMatmulSums(ModulePass):
    name = "janus-merge-matmul-sums"
    summary = "Merge a running sum of matmuls (acc += A_i @ B_i) into one matmul over the concatenated K."

    def apply(self, module_op: ir.Operation) -> None:
        for block in list(blocks(module_op)):
            for chain in _chains(block):
                _merge(chain)
