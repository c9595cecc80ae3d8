"""Which modules get IREE's data-tiled matmuls: decided from the lowered module's matmul shapes.

Data tiling (``--iree-dispatch-creation-data-tiling``) packs matmul operands into the
tile layout of the CPU's inner kernel (16x16 tiles of f32 with AVX-512). On the zoo's
GEMMs (full size, one core, CPU time of the compiled step) it is worth 1.5x: the LSTM
LM's step 63 -> 43 ms, the GAN's 1.7 -> 1.1 ms, a 384x1024x640 matmul 12.1 -> 4.3 ms. But
every packed operand costs a pack (and the result an unpack) dispatch, and a dimension
below the tile is padded up to it: LeNet-5's shifted matmuls (K or N of 1, 6 or 16) run
1.5x slower (8.9 -> 13.2 ms). So a module is data-tiled only when nearly all of its
matmul FLOPs are in matmuls large in every dimension (the target's ``data_tiling_flags``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

from janus.ir import ir

#: a matmul counts as large when each of M, N and K (per batch) is at least this
MIN_DIM = 32
#: the share of matmul FLOPs in large matmuls above which a module is data-tiled
MIN_LARGE_SHARE = 0.8
_MATMULS = frozenset({"linalg.matmul", "linalg.batch_matmul"})


@dataclass(frozen=True)
class Matmul:
    batch: int
    m: int
    n: int
    k: int

    @property
    def flops(self) -> int:
        return 2 * self.batch * self.m * self.n * self.k

    @property
    def large(self) -> bool:
        return min(self.m, self.n, self.k) >= MIN_DIM


def matmuls(module: ir.Module) -> Iterator[Matmul]:
    """Every statically shaped ``linalg.matmul``/``batch_matmul`` of ``module``."""
    for op in _walk(module.operation):
        if op.name not in _MATMULS:
            continue
        lhs, out = op.operands[0].type, op.results[0].type
        if not (isinstance(lhs, ir.RankedTensorType) and lhs.has_static_shape
                and isinstance(out, ir.RankedTensorType) and out.has_static_shape):
            continue
        *batch, m, n = out.shape
        batches = batch[0] if batch else 1
        k = _elements(lhs) // (batches * m) if batches * m else 0
        yield Matmul(batches, m, n, k)


def wants_data_tiling(module: ir.Module) -> bool:
    """Whether ``module``'s matmul FLOPs are nearly all in large matmuls (and it has some)."""
    total = large = 0
    for mm in matmuls(module):
        total += mm.flops
        large += mm.flops if mm.large else 0
    return total > 0 and large >= MIN_LARGE_SHARE * total


def _elements(t: ir.RankedTensorType) -> int:
    count = 1
    for size in t.shape:
        count *= size
    return count


def _walk(op: ir.Operation) -> Iterator[ir.Operation]:
    for region in op.regions:
        for block in region.blocks:
            for inner in block.operations:
                yield inner.operation
                yield from _walk(inner.operation)
