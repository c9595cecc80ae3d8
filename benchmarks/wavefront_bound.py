"""What wavefront (level-by-level) execution can reach for TreeRNN and RNTN inference here.

Not a test: run ``JANUS_CACHE_DIR=/tmp/jc .venv/bin/python benchmarks/wavefront_bound.py
--aligned [--model rntn]`` and read the table (RNTN's takes about two minutes: its NumPy
recursion reads the 32 MB tensor V once per node, about 45 ms per tree). Issue #15 asks
for a pass that runs the independent invocations of a tree recursion one launch per
level. This script measures, before such a pass exists, the code it should produce,
written by hand (``wavefront_mlir``; the exact form is specified in docs/lowering.md,
"Wavefront execution"):

- the row table lives in a mutable ``util.global`` of static size (``MAX_ROWS`` rows), read
  and written with ``util.global.load``/``store`` around every update, so iree-compile
  updates it in place; as an ``scf.for`` iter_arg it is copied whole on every trip (a
  ``stream.async.transfer`` ConvertToStream adds for the loop-carried value, never elided);
- all leaves are gathered from the embedding by one ``iree_linalg_ext.gather``;
- each level's rows (the inner nodes of one depth, deepest first) are padded to a
  multiple of ``PAD``, and the level runs as static-size chunks, ``TIERS[0]`` rows at a
  time, then the rest ``TIERS[1]`` at a time: per chunk an ``iree_linalg_ext.gather`` of the
  children's rows (``kids`` is ``[rows, 2]``, so the gather reads whole rows), a static
  ``linalg.matmul`` with bias and tanh, and a ``tensor.insert_slice`` into the table;
- RNTN (``--model rntn``; its node adds ``(V @ x) @ x``, V is 128x256x256) adds per chunk
  one contraction of the chunk's rows with V viewed as ``[128 * 256, 256]`` and a reduction
  with the rows again (``_bilinear``), in chunks of up to 128 rows, so V is read once per
  chunk instead of once per node;
- the module is compiled without data tiling (``FLAGS``);
- the level starts arrive as a host index array (``janus-host-index-arrays`` makes
  ``starts`` a ``!util.buffer``), so the host reads them without a device round trip.

The schedule comes from the trees' breadth-first index arrays (``linearize``: the form
janus's linearizer gives a list of trees, level by level across the batch), vectorized in
NumPy (``janus.passes.recursion.level_schedule``). Checked against the zoo's
``encode``; timed in CPU time of this process (IREE's local-sync driver runs on the
calling thread), best of ``REPEATS``, against the plain recursion in the same process.

What each form measured (µs per tree, CPU time, min of 5 or 9 rounds with the forms
alternated in one process, several runs, 64-byte-aligned parameters, schedule excluded; a
loaded machine, load average 3-5; NumPy 130-190 in the same runs; "bal"/"lin" =
balanced/linear trees, b1/b25 = batch size):

| form                                                                | bal b1 | bal b25 | lin b1 | lin b25 |
|---------------------------------------------------------------------|-------:|--------:|-------:|--------:|
| table as iter_arg, generic gathers, dynamic-M matmul (the old form) | 161    | 74      | 513    | 166     |
| table in a mutable global (no per-level copy)                       | 147    | 53      | 434    | 70      |
| + ``iree_linalg_ext.gather``, kids as ``[n, 2]``                    | 130    | 46      | 410    | 61      |
| + static chunks of 8 rows                                           | 101    | 42      | 292    | 51      |
| + static chunks of 16                                               | 111    | 30      | 445    | 43      |
| + static chunks of 1 (one trip per row)                             | 212    | 166     | 213    | 162     |
| + tiers 16 then 4, levels padded to 4 (this script)                 | 95     | 31      | 253    | 45      |
| tiers 32 then 4 (the CPU preset turns data tiling on)               | 175    | 40      | 467    | 129     |
| tiers 64 then 8 (the same)                                          | 139    | 41      | 518    | 76      |
| tiers 64, 16, 4 with ``--iree-dispatch-creation-data-tiling=false`` | 114    | 29      | 271    | 48      |
| buckets by ``scf.index_switch`` (global stored in each case)        | 160    | 48      | 538    | 63      |
| this script with ``--iree-dispatch-creation-data-tiling``           | 143    | 40      | 445    | 74      |

Chunks of 32 rows or more make the CPU preset turn on data tiling
(``runtime/contractions.py``), which re-encodes W on every trip; gather, matmul and tanh
in one ``flow.dispatch.region`` do not compile with static chunks; ``scf.index_switch``
with tensor results does not convert to stream in iree-compile 3.13, and ``scf.if`` with
the table as result copies it in every branch. docs/lowering.md has the details.

``--aligned`` passes 64-byte-aligned copies of the parameters: NumPy's own arrays are
16-byte aligned, which the runtime could not hand to compiled code assuming IREE's 64, so
the 2.5 MB embedding was copied on every call; the CPU preset's code now assumes 16
(``runtime/targets.py``, ``import_alignment``) and takes them in place either way.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass
from typing import Callable

import numpy as np

from janus.models.rntn import RNTN
from janus.models.treernn import TreeRNN
from janus.models.trees import SHAPES, SIZES, Tree, make_dataset
from janus.passes.recursion.level_schedule import level_schedule
from janus.runtime import CompiledModule
from janus.runtime.compiler import compile_module

REPEATS = 5
HIDDEN, VOCAB = SIZES["full"][0], SIZES["full"][1]
#: rows of the table (leaves, then every level's padded rows); a larger batch is refused
MAX_ROWS = 8192
#: chunk sizes a level runs in, largest first; each level's rows are padded to ``PAD``
TIERS = (16, 4)
PAD = TIERS[-1]


def _bilinear(rows: int) -> str:
    """RNTN's term ``(V @ x) @ x`` of a chunk, as ``%zf``: one GEMM of the chunk's rows with V
    viewed as ``[H * 2H, 2H]`` (V is read once per chunk, not once per node), then a
    reduction with the rows again. Written as ``linalg.generic``s, so the CPU preset does not
    switch to data tiling (which would re-encode the 32 MB V on every trip)."""
    h, k = HIDDEN, 2 * HIDDEN
    return f"""      %vxe = tensor.empty() : tensor<{rows}x{h * k}xf32>
      %vxf = linalg.fill ins(%zero : f32) outs(%vxe : tensor<{rows}x{h * k}xf32>) -> tensor<{rows}x{h * k}xf32>
      %vx = linalg.generic {{indexing_maps = [affine_map<(n, m, c) -> (n, c)>, affine_map<(n, m, c) -> (m, c)>,
          affine_map<(n, m, c) -> (n, m)>], iterator_types = ["parallel", "parallel", "reduction"]}}
          ins(%x, %Vflat : tensor<{rows}x{k}xf32>, tensor<{h * k}x{k}xf32>) outs(%vxf : tensor<{rows}x{h * k}xf32>) {{
        ^bb0(%xv: f32, %vv: f32, %acc: f32):
          %p = arith.mulf %xv, %vv : f32
          %sum = arith.addf %acc, %p : f32
          linalg.yield %sum : f32
      }} -> tensor<{rows}x{h * k}xf32>
      %vxx3 = tensor.expand_shape %vx [[0], [1, 2]] output_shape [{rows}, {h}, {k}]
          : tensor<{rows}x{h * k}xf32> into tensor<{rows}x{h}x{k}xf32>
      %te = tensor.empty() : tensor<{rows}x{h}xf32>
      %tf = linalg.fill ins(%zero : f32) outs(%te : tensor<{rows}x{h}xf32>) -> tensor<{rows}x{h}xf32>
      %zf = linalg.generic {{indexing_maps = [affine_map<(n, i, j) -> (n, i, j)>, affine_map<(n, i, j) -> (n, j)>,
          affine_map<(n, i, j) -> (n, i)>], iterator_types = ["parallel", "parallel", "reduction"]}}
          ins(%vxx3, %x : tensor<{rows}x{h}x{k}xf32>, tensor<{rows}x{k}xf32>) outs(%tf : tensor<{rows}x{h}xf32>) {{
        ^bb0(%yv: f32, %xv: f32, %acc: f32):
          %p = arith.mulf %yv, %xv : f32
          %sum = arith.addf %acc, %p : f32
          linalg.yield %sum : f32
      }} -> tensor<{rows}x{h}xf32>
