"""What wavefront (level-by-level) execution can reach for TreeRNN inference on this machine.

Not a test: run ``.venv/bin/python benchmarks/wavefront_bound.py [--aligned]`` and read the
table. Issue #15 asks for a pass that runs the independent invocations of a tree recursion
one launch per level. This script measures, before such a pass exists, the code it would
produce, written by hand in MLIR (``WAVEFRONT``): all leaves gathered from the embedding in
one dispatch, then one trip of a host loop per height level (gather the children's rows,
GEMM, bias and tanh, insert the rows), with the level schedule computed in Python from the
``Tree`` objects (``schedule``: the part a linearizer would add). Compiled through the CPU
pipeline like any janus module; checked against the zoo's ``TreeRNN.encode``; timed in CPU
time of this process (IREE's local-sync driver runs on the calling thread), best of
``REPEATS``, against the plain recursion in the same process.

``--aligned`` passes 64-byte-aligned copies of the parameters: NumPy's own arrays are
16-byte aligned, which the runtime cannot hand to compiled code in place, so the 2.5 MB
embedding is copied on every call (``runtime/values.py``, ``ALIGNMENT``).
"""

from __future__ import annotations

import argparse
import time
from typing import Callable

import numpy as np

from janus.models.treernn import TreeRNN
from janus.models.trees import SHAPES, SIZES, Tree, make_dataset
from janus.runtime import CompiledModule

REPEATS = 3
HIDDEN, VOCAB = SIZES["full"][0], SIZES["full"][1]

_GATHER_ROWS = """affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>"""
WAVEFRONT = f"""
func.func @wavefront(%E: tensor<{VOCAB}x{HIDDEN}xf32>, %W: tensor<{2 * HIDDEN}x{HIDDEN}xf32>,
                     %b: tensor<{HIDDEN}xf32>, %words: tensor<?xi64>, %left: tensor<?xi64>,
                     %right: tensor<?xi64>, %starts: tensor<?xi64>, %levels: index, %rows: index,
                     %roots: tensor<?xi64>) -> tensor<?x{HIDDEN}xf32> {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cD = arith.constant {HIDDEN} : index
  %zero = arith.constant 0.0 : f32
  %leaves = tensor.dim %words, %c0 : tensor<?xi64>
  %e0 = tensor.empty(%leaves) : tensor<?x{HIDDEN}xf32>
  %leaf_rows = linalg.generic {{indexing_maps = [{_GATHER_ROWS}], iterator_types = ["parallel", "parallel"]}}
      ins(%words : tensor<?xi64>) outs(%e0 : tensor<?x{HIDDEN}xf32>) {{
    ^bb0(%w: i64, %o: f32):
      %wi = arith.index_cast %w : i64 to index
      %j = linalg.index 1 : index
      %v = tensor.extract %E[%wi, %j] : tensor<{VOCAB}x{HIDDEN}xf32>
      linalg.yield %v : f32
  }} -> tensor<?x{HIDDEN}xf32>
  %empty = tensor.empty(%rows) : tensor<?x{HIDDEN}xf32>
  %R0 = tensor.insert_slice %leaf_rows into %empty[0, 0] [%leaves, {HIDDEN}] [1, 1]
      : tensor<?x{HIDDEN}xf32> into tensor<?x{HIDDEN}xf32>
  %R = scf.for %l = %c0 to %levels step %c1 iter_args(%table = %R0) -> tensor<?x{HIDDEN}xf32> {{
    %s64 = tensor.extract %starts[%l] : tensor<?xi64>
    %l1 = arith.addi %l, %c1 : index
    %e64 = tensor.extract %starts[%l1] : tensor<?xi64>
    %s = arith.index_cast %s64 : i64 to index
    %e = arith.index_cast %e64 : i64 to index
    %n = arith.subi %e, %s : index
    %inner = arith.subi %s, %leaves : index
    %lrow = tensor.extract_slice %left[%inner] [%n] [1] : tensor<?xi64> to tensor<?xi64>
    %rrow = tensor.extract_slice %right[%inner] [%n] [1] : tensor<?xi64> to tensor<?xi64>
    %xe = tensor.empty(%n) : tensor<?x{2 * HIDDEN}xf32>
    %X = linalg.generic {{indexing_maps = [affine_map<(i, j) -> (i)>, {_GATHER_ROWS}],
        iterator_types = ["parallel", "parallel"]}}
        ins(%lrow, %rrow : tensor<?xi64>, tensor<?xi64>) outs(%xe : tensor<?x{2 * HIDDEN}xf32>) {{
      ^bb0(%a: i64, %c: i64, %o: f32):
        %j = linalg.index 1 : index
        %is_left = arith.cmpi ult, %j, %cD : index
        %row64 = arith.select %is_left, %a, %c : i64
        %row = arith.index_cast %row64 : i64 to index
        %jr = arith.subi %j, %cD : index
        %col = arith.select %is_left, %j, %jr : index
        %v = tensor.extract %table[%row, %col] : tensor<?x{HIDDEN}xf32>
        linalg.yield %v : f32
    }} -> tensor<?x{2 * HIDDEN}xf32>
    %ze = tensor.empty(%n) : tensor<?x{HIDDEN}xf32>
    %zf = linalg.fill ins(%zero : f32) outs(%ze : tensor<?x{HIDDEN}xf32>) -> tensor<?x{HIDDEN}xf32>
    %Z = linalg.matmul ins(%X, %W : tensor<?x{2 * HIDDEN}xf32>, tensor<{2 * HIDDEN}x{HIDDEN}xf32>)
        outs(%zf : tensor<?x{HIDDEN}xf32>) -> tensor<?x{HIDDEN}xf32>
    %H = linalg.generic {{indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>,
        affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}}
        ins(%Z, %b : tensor<?x{HIDDEN}xf32>, tensor<{HIDDEN}xf32>) outs(%ze : tensor<?x{HIDDEN}xf32>) {{
      ^bb0(%z: f32, %bias: f32, %o: f32):
        %t = arith.addf %z, %bias : f32
        %h = math.tanh %t : f32
        linalg.yield %h : f32
    }} -> tensor<?x{HIDDEN}xf32>
    %next = tensor.insert_slice %H into %table[%s, 0] [%n, {HIDDEN}] [1, 1]
        : tensor<?x{HIDDEN}xf32> into tensor<?x{HIDDEN}xf32>
    scf.yield %next : tensor<?x{HIDDEN}xf32>
  }}
  %k = tensor.dim %roots, %c0 : tensor<?xi64>
  %re = tensor.empty(%k) : tensor<?x{HIDDEN}xf32>
  %out = linalg.generic {{indexing_maps = [{_GATHER_ROWS}], iterator_types = ["parallel", "parallel"]}}
      ins(%roots : tensor<?xi64>) outs(%re : tensor<?x{HIDDEN}xf32>) {{
    ^bb0(%r: i64, %o: f32):
      %ri = arith.index_cast %r : i64 to index
      %j = linalg.index 1 : index
      %v = tensor.extract %R[%ri, %j] : tensor<?x{HIDDEN}xf32>
      linalg.yield %v : f32
  }} -> tensor<?x{HIDDEN}xf32>
  return %out : tensor<?x{HIDDEN}xf32>
}}
"""

