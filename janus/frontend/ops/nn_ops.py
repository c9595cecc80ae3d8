"""The ``janus.nn`` entries of the op table: shape/dtype rule and MLIR lowering per op.

Each op is one ``registry.Op`` (NumPy implementation and VJP in ``nn_numpy``), so a call
is one tape node with its own stable VJP, and one traced call. The composites (softmax,
log_softmax, cross_entropy) lower by composing the table's own max/sum/elementwise
lowerings: the graph is what the NumPy code would give, fused by IREE, and its gradient
needs only the generic rules. conv2d lowers to ``linalg.conv_2d_nchw_fchw`` (padding by
``tensor.insert_slice`` into zeros, which has a VJP rule), max_pool2d to
``linalg.pooling_nchw_max`` with a -inf init, embedding to a gather (``linalg.generic``
whose body does ``tensor.extract`` of the table). Index operands (labels, ids) are guarded
to be in range: out of range, NumPy raises, so the guard sends the call to Python.

The public functions (``janus.nn``) are ``NNFunction`` objects, not Python functions, so
the tracer applies their entry instead of inlining them, and the eager tape records them
as one op.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from janus.frontend.ops import nn_numpy
from janus.frontend.emitter import Body, Emitter
from janus.frontend.ops.op_table import normalize_axis, shape_of
from janus.frontend.ops.registry import OPS, Args, Op, Spec, apply, register
from janus.frontend.values import ELEMENT_TYPES, NotConvertible, Tensor


def _apply(em: Emitter, name: str, *args: Any, **kwargs: Any) -> Any:
    return apply(em, OPS[name], args, kwargs)


def _float_tensor(x: Any, what: str) -> Tensor:
    if not isinstance(x, Tensor) or x.dtype.kind != "f":
        raise NotConvertible(f"{what} must be a float array")
    return x


def _static_pair(v: Any, what: str) -> tuple[int, int]:
    try:
        p = nn_numpy.pair(v)
    except TypeError:
        p = ()
    if len(p) != 2 or not all(isinstance(d, (int, np.integer)) and d >= 0 for d in p):
        raise NotConvertible(f"{what} {v!r} is not a static int or pair of ints")
    return int(p[0]), int(p[1])


def _indices(em: Emitter, ids: Any, size: int, what: str) -> Tensor:
    """``ids`` as an int64 tensor, guarded to lie in ``[0, size)`` (else NumPy raises)."""
    ids = ids if isinstance(ids, Tensor) else em.literal(np.asarray(ids))
    if ids.dtype.kind != "i":
        raise NotConvertible(f"{what} must be an integer array")
    if not ids.shape:
        ids = em.insert_unit_dims(ids, [], (1,))

    def body(b: Body, a: list[str]) -> str:
        low = b.cmp(ids.dtype, ("", "sge", ""), a[0], b.constant(0, ids.dtype))
        high = b.cmp(ids.dtype, ("", "slt", ""), a[0], b.constant(size, ids.dtype))
        both = b.op("arith.andi", [low, high], np.dtype(bool))
        return b.op("arith.andi", [both, a[1]], np.dtype(bool))

    every = [f"d{i}" for i in range(ids.ndim)]
    ok = em.generic(ids.ndim, range(ids.ndim), [(ids, every)], em.literal(np.array(True)), [], body)
    em.guard(em.scalar_condition(ok), "raise", f"janus.nn: {what} in range [0, {size}) (IndexError)")
    return ids


# ---- elementwise ----------------------------------------------------------------------------
def _x_bind(x: Any) -> Args:
    return {"x": x}


def _float_rule(args: Args) -> Spec:
    x = _float_tensor(args["x"], "the operand")
    return x.shape, x.dtype


def _relu_lower(em: Emitter, args: Args, spec: Spec) -> Tensor:
    return _apply(em, "maximum", args["x"], 0)


def _sigmoid_lower(em: Emitter, args: Args, spec: Spec) -> Tensor:
    """One fused generic: 1 / (1 + exp(-x))."""
    dtype = spec[1]

    def body(b: Body, a: list[str]) -> str:
        one = b.constant(1, dtype)
        e = b.op("math.exp", [b.op("arith.negf", [a[0]], dtype)], dtype)
        return b.op("arith.divf", [one, b.op("arith.addf", [one, e], dtype)], dtype)

    return em.elementwise([args["x"]], spec[0], dtype, body)


# ---- softmax family -------------------------------------------------------------------------
def _axis_bind(x: Any, axis: int = -1) -> Args:
    return {"x": x, "axis": axis}


def _axis_rule(args: Args) -> Spec:
    x = _float_tensor(args["x"], "the operand")
    normalize_axis(args["axis"], x.ndim)
    return x.shape, x.dtype


def _shifted(em: Emitter, x: Tensor, axis: int) -> Tensor:
    """``x - max(x, axis)``: exp of it cannot overflow."""
    return _apply(em, "subtract", x, _apply(em, "max", x, axis=axis, keepdims=True))


def _softmax_lower(em: Emitter, args: Args, spec: Spec) -> Tensor:
    e = _apply(em, "exp", _shifted(em, args["x"], args["axis"]))
    return _apply(em, "divide", e, _apply(em, "sum", e, axis=args["axis"], keepdims=True))


def _log_softmax_lower(em: Emitter, args: Args, spec: Spec) -> Tensor:
    s = _shifted(em, args["x"], args["axis"])
    total = _apply(em, "sum", _apply(em, "exp", s), axis=args["axis"], keepdims=True)
    return _apply(em, "subtract", s, _apply(em, "log", total))


# ---- cross-entropy --------------------------------------------------------------------------
def _ce_bind(logits: Any, labels: Any) -> Args:
    return {"logits": logits, "labels": labels}


def _ce_rule(args: Args) -> Spec:
    logits = _float_tensor(args["logits"], "logits")
    if logits.ndim != 2 or shape_of(args["labels"]) != logits.shape[:1]:
        raise NotConvertible(f"cross_entropy takes (N, C) logits and (N,) labels, not {logits.shape} and {shape_of(args['labels'])}")
    return (), logits.dtype


def _ce_lower(em: Emitter, args: Args, spec: Spec) -> Tensor:
    """-mean(logp[i, labels[i]]): the pick is a masked sum over (N, C) (a one-hot mask)."""
    logits, dtype = args["logits"], spec[1]
    n, c = logits.shape
    labels = _indices(em, args["labels"], c, "labels")
    logp = _log_softmax_lower(em, {"x": logits, "axis": 1}, (logits.shape, dtype))

    def body(b: Body, a: list[str]) -> str:
        label = b.index_cast(a[1], ELEMENT_TYPES[labels.dtype.name], "index")
        hit = b.cmp("index", "eq", b.loop_index(1), label)
        return b.op("arith.addf", [b.select(hit, a[0], b.constant(0, dtype), dtype), a[2]], dtype)

    picked = em.generic(2, (0, 1), [(logp, ["d0", "d1"]), (labels, ["d0"])], em.filled((), dtype, 0), [], body)
    return _apply(em, "divide", _apply(em, "negative", picked), float(n))


# ---- embedding ------------------------------------------------------------------------------
def _embedding_bind(table: Any, ids: Any) -> Args:
    return {"table": table, "ids": ids}


def _embedding_rule(args: Args) -> Spec:
    table = args["table"]
    if not isinstance(table, Tensor) or table.ndim != 2:
        raise NotConvertible("embedding takes a traced (V, D) table")
    return shape_of(args["ids"]) + table.shape[1:], table.dtype


def _embedding_lower(em: Emitter, args: Args, spec: Spec) -> Tensor:
    table, (shape, dtype) = args["table"], spec
    ids = _indices(em, args["ids"], table.shape[0], "ids")
    k = len(shape) - 1

    def body(b: Body, a: list[str]) -> str:
        return b.extract(table, [b.index_cast(a[0], ELEMENT_TYPES[ids.dtype.name], "index"), b.loop_index(k)])

    every = [f"d{i}" for i in range(k + 1)]
    ids_exprs = every[:k] if k else [0]
    return em.generic(k + 1, (), [(ids, ids_exprs)], em.empty(shape, dtype), every, body)


# ---- conv2d and max_pool2d ------------------------------------------------------------------
def _conv_bind(x: Any, w: Any, b: Any = None, stride: Any = 1, padding: Any = 0) -> Args:
    return {"x": x, "w": w, "b": b, "stride": stride, "padding": padding}


def _window_out(size: int, kernel: int, stride: int) -> int:
    if stride < 1 or size < kernel:
        raise NotConvertible(f"window of {kernel} (stride {stride}) over a dim of size {size}")
    return (size - kernel) // stride + 1


def _conv_rule(args: Args) -> Spec:
    x, w = _float_tensor(args["x"], "conv2d input"), _float_tensor(args["w"], "conv2d filter")
    b = args["b"]
    if x.ndim != 4 or w.ndim != 4 or x.shape[1] != w.shape[1]:
        raise NotConvertible(f"conv2d takes NCHW input and FCHW filter, not {x.shape} and {w.shape}")
    if w.dtype != x.dtype or b is not None and (not isinstance(b, Tensor) or b.dtype != x.dtype or b.shape != w.shape[:1]):
        raise NotConvertible("conv2d needs input, filter and bias (F,) of one float dtype")
    (sh, sw), (ph, pw) = _static_pair(args["stride"], "stride"), _static_pair(args["padding"], "padding")
    n, _, h, wd = x.shape
    return (n, w.shape[0], _window_out(h + 2 * ph, w.shape[2], sh), _window_out(wd + 2 * pw, w.shape[3], sw)), x.dtype


def _strides_attr(stride: tuple[int, int]) -> str:
    return f"dilations = dense<1> : tensor<2xi64>, strides = dense<[{stride[0]}, {stride[1]}]> : tensor<2xi64>"


def _conv_lower(em: Emitter, args: Args, spec: Spec) -> Tensor:
    x, w, (shape, dtype) = args["x"], args["w"], spec
    (ph, pw), stride = _static_pair(args["padding"], "padding"), _static_pair(args["stride"], "stride")
    if ph or pw:
        n, c, h, wd = x.shape
        zeros = em.filled((n, c, h + 2 * ph, wd + 2 * pw), dtype, 0)
        x = em.insert_slice(x, zeros, [0, 0, ph, pw], [n, c, h, wd], [1, 1, 1, 1])
    init = em.filled(shape, dtype, 0)
    y = em.structured("linalg.conv_2d_nchw_fchw", [x, w], init, _strides_attr(stride))
    if args["b"] is None:
        return y
    return _apply(em, "add", y, em.insert_unit_dims(args["b"], [0], (shape[1], 1, 1)))


def _pool_bind(x: Any, kernel: Any, stride: Any = None) -> Args:
    return {"x": x, "kernel": kernel, "stride": stride}


def _pool_params(args: Args) -> tuple[tuple[int, int], tuple[int, int]]:
    kernel = _static_pair(args["kernel"], "kernel")
    return kernel, kernel if args["stride"] is None else _static_pair(args["stride"], "stride")


def _pool_rule(args: Args) -> Spec:
    x = _float_tensor(args["x"], "max_pool2d input")
    if x.ndim != 4:
        raise NotConvertible(f"max_pool2d takes an NCHW input, not {x.shape}")
    (kh, kw), (sh, sw) = _pool_params(args)
    return x.shape[:2] + (_window_out(x.shape[2], kh, sh), _window_out(x.shape[3], kw, sw)), x.dtype


def _pool_lower(em: Emitter, args: Args, spec: Spec) -> Tensor:
    x, (shape, dtype) = args["x"], spec
    kernel, stride = _pool_params(args)
    init = em.filled(shape, dtype, -np.inf)
    window = em.empty(kernel, dtype)
    return em.structured("linalg.pooling_nchw_max", [x, window], init, _strides_attr(stride))


NN: list[Op] = [
    Op("relu", nn_numpy.relu, _x_bind, _float_rule, _relu_lower, vjp=nn_numpy.relu_vjp),
    Op("sigmoid", nn_numpy.sigmoid, _x_bind, _float_rule, _sigmoid_lower, vjp=nn_numpy.sigmoid_vjp),
    Op("softmax", nn_numpy.softmax, _axis_bind, _axis_rule, _softmax_lower, vjp=nn_numpy.softmax_vjp),
    Op("log_softmax", nn_numpy.log_softmax, _axis_bind, _axis_rule, _log_softmax_lower, vjp=nn_numpy.log_softmax_vjp),
    Op("cross_entropy", nn_numpy.cross_entropy, _ce_bind, _ce_rule, _ce_lower, vjp=nn_numpy.cross_entropy_vjp),
    Op("embedding", nn_numpy.embedding, _embedding_bind, _embedding_rule, _embedding_lower, vjp=nn_numpy.embedding_vjp),
    Op("conv2d", nn_numpy.conv2d, _conv_bind, _conv_rule, _conv_lower, vjp=nn_numpy.conv2d_vjp),
    Op("max_pool2d", nn_numpy.max_pool2d, _pool_bind, _pool_rule, _pool_lower, vjp=nn_numpy.max_pool2d_vjp,
       mlir_vjp_limit="overlapping windows (stride < kernel): its rule needs windows that tile the input"),
]

register(*NN)
