"""The ``linalg.generic`` rule: the body's form picks the rule, first match wins.

A gather (a ``tensor.extract`` of a captured tensor yielded) first; any other body reading
a float defined outside the op would give it no adjoint: a located error. Then max/min
reductions, product reductions, and last every elementwise map or sum
(``vjp_linalg.generic``).
"""

from __future__ import annotations

from typing import Callable

from janus.ir import ir
from janus.passes.autodiff import vjp_extremum, vjp_gather, vjp_linalg, vjp_product
from janus.passes.autodiff.builder import Adjoint, GradBuilder, Rule, fail, free_floats
from janus.passes.autodiff.vjp_linalg import Pairs

#: (does the generic, reading no captured float, have this form; its rule), tried in order
FORMS: list[tuple[Callable[[ir.OpView], bool], Rule]] = [
    (lambda op: vjp_extremum.is_extremum(op.regions[0].blocks[0]), vjp_extremum.reduction),
    (lambda op: vjp_product.product_factor(op) is not None, vjp_product.product),
]


def _is_constant(v: ir.Value) -> bool:
    """Defined by ``arith.constant`` (canonicalize hoists body constants out of generics)."""
    owner = v.owner
    return isinstance(owner, (ir.Operation, ir.OpView)) and owner.operation.name == "arith.constant"


def generic(b: GradBuilder, op: ir.OpView, gs: list[Adjoint]) -> Pairs:
    if vjp_gather.gathered_source(op) is not None:
        return vjp_gather.gather(b, op, gs)
    if any(not _is_constant(v) for v in free_floats(op)):
        raise fail(op, "no gradient rule for a linalg.generic whose body reads a float defined outside it")
    for matches, rule in FORMS:
        if matches(op):
            return list(rule(b, op, gs))
    return vjp_linalg.generic(b, op, gs)