Schedule = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int, int, np.ndarray]


def schedule(trees: list[Tree]) -> Schedule:
    """Table rows: every leaf, then the inner nodes of all trees by height (bottom-up).
    (leaf words, left and right child rows of the inner nodes, level starts, levels,
    rows, root rows)."""
    leaves: list[Tree] = []
    inner: list[tuple[int, int, Tree]] = []

    def height(t: Tree) -> int:
        if t.word is not None:
            leaves.append(t)
            return 0
        h = 1 + max(height(t.left), height(t.right))
        inner.append((h, len(inner), t))
        return h

    for t in trees:
        height(t)
    inner.sort(key=lambda item: item[:2])
    row = {id(t): i for i, t in enumerate(leaves)}
    row.update((id(t), len(leaves) + k) for k, (_, _, t) in enumerate(inner))
    heights = np.array([h for h, _, _ in inner], np.int64)
    levels = int(heights.max(initial=0))
    starts = len(leaves) + np.searchsorted(heights, np.arange(1, levels + 2))
    return (np.array([t.word for t in leaves], np.int64),
            np.array([row[id(t.left)] for _, _, t in inner] or [0], np.int64),
            np.array([row[id(t.right)] for _, _, t in inner] or [0], np.int64),
            starts.astype(np.int64), levels, len(leaves) + len(inner),
            np.array([row[id(t)] for t in trees], np.int64))


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--aligned", action="store_true", help="64-byte-aligned parameters (no per-call copy)")
    args = parser.parse_args()
    model = TreeRNN(HIDDEN, VOCAB)
    E, W, b = (aligned(p) for p in (model.E, model.W, model.b)) if args.aligned else (model.E, model.W, model.b)
    wavefront = CompiledModule.from_mlir(WAVEFRONT, target="cpu")["wavefront"]
    trees, _ = make_dataset("full")
    flops_per_inner = 2 * (2 * HIDDEN) * HIDDEN

    def compiled(batch: list[Tree]) -> np.ndarray:
        return np.asarray(wavefront(E, W, b, *schedule(batch)))

    def plain(batch: list[Tree]) -> np.ndarray:
        return np.stack([model.encode(t)[0][0] for t in batch])

    print(f"TreeRNN inference, hidden {HIDDEN}, vocab {VOCAB}, parameters {'aligned' if args.aligned else 'as NumPy allocates them'}")
    print(f"{'trees':9} {'batch':>5} {'NumPy us/tree':>14} {'wavefront us/tree':>18} {'schedule us/tree':>17} {'speed-up':>8} {'GFLOP/s':>8}")
    for shape in (*SHAPES, "mixed"):
        chosen = [t for i, t in enumerate(trees) if shape == "mixed" or SHAPES[i % 3] == shape]
        for batch in (1, 25):
            batches = [chosen[i : i + batch] for i in range(0, len(chosen) - batch + 1, batch)][: max(1, 30 // batch)]
            for trees_ in batches[:2]:
                np.testing.assert_allclose(compiled(trees_), plain(trees_), rtol=1e-4, atol=1e-5)
            numpy_t, wave_t, schedule_t = (per_tree(f, batches) for f in (plain, compiled, schedule))
            inner = np.mean([t.leaves() - 1 for trees_ in batches for t in trees_])
            print(f"{shape:9} {batch:5} {numpy_t * 1e6:14.1f} {wave_t * 1e6:18.1f} {schedule_t * 1e6:17.1f} "
                  f"{numpy_t / wave_t:7.2f}x {inner * flops_per_inner / wave_t / 1e9:8.2f}")


if __name__ == "__main__":
    main()
