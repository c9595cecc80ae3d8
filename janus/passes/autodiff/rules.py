"""The VJP rule table of ``janus-autodiff``: one entry per op, nothing else decides.

A rule gets the builder, the forward op and the adjoint (a value, or None) of each result,
builds adjoint ops at the current insertion point, and returns ``(operand or captured
value, adjoint)`` pairs; the builder sums pairs for the same value. Ops whose results carry no float adjoint never reach a
rule; a float adjoint reaching an op missing here is a located error naming the op.
"""

from __future__ import annotations

from janus.passes.autodiff import vjp_control as control
from janus.passes.autodiff import vjp_elementwise as ew
from janus.passes.autodiff import vjp_extremum as extremum
from janus.passes.autodiff import vjp_gather as gather
from janus.passes.autodiff import vjp_generic
from janus.passes.autodiff import vjp_linalg as linalg
from janus.passes.autodiff import vjp_tensor as tensor
from janus.passes.autodiff.builder import Rule

VJP_RULES: dict[str, Rule] = {
    # arith / math, on scalars and tensors alike
    "arith.constant": tensor.no_operands,
    "arith.addf": ew.add,
    "arith.subf": ew.sub,
    "arith.mulf": ew.mul,
    "arith.divf": ew.div,
    "arith.negf": ew.neg,
    "arith.maximumf": ew.extremum("oge"),
    "arith.minimumf": ew.extremum("ole"),
    "arith.maxnumf": ew.extremum("oge"),
    "arith.minnumf": ew.extremum("ole"),
    "arith.select": ew.select,
    "arith.extf": ew.convert("arith.truncf"),
    "arith.truncf": ew.convert("arith.extf"),
    "arith.sitofp": tensor.no_operands,  # an integer operand carries no adjoint (a count, a bool as 0/1)
    "arith.uitofp": tensor.no_operands,
    "math.tanh": ew.unary(ew.d_tanh),
    "math.exp": ew.unary(ew.d_exp),
    "math.log": ew.unary(ew.d_log),
    "math.sqrt": ew.unary(ew.d_sqrt),
    "math.rsqrt": ew.unary(ew.d_rsqrt),
    "math.absf": ew.unary(ew.d_absf),
    "math.sin": ew.unary(ew.d_sin),
    "math.cos": ew.unary(ew.d_cos),
    "math.powf": ew.powf,
    "math.exp2": ew.unary(ew.d_exp2),
    "math.expm1": ew.unary(ew.d_expm1),
    "math.log1p": ew.unary(ew.d_log1p),
    "math.log2": ew.unary(ew.d_log2),
    "math.cbrt": ew.unary(ew.d_cbrt),
    "math.tan": ew.unary(ew.d_tan),
    "math.asin": ew.unary(ew.d_asin),
    "math.acos": ew.unary(ew.d_acos),
    "math.atan": ew.unary(ew.d_atan),
    "math.sinh": ew.unary(ew.d_sinh),
    "math.cosh": ew.unary(ew.d_cosh),
    "math.asinh": ew.unary(ew.d_asinh),
    "math.acosh": ew.unary(ew.d_acosh),
    "math.atanh": ew.unary(ew.d_atanh),
    "math.floor": ew.zero_gradient,
    "math.ceil": ew.zero_gradient,
    "math.roundeven": ew.zero_gradient,
    "math.trunc": ew.zero_gradient,
    "math.atan2": ew.atan2,
    "math.copysign": ew.copysign,
    "arith.remf": ew.remf,
    # linalg
    "linalg.generic": vjp_generic.generic,
    "linalg.matmul": linalg.contraction("linalg.matmul", [1, 0]),
    "linalg.batch_matmul": linalg.contraction("linalg.batch_matmul", [0, 2, 1]),
    "linalg.transpose": linalg.transpose,
    "linalg.fill": linalg.fill,
    "linalg.broadcast": linalg.broadcast,
    "linalg.reduce": linalg.reduce,
    "linalg.conv_2d_nchw_fchw": linalg.conv_2d_nchw_fchw,
    "linalg.pooling_nchw_max": extremum.pooling_nchw_max,
    "iree_linalg_ext.sort": gather.sort,
    # tensor
    "tensor.empty": tensor.no_operands,
    "tensor.extract": tensor.extract,
    "tensor.from_elements": tensor.from_elements,
    "tensor.insert": tensor.insert,
    "tensor.extract_slice": tensor.extract_slice,
    "tensor.insert_slice": tensor.insert_slice,
    "tensor.expand_shape": tensor.expand_shape,
    "tensor.collapse_shape": tensor.collapse_shape,
    "tensor.concat": tensor.concat,
    # control flow and calls
    "scf.if": control.scf_if,
    "scf.for": control.scf_for,
    "scf.while": control.scf_while,
    "func.call": control.call,
    "janus.invoke": control.call,
}