"""


def _chunk(rows: int, table: str, at: str, bilinear: bool) -> str:
    """One static chunk of a level: ``rows`` table rows from row ``at`` on."""
    h = HIDDEN
    start = _bilinear(rows) if bilinear else (
        f"      %zf = linalg.fill ins(%zero : f32) outs(%ze : tensor<{rows}x{h}xf32>) -> tensor<{rows}x{h}xf32>\n")
    return f"""      %table = util.global.load @table : {table}
      %inner = arith.subi {at}, %leaves : index
      %kid = tensor.extract_slice %kids[%inner, 0] [{rows}, 2] [1, 1] : tensor<?x2xi64> to tensor<{rows}x2xi64>
      %xe = tensor.empty() : tensor<{rows}x2x{h}xf32>
      %x3 = iree_linalg_ext.gather dimension_map = [0] ins(%table, %kid : {table}, tensor<{rows}x2xi64>)
          outs(%xe : tensor<{rows}x2x{h}xf32>) -> tensor<{rows}x2x{h}xf32>
      %x = tensor.collapse_shape %x3 [[0], [1, 2]] : tensor<{rows}x2x{h}xf32> into tensor<{rows}x{2 * h}xf32>
      %ze = tensor.empty() : tensor<{rows}x{h}xf32>
{start}      %z = linalg.matmul ins(%x, %W : tensor<{rows}x{2 * h}xf32>, tensor<{2 * h}x{h}xf32>)
          outs(%zf : tensor<{rows}x{h}xf32>) -> tensor<{rows}x{h}xf32>
      %hid = linalg.generic {{indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>,
          affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}}
          ins(%z, %b : tensor<{rows}x{h}xf32>, tensor<{h}xf32>) outs(%ze : tensor<{rows}x{h}xf32>) {{
        ^bb0(%zi: f32, %bias: f32, %o: f32):
          %t = arith.addf %zi, %bias : f32
          %y = math.tanh %t : f32
          linalg.yield %y : f32
      }} -> tensor<{rows}x{h}xf32>
      %next = tensor.insert_slice %hid into %table[{at}, 0] [{rows}, {h}] [1, 1] : tensor<{rows}x{h}xf32> into {table}
      util.global.store %next, @table : {table}
