"""Why RNTN's batched ``V @ x`` ran 3x slower in the model than as a GEMM alone (issues 15, 17).

Not a test: ``JANUS_CACHE_DIR=/tmp/jc python benchmarks/gemm_orientation.py [--rounds 5]``.

Per chunk of a level, RNTN's node term ``(V @ x) @ x`` is one contraction of V (128x256x256,
viewed as [32768, 256]) with the chunk's rows X (16 or 4 of them), then a reduction with the
rows again. The same GEMM can be written with either operand leading, and iree-compile 3.13
(llvm-cpu, no data tiling) tiles the two very differently. Each form below is the whole chunk
term (GEMM, then the reduction with X), compiled by janus's CPU preset and timed in CPU time
(``time.process_time``: local-sync runs on the calling thread), forms alternated in one
process, the best of ``--rounds`` means of ``--calls`` calls; results checked against NumPy:

- ``rows-first``: ``Y = X V^T`` (rows, 32768), the chunk's rows leading: what
  ``janus-batch-tree-recursion`` emitted before (IREE names it ``matmul_like_16x32768x256``);
- ``weight-rows-first``: ``Y^T = V X^T`` (32768, rows), then ``util.optimization_barrier`` and a
  transpose, which IREE fuses into the reduction's dispatch (``matmul_like_32768x16x256``):
  what it emits now for a W of at least ``weight-rows-first`` elements;
- ``weight-rows-first-no-barrier``: the same without the barrier: IREE's global optimization
  propagates the transpose into the GEMM's output map, which gives ``rows-first`` back.

Measured on this 2-core machine under load (other jobs running; ``--rounds 5``), ms of CPU
time per chunk:

| form                         | 16 rows | 4 rows |
|------------------------------|--------:|-------:|
| rows-first                   |    7.17 |   2.08 |
| weight-rows-first            |    1.90 |   1.54 |
| weight-rows-first-no-barrier |    6.92 |   2.05 |

At 16 rows weight-rows-first streams V (32 MB) from memory at about the speed the 4-row
chunks do: the chunk's cost no longer grows with its rows.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from janus.runtime import CompiledModule
from janus.runtime.compiler import compile_module

H, K = 128, 256  # V is H x K x K; its flat view (H * K) x K
FORMS = ("rows-first", "weight-rows-first", "weight-rows-first-no-barrier")
_CONTRACT = """^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  }"""


def _contraction(result: str, loops: str, rows: int) -> str:
    """``%result[loops] = sum_k V[m, k] X[r, k]``: the GEMM with ``loops`` (``r, m`` or ``m, r``) as
    its parallel loops, in that order, and its result laid out the same way."""
    sizes = {"r": rows, "m": H * K}
    t = "tensor<{}x{}xf32>".format(*(sizes[d] for d in loops.split(", ")))
    return f"""  %e_{result} = tensor.empty() : {t}
  %z_{result} = linalg.fill ins(%zero : f32) outs(%e_{result} : {t}) -> {t}
  %{result} = linalg.generic {{indexing_maps = [affine_map<({loops}, k) -> (m, k)>, affine_map<({loops}, k) -> (r, k)>,
      affine_map<({loops}, k) -> ({loops})>], iterator_types = ["parallel", "parallel", "reduction"]}}
      ins(%Vf, %x : tensor<{H * K}x{K}xf32>, tensor<{rows}x{K}xf32>) outs(%z_{result} : {t}) {{
  {_CONTRACT} -> {t}
"""


def _gemm(form: str, rows: int) -> str:
    """``%y`` (rows x H*K): the chunk's ``V @ x`` for every row, in ``form``."""
    if form == "rows-first":
        return _contraction("y", "r, m", rows)
    transposed = f"tensor<{H * K}x{rows}xf32>"
    kept = (f"util.optimization_barrier %yt : {transposed}" if form == "weight-rows-first"
            else f"tensor.cast %yt : {transposed} to {transposed}")
    return f"""{_contraction("yt", "m, r", rows)}  %kept = {kept}
  %et = tensor.empty() : tensor<{rows}x{H * K}xf32>
  %y = linalg.transpose ins(%kept : {transposed}) outs(%et : tensor<{rows}x{H * K}xf32>) permutation = [1, 0]
"""


def chunk_term(form: str, rows: int) -> str:
    """``@term(V, X) -> (V @ x) @ x`` for each row x of X, the GEMM written in ``form``."""
    return f"""func.func @term(%V: tensor<{H}x{K}x{K}xf32>, %x: tensor<{rows}x{K}xf32>) -> tensor<{rows}x{H}xf32> {{
  %zero = arith.constant 0.0 : f32
  %Vf = tensor.collapse_shape %V [[0, 1], [2]] : tensor<{H}x{K}x{K}xf32> into tensor<{H * K}x{K}xf32>
{_gemm(form, rows)}  %y3 = tensor.expand_shape %y [[0], [1, 2]] output_shape [{rows}, {H}, {K}] : tensor<{rows}x{H * K}xf32> into tensor<{rows}x{H}x{K}xf32>
  %e2 = tensor.empty() : tensor<{rows}x{H}xf32>
  %z2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<{rows}x{H}xf32>) -> tensor<{rows}x{H}xf32>
  %t = linalg.generic {{indexing_maps = [affine_map<(r, i, j) -> (r, i, j)>, affine_map<(r, i, j) -> (r, j)>,
      affine_map<(r, i, j) -> (r, i)>], iterator_types = ["parallel", "parallel", "reduction"]}}
      ins(%y3, %x : tensor<{rows}x{H}x{K}xf32>, tensor<{rows}x{K}xf32>) outs(%z2 : tensor<{rows}x{H}xf32>) {{
  {_CONTRACT} -> tensor<{rows}x{H}xf32>
  return %t : tensor<{rows}x{H}xf32>
}}
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--calls", type=int, default=10)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    V = (rng.standard_normal((H, K, K)) / K).astype(np.float32)
    for rows in (16, 4):
        x = rng.standard_normal((rows, K)).astype(np.float32)
        want = np.einsum("ijk,rk,rj->ri", V, x, x)
        terms = {form: CompiledModule(compile_module(chunk_term(form, rows), "cpu"), "local-sync")["term"]
                 for form in FORMS}
        best = dict.fromkeys(FORMS, float("inf"))
        for _ in range(args.rounds):
            for form, term in terms.items():
                np.testing.assert_allclose(term(V, x), want, rtol=1e-3, atol=1e-3)
                start = time.process_time()
                for _ in range(args.calls):
                    term(V, x)
                best[form] = min(best[form], (time.process_time() - start) / args.calls)
        for form in FORMS:
            print(f"{rows:3d} rows  {form:30s} {1e3 * best[form]:7.2f} ms CPU per chunk")


if __name__ == "__main__":
    main()
