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

A sum whose first term is a product too (``A_0 @ B_0 + A_1 @ B_1 + ...``, no base)
merges all of them, even two: a weight used twice in a forward pass gets the sum of two
weight gradients (a GAN's discriminator on the real and on the generated batch), two
matmuls of half the K plus an add that one GEMM replaces.

When every left operand is a transpose (``x_i.T @ dz_i``: the weight gradient of
``x @ W``), the concatenation of the transposes is the transpose of the concatenation of
the ``x_i`` along the other dimension: one ``linalg.transpose`` of ``concat(x_i, dim 0)``,
which IREE fuses into the packing of the GEMM's operand, instead of one transpose
dispatch per term (the LSTM LM's 20 ``transpose_32x384`` per step).

A sum along one dimension of a 2-D tensor (``db += dz.sum(axis=0)``: a product with a
row of ones) merges the same way, over the concatenation of the summed tensors along
that dimension: BPTT's 20 per-step bias gradients become one reduction over all rows,
one dispatch instead of twenty. A chain merges terms of one kind: products, or sums
along one dimension.

A link is a ``linalg.generic`` elementwise ``arith.addf``/``arith.addi`` of two tensors of
one type (identity maps) with one operand the only use of a term: a plain
``linalg.matmul`` (default maps, static shapes) into a zero-filled init, an outer
product, or a sum along one dimension of a static 2-D tensor into a zero-filled init;
the chain follows the other operand through links used only by the next one, in the
same block. A chain is merged when it has two links or more, or one link whose
previous partial sum is a term (used only there) of its kind itself.
"""

from __future__ import annotations

from dataclasses import dataclass

from iree.compiler.dialects import linalg, tensor

from janus.ir import ir
from janus.passes.matmuls import blocks, concat_type, is_zero, matmul_product, owner, single_use, static, zero_matmul
from janus.passes.registry import ModulePass, register_pass

_ADDS = frozenset({"arith.addf", "arith.addi"})
#: a sum along dimension 0, and along dimension 1, of a 2-D tensor: its maps and iterators
_SUM_MAPS = (("(d0, d1) -> (d0, d1)", "(d0, d1) -> (d1)"), ("(d0, d1) -> (d0, d1)", "(d0, d1) -> (d0)"))
_SUM_ITERATORS = ("[#linalg.iterator_type<reduction>, #linalg.iterator_type<parallel>]",
                  "[#linalg.iterator_type<parallel>, #linalg.iterator_type<reduction>]")


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
    """The term in ``block`` whose only use is the add, if ``value`` is one: a matmul
    product or a sum along one dimension."""
    op = owner(value)
    if op is None or op.block != block or not single_use(value) or _kind(op) is None:
        return None
    return op


def _kind(op: ir.Operation) -> str | None:
    """``"matmul"`` for a matmul product, ``"sum<d>"`` for a sum along dimension d, else None."""
    if matmul_product(op):
        return "matmul"
    dim = summed_dim(op)
    return None if dim is None else f"sum{dim}"


def summed_dim(op: ir.Operation) -> int | None:
    """The dimension ``op`` sums a static 2-D tensor along, into a zero-filled 1-D init
    (``x.sum(axis=d)`` as the frontend emits it), if it is such a sum."""
    if op.name != "linalg.generic" or len(op.operands) != 2 or len(op.results) != 1:
        return None
    source, result = op.operands[0].type, op.results[0].type
    if not (static(source) and static(result) and source.rank == 2 and result.rank == 1 and is_zero(op.operands[1])):
        return None
    maps = tuple(str(ir.AffineMapAttr(m).value) for m in ir.ArrayAttr(op.attributes["indexing_maps"]))
    iterators = str(op.attributes["iterator_types"])
    dim = {_SUM_MAPS[0]: 0, _SUM_MAPS[1]: 1}.get(maps)
    if dim is None or iterators != _SUM_ITERATORS[dim]:
        return None
    body = op.regions[0].blocks[0]
    ops = list(body.operations)
    if len(ops) != 2 or ops[0].name not in _ADDS or ops[1].name != "linalg.yield":
        return None
    return dim if {*ops[0].operands} == {*body.arguments} and ops[1].operands[0] == ops[0].results[0] else None


def _base_product(first: Link) -> ir.Operation | None:
    """The term a chain starting at ``first`` starts from, if its base is one of the same kind."""
    base = _product(first.other, first.add.block)
    return base if base is not None and _kind(base) == _kind(first.product) else None


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
        if prev is not None and prev in links and single_use(link.other) and _kind(links[prev].product) == _kind(link.product):
            previous[op] = links[prev]
    continued = {p.add for p in previous.values()}
    chains = []
    for op, link in links.items():
        if link.add in continued:
            continue  # not the last link of its chain
        chain = [link]
        while chain[-1].add in previous:
            chain.append(previous[chain[-1].add])
        if len(chain) >= 2 or _base_product(chain[-1]) is not None:  # chain[-1]: the first link
            chains.append(chain[::-1])
    return chains


def _merge(chain: list[Link]) -> None:
    """Rewrite ``chain`` into ``base + merged`` at its last add (``merged``: the chain's
    terms as one, ``_MERGED`` by kind); when the base is a term itself, it joins the
    merged one, which replaces the last add."""
    last = chain[-1]
    base = _base_product(chain[0])
    products = ([base] if base is not None else []) + [link.product for link in chain]
    at = ir.InsertionPoint(last.add)
    with last.add.location:
        merged = _MERGED[_kind(last.product)](products, ir.RankedTensorType(last.product.results[0].type), at)
    if base is None:
        last.add.operands[1 - last.other_index] = merged
        last.add.operands[last.other_index] = chain[0].other
        dead_adds = [link.add for link in chain[:-1]]
    else:
        last.add.results[0].replace_all_uses_with(merged)
        dead_adds = [link.add for link in chain]
    for add in reversed(dead_adds):
        add.erase()
    lhs = [p.operands[0] for p in products]
    for product in reversed(products):
        product.erase()
    transposes = {t: None for t in map(owner, lhs) if t is not None and t.name == "linalg.transpose"}
    for transpose in transposes:  # each once: a term may repeat an operand
        if not list(transpose.results[0].uses):
            transpose.erase()


def _merged_products(products: list[ir.Operation], result_type: ir.RankedTensorType, at: ir.InsertionPoint) -> ir.Value:
    """``concat(A_i, dim 1) @ concat(B_i, dim 0)``."""
    lhs = [p.operands[0] for p in products]
    rhs = [p.operands[1] for p in products]
    a = _concat_left_operands(lhs, at)
    b = tensor.ConcatOp(concat_type(rhs, 0), 0, rhs, ip=at).result
    return zero_matmul(a, b, result_type, at)


def _merged_sums(sums: list[ir.Operation], result_type: ir.RankedTensorType, at: ir.InsertionPoint) -> ir.Value:
    """The last sum again, over ``concat(x_i, dim d)``: the same body, maps and init."""
    dim = summed_dim(sums[-1])
    inputs = [s.operands[0] for s in sums]
    stacked = tensor.ConcatOp(concat_type(inputs, dim), dim, inputs, ip=at).result
    merged = sums[-1].clone(ip=at)
    merged.operands[0] = stacked
    return merged.results[0]


#: how a chain's terms become one, by ``_kind``
_MERGED = {"matmul": _merged_products, "sum0": _merged_sums, "sum1": _merged_sums}


def _transposed(value: ir.Value) -> ir.Value | None:
    """The input of the 2-D ``linalg.transpose`` that computes ``value``, if one does."""
    op = owner(value)
    if op is None or op.name != "linalg.transpose":
        return None
    return op.operands[0] if list(ir.DenseI64ArrayAttr(op.attributes["permutation"])) == [1, 0] else None


def _concat_left_operands(lhs: list[ir.Value], at: ir.InsertionPoint) -> ir.Value:
    """``concat(lhs, dim 1)``; as one transpose of ``concat(x_i, dim 0)`` when each is ``x_i.T``."""
    inputs = [_transposed(v) for v in lhs]
    if any(x is None for x in inputs):
        return tensor.ConcatOp(concat_type(lhs, 1), 1, lhs, ip=at).result
    stacked = tensor.ConcatOp(concat_type(inputs, 0), 0, inputs, ip=at).result
    result_type = concat_type(lhs, 1)
    with at:
        empty = tensor.EmptyOp(result_type.shape, result_type.element_type).result
        return linalg.transpose(stacked, outs=[empty], permutation=[1, 0])


@register_pass
class MergeMatmulSums(ModulePass):
    name = "janus-merge-matmul-sums"
    summary = ("Merge a running sum of matmuls (acc += A_i @ B_i) into one matmul over the concatenated K, "
               "and one of sums along a dimension (acc += x_i.sum(0)) into one sum.")

    def apply(self, module_op: ir.Operation) -> None:
        for block in list(blocks(module_op)):
            for chain in _chains(block):
                _merge(chain)