"""


def _tier(k: int, rows: int, table: str, bilinear: bool) -> str:
    """Tier ``k``: as many ``rows``-row chunks as fit in what earlier tiers left of the level."""
    return f"""    %base{k} = arith.addi %s, %done{k} : index
    %left{k} = arith.subi %n, %done{k} : index
    %count{k} = arith.divui %left{k}, %rows{rows} : index
    scf.for %j = %c0 to %count{k} step %c1 {{
      %offset = arith.muli %j, %rows{rows} : index
      %at = arith.addi %base{k}, %offset : index
{_chunk(rows, table, "%at", bilinear)}    }}
    %used{k} = arith.muli %count{k}, %rows{rows} : index
    %done{k + 1} = arith.addi %done{k}, %used{k} : index
"""


def wavefront_mlir(tiers: tuple[int, ...] = TIERS, bilinear: bool = False) -> str:
    """The level-by-level TreeRNN inference (see the module doc); with ``bilinear``, RNTN's
    (its node adds ``(V @ x) @ x``; V is the first parameter)."""
    h, table = HIDDEN, f"tensor<{MAX_ROWS}x{HIDDEN}xf32>"
    sizes = "".join(f"  %rows{rows} = arith.constant {rows} : index\n" for rows in tiers)
    tiers_text = "".join(_tier(k, rows, table, bilinear) for k, rows in enumerate(tiers))
    v_param = f"%V: tensor<{h}x{2 * h}x{2 * h}xf32>, " if bilinear else ""
    v_flat = (f"  %Vflat = tensor.collapse_shape %V [[0, 1], [2]] : tensor<{h}x{2 * h}x{2 * h}xf32> "
              f"into tensor<{2 * h * h}x{2 * h}xf32>\n") if bilinear else ""
    return f"""util.global private mutable @table = dense<0.0> : {table}
