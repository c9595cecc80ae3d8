"""Janus demo: verify and optimize a speculative RNN step with ``janus-opt``.

``demo.mlir`` is the graph Janus builds for one step of a tiny RNN: upstream
tensor/linalg/arith math plus janus ops for what MLIR cannot say about Python (reading
and writing ``self``'s attributes, a speculative assumption, a call that may recurse).
This runs ``janus-opt demo.mlir -p 'builtin.module(janus-verify,canonicalize,cse)'``
and prints the result. Run it with ``make demo``.
"""

from __future__ import annotations

import contextlib
import io
import sys
from pathlib import Path

from janus.ir import parse_module
from janus.tools import janus_opt

DEMO = Path(__file__).with_name("demo.mlir")
PIPELINE = "builtin.module(janus-verify,canonicalize,cse)"


def count_ops(text: str) -> tuple[int, int]:
    """(janus ops, other ops) directly inside the functions of the module ``text``."""
    names = [
        op.operation.name
        for fn in parse_module(text).body.operations
        for op in fn.regions[0].blocks[0].operations
    ]
    janus = sum(name.startswith("janus.") for name in names)
    return janus, len(names) - janus


def main() -> int:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = janus_opt.main([str(DEMO), "--pass-pipeline", PIPELINE])
    if code != 0:
        return code
    before, after = count_ops(DEMO.read_text()), count_ops(out.getvalue())
    print(f"$ janus-opt {DEMO.name} --pass-pipeline='{PIPELINE}'\n")
    print(out.getvalue().rstrip(), end="\n\n")
    print(
        f"janus-verify checked every janus op against the dialect registry; canonicalize\n"
        f"and cse then cleaned up the upstream ops ({before[1]} -> {after[1]}: the two zero\n"
        f"accumulators became one, constants were hoisted). The {after[0]} janus ops all\n"
        f"survive untouched ({before[0]} before): MLIR does not know their side effects, so it\n"
        f"neither removes nor merges heap reads, heap writes, guards or invokes.\n"
        f"The janus-to-iree pipeline lowers them next (guards become cf.assert) so that\n"
        f"IREE can compile the step."
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