func.func @wavefront({v_param}%E: tensor<{VOCAB}x{h}xf32>, %W: tensor<{2 * h}x{h}xf32>, %b: tensor<{h}xf32>,
    %words: tensor<?xi64>, %kids: tensor<?x2xi64>, %starts: tensor<?xi64>, %levels: index,
    %roots: tensor<?xi64>) -> tensor<?x{h}xf32> {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
{sizes}{v_flat}  %zero = arith.constant 0.0 : f32
  %leaves = tensor.dim %words, %c0 : tensor<?xi64>
  %le = tensor.empty(%leaves) : tensor<?x{h}xf32>
  %leaf_rows = iree_linalg_ext.gather dimension_map = [0] ins(%E, %words : tensor<{VOCAB}x{h}xf32>, tensor<?xi64>)
      outs(%le : tensor<?x{h}xf32>) -> tensor<?x{h}xf32>
  %t0 = util.global.load @table : {table}
  %t1 = tensor.insert_slice %leaf_rows into %t0[0, 0] [%leaves, {h}] [1, 1] : tensor<?x{h}xf32> into {table}
  util.global.store %t1, @table : {table}
  scf.for %l = %c0 to %levels step %c1 {{
    %s64 = tensor.extract %starts[%l] : tensor<?xi64>
    %l1 = arith.addi %l, %c1 : index
    %e64 = tensor.extract %starts[%l1] : tensor<?xi64>
    %s = arith.index_cast %s64 : i64 to index
    %e = arith.index_cast %e64 : i64 to index
    %n = arith.subi %e, %s : index
    %done0 = arith.constant 0 : index
{tiers_text}  }}
  %final = util.global.load @table : {table}
  %k = tensor.dim %roots, %c0 : tensor<?xi64>
  %re = tensor.empty(%k) : tensor<?x{h}xf32>
  %out = iree_linalg_ext.gather dimension_map = [0] ins(%final, %roots : {table}, tensor<?xi64>)
      outs(%re : tensor<?x{h}xf32>) -> tensor<?x{h}xf32>
  return %out : tensor<?x{h}xf32>
}}
"""


#: breadth-first index arrays of a list of trees: word (-1 on inner nodes), left and right
#: child (-1 on leaves); the roots are rows 0 .. len(trees) - 1
Linear = tuple[np.ndarray, np.ndarray, np.ndarray]
#: the wavefront function's tree arguments: words, kids, starts, levels, roots
Schedule = tuple[np.ndarray, np.ndarray, np.ndarray, int, np.ndarray]


def linearize(trees: list[Tree]) -> Linear:
    """The trees numbered breadth-first from all roots at once, as janus's linearizer numbers
    the nodes of a list of trees (so rows are sorted by depth)."""
    queue = list(trees)
    word, left, right = [], [], []
    for t in queue:  # grows while iterating
        word.append(-1 if t.word is None else t.word)
        for child, ids in ((t.left, left), (t.right, right)):
            ids.append(-1 if child is None else len(queue))
            if child is not None:
                queue.append(child)
    return np.array(word, np.int64), np.array(left, np.int64), np.array(right, np.int64)


def schedule(linear: Linear, roots: int, pad: int = PAD) -> Schedule:
    """The wavefront function's tree arguments (``janus.passes.recursion.level_schedule``)."""
    word, left, right = linear
    plan = level_schedule(left, right, roots, pad)
    if plan.starts[-1] > MAX_ROWS:
        raise ValueError(f"{plan.starts[-1]} table rows; the module holds {MAX_ROWS}")
    return word[plan.leaves], plan.kids, plan.starts, plan.levels, plan.rows[:roots]


def aligned(a: np.ndarray) -> np.ndarray:
    """A copy of ``a`` whose data starts on a 64-byte boundary."""
    raw = np.empty(a.nbytes + 64, np.uint8)
    start = (-raw.ctypes.data) % 64
    out = raw[start : start + a.nbytes].view(a.dtype).reshape(a.shape)
    out[...] = a
    return out


def per_tree(f: Callable[[list[Tree]], object], batches: list[list[Tree]]) -> float:
    """Best-of-``REPEATS`` CPU seconds per tree of ``f`` over ``batches``."""
    best = float("inf")
    for _ in range(REPEATS):
        start = time.process_time()
        for trees in batches:
            f(trees)
        best = min(best, time.process_time() - start)
    return best / sum(len(trees) for trees in batches)


@dataclass(frozen=True)
class Model:
    """A zoo tree model the script can run level by level."""

    make: Callable[[int, int], TreeRNN]
    tiers: tuple[int, ...]
    bilinear: bool
    #: trees timed per shape and batch size (RNTN's recursion takes about 50 ms per tree)
    trees: int

    def parameters(self, model: TreeRNN) -> list[np.ndarray]:
        return [*([model.V] if self.bilinear else []), model.E, model.W, model.b]

    def flops_per_inner(self) -> int:
        h = HIDDEN
        return 2 * (2 * h) * h + (2 * h * (2 * h) ** 2 + 2 * h * 2 * h if self.bilinear else 0)


MODELS = {
    "treernn": Model(TreeRNN, TIERS, False, 30),
    # chunks of 128 rows read the 32 MB V once per 128 nodes
    "rntn": Model(RNTN, (128, 16, 4), True, 3),
}
#: a level loop must not be data-tiled: the weights would be re-encoded on every trip (the
#: CPU preset turns data tiling on for a static matmul with every dimension >= 32)
FLAGS = ("--iree-dispatch-creation-data-tiling=false",)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--aligned", action="store_true", help="64-byte-aligned parameters (no per-call copy)")
    parser.add_argument("--model", choices=MODELS, default="treernn")
    args = parser.parse_args()
    spec = MODELS[args.model]
    model = spec.make(HIDDEN, VOCAB)
    params = [aligned(p) if args.aligned else p for p in spec.parameters(model)]
    artifact = compile_module(wavefront_mlir(spec.tiers, spec.bilinear), "cpu", extra_flags=FLAGS, result_storage=True)
    wavefront = CompiledModule(artifact, "local-sync")["wavefront"]
    trees, _ = make_dataset("full")

    def compiled(batch: list[Tree]) -> np.ndarray:
        return np.asarray(wavefront(*params, *schedule(linearize(batch), len(batch), spec.tiers[-1])))

    def plain(batch: list[Tree]) -> np.ndarray:
        return np.stack([model.encode(t)[0][0] for t in batch])

    print(f"{type(model).__name__} inference, hidden {HIDDEN}, vocab {VOCAB}, "
          f"parameters {'aligned' if args.aligned else 'as NumPy allocates them'}, chunk tiers {spec.tiers}")
    print(f"{'trees':9} {'batch':>5} {'NumPy us/tree':>14} {'wavefront us/tree':>18} {'linearize':>10} "
          f"{'schedule':>9} {'speed-up':>8} {'GFLOP/s':>8}")
    for shape in (*SHAPES, "mixed"):
        chosen = [t for i, t in enumerate(trees) if shape == "mixed" or SHAPES[i % 3] == shape]
        for batch in (1, 25):
            batches = [chosen[i : i + batch] for i in range(0, len(chosen) - batch + 1, batch)]
            batches = batches[: max(1, spec.trees // batch)]
            for trees_ in batches[:2]:
                np.testing.assert_allclose(compiled(trees_), plain(trees_), rtol=1e-4, atol=1e-5)
            linears = {id(trees_): linearize(trees_) for trees_ in batches}
            numpy_t, wave_t, linearize_t, schedule_t = (per_tree(f, batches) for f in (
                plain, compiled, linearize, lambda batch: schedule(linears[id(batch)], len(batch), spec.tiers[-1])))
            flops = np.mean([t.leaves() - 1 for trees_ in batches for t in trees_]) * spec.flops_per_inner()
            print(f"{shape:9} {batch:5} {numpy_t * 1e6:14.1f} {wave_t * 1e6:18.1f} {linearize_t * 1e6:10.1f} "
                  f"{schedule_t * 1e6:9.1f} {numpy_t / wave_t:7.2f}x {flops / wave_t / 1e9:8.2f}")


if __name__ == "__main__":
    main()
