"""The NumPy op table: one entry per op, with everything Janus knows about it.

Each ``Op`` carries (as JAX's primitives do) the eager NumPy implementation, which is
also the constant folder and the dtype oracle; ``bind``, NumPy's own signature, which
normalizes call arguments; ``rule``, the result's static shape and dtype; and
``lower``, the MLIR it emits; ``vjp``, its NumPy reverse-mode rule (``vjp_numpy``), which
the eager tape of ``janus.grad`` uses, and why a side has no gradient (``registry.Op``). Result dtypes come from running the eager implementation
on one-element samples of the operand dtypes, so promotion (Python scalars weak, 0-d
arrays strong) is NumPy's by construction. An op missing from the table, or an argument
form an entry rejects, raises ``NotConvertible``: the function then runs imperatively.
"""

from __future__ import annotations

import operator
from typing import Any, Callable

import numpy as np

from janus.frontend.ops import padding
from janus.frontend.ops import vjp_numpy
from janus.frontend.emitter import Body, Emitter
from janus.frontend.ops.registry import BY_FUNCTION, METHODS, OPERATORS, OPS, Args, Op, Spec, apply, register
from janus.frontend.values import NotConvertible, Shape, Tensor, Weak, check_dtype, is_static

# ---- operands: tensors and static values (Python scalars, NumPy constants) ---------------
def shape_of(x: Any) -> Shape:
    return x.shape if isinstance(x, Tensor) else np.shape(x)


def broadcast_shapes(*shapes: Shape) -> Shape:
    """NumPy broadcasting, where it is statically safe for ``?`` dims: a symbol meets only
    itself or 1 (a ``?`` that might be 1 would broadcast against a static size)."""
    if all(is_static(s) for s in shapes):
        try:
            return np.broadcast_shapes(*shapes)
        except ValueError as e:
            raise NotConvertible(str(e)) from None
    rank = max(len(s) for s in shapes)
    out: list[int | str] = []
    for i in range(rank):
        dims = {s[i - rank + len(s)] for s in shapes if i - rank + len(s) >= 0} - {1}
        if len(dims) > 1:
            raise NotConvertible(f"broadcasting {shapes} needs dims known to be equal")
        out.append(dims.pop() if dims else 1)
    return tuple(out)


def sample(x: Any, ndim: int | None = None) -> Any:
    """A one-element stand-in with ``x``'s dtype (Python scalars stay weak, ``Weak`` too)."""
    if isinstance(x, Weak) and ndim is None:
        return x.python_type(1)
    if isinstance(x, Tensor):
        return np.ones((1,) * (x.ndim if ndim is None else ndim), x.dtype)
    if isinstance(x, (bool, int, float)) and ndim is None:
        return x
    return np.ones((1,) * (np.ndim(x) if ndim is None else ndim), np.asarray(x).dtype)


def result_dtype(eager: Callable[..., Any], *args: Any, **kwargs: Any) -> np.dtype:
    try:
        with np.errstate(all="ignore"):
            return check_dtype(np.asarray(eager(*args, **kwargs)).dtype)
    except (TypeError, ValueError, OverflowError) as e:  # NumPy raises it again when the call runs in Python
        raise NotConvertible(f"NumPy rejects these operands: {e}") from None


def static_operand(x: Any, dtype: np.dtype) -> np.ndarray:
    """A static operand as ``dtype``: a Python int outside its range (``uint8_array < -1``,
    which NumPy 2 answers by value) is not converted."""
    try:
        return np.asarray(x, dtype)
    except OverflowError as e:
        raise NotConvertible(f"{e} (NumPy compares it by value)") from None


def cast(em: Emitter, x: Any, dtype: np.dtype) -> Tensor:
    """``x`` as a tensor of ``dtype`` (static values become constants)."""
    if not isinstance(x, Tensor):
        return em.literal(np.asarray(x, dtype))
    if x.dtype == dtype:
        return x
    return em.elementwise([x], x.shape, dtype, lambda b, a: b.cast(a[0], x.dtype, dtype))


def normalize_axis(axis: int, ndim: int) -> int:
    if not isinstance(axis, (int, np.integer)) or not -ndim <= axis < ndim:
        raise NotConvertible(f"axis {axis!r} is not a static axis of a {ndim}-d array")
    return int(axis) % ndim


def static_shape(shape: Any) -> tuple[int, ...]:
    shape = (shape,) if isinstance(shape, (int, np.integer)) else shape
    if not isinstance(shape, (tuple, list)) or not all(isinstance(d, (int, np.integer)) for d in shape):
        raise NotConvertible(f"shape {shape!r} is not static")
    return tuple(int(d) for d in shape)


def require_default(args: Args, **defaults: Any) -> None:
    for name, default in defaults.items():
        if args[name] is not default and args[name] != default:
            raise NotConvertible(f"argument {name}={args[name]!r} is not supported")


def conform(em: Emitter, result: Any, target: Tensor, what: str) -> Tensor:
    """``result`` with ``target``'s shape and dtype, as NumPy stores into ``target``."""
    shape = shape_of(result)
    if broadcast_shapes(shape, target.shape) != target.shape:
        raise NotConvertible(f"{what}: a {shape} value does not broadcast to the target's shape {target.shape}")
    dtype = result.dtype if isinstance(result, Tensor) else np.asarray(sample(result)).dtype
    if not np.can_cast(dtype, target.dtype, "same_kind"):
        raise NotConvertible(f"{what}: cannot cast {dtype} to {target.dtype} (NumPy raises)")
    if not isinstance(result, Tensor):
        return em.literal(np.broadcast_to(np.asarray(result, target.dtype), target.shape))
    if result.shape == target.shape and result.dtype == target.dtype:
        return result
    return em.elementwise([result], target.shape, target.dtype, lambda b, x: b.cast(x[0], result.dtype, target.dtype))



# ---- elementwise ops: one generic rule and lowering, a scalar body per op ----------------
ScalarFn = Callable[[Body, np.dtype, list[str]], str]


#: integer ops whose unsigned form differs (the others wrap alike on signless bits)
UNSIGNED_OPS = {"arith.maxsi": "arith.maxui", "arith.minsi": "arith.minui", "arith.divsi": "arith.divui",
                "arith.remsi": "arith.remui", "arith.shrsi": "arith.shrui"}


def by_kind(float_op: str | None, int_op: str | None, bool_op: str | None = None) -> ScalarFn:
    """A body applying the arith/math op for the compute dtype's kind."""

    def body(b: Body, dtype: np.dtype, xs: list[str]) -> str:
        opname = {"f": float_op, "i": int_op, "u": int_op and UNSIGNED_OPS.get(int_op, int_op), "b": bool_op}[dtype.kind]
        if opname is None:
            raise NotConvertible(f"no {dtype.name} form of this operation")
        return b.op(opname, xs, dtype)

    return body


#: why a float64 form runs in Python
NO_F64 = "IREE 3.13's CPU backend cannot lower a float64 `{}` (the call runs in NumPy)"


def f32_only(body: ScalarFn, opname: str) -> ScalarFn:
    """``body`` on float32 (and ints or bools); float64 raises NotConvertible."""

    def checked(b: Body, dtype: np.dtype, xs: list[str]) -> str:
        if dtype == np.float64:
            raise NotConvertible(NO_F64.format(opname))
        return body(b, dtype, xs)

    return checked


def compare(float_pred: str, int_pred: str, bool_pred: str) -> ScalarFn:
    return lambda b, dtype, xs: b.cmp(dtype, (float_pred, int_pred, bool_pred), xs[0], xs[1])


def _absolute(b: Body, dtype: np.dtype, xs: list[str]) -> str:
    """``|x|``; unsigned ints are their own magnitude."""
    return xs[0] if dtype.kind == "u" else by_kind("math.absf", "math.absi")(b, dtype, xs)


def _negative(b: Body, dtype: np.dtype, xs: list[str]) -> str:
    if dtype.kind in "iu":  # unsigned: wraps, as NumPy's
        return b.op("arith.subi", [b.constant(0, dtype), xs[0]], dtype)
    return by_kind("arith.negf", None)(b, dtype, xs)


def _select(b: Body, dtype: np.dtype, xs: list[str]) -> str:
    return b.select(xs[0], xs[1], xs[2], dtype)


def _ufunc_bind(nin: int) -> Callable[..., Args]:
    def bind(*xs: Any) -> Args:
        if len(xs) != nin:
            raise TypeError(f"expected {nin} operands, got {len(xs)}")
        return {"xs": xs}

    return bind


def elementwise(
    name: str,
    eager: Callable[..., Any],
    scalar: ScalarFn,
    nin: int,
    compute: Callable[[list[Any], np.dtype], list[np.dtype]] | None = None,
    vjp: vjp_numpy.VJP | None = None,
    **story: str,
) -> Op:
    """An elementwise op: broadcasting shapes, NumPy result dtype, one fused generic.

    ``compute`` gives the dtype each operand is cast to before ``scalar`` (default: the
    result dtype; comparisons compare in the promoted operand dtype).
    """

    def rule(args: Args) -> Spec:
        shape = broadcast_shapes(*(shape_of(x) for x in args["xs"]))
        return shape, result_dtype(eager, *(sample(x) for x in args["xs"]))

    def lower(em: Emitter, args: Args, spec: Spec) -> Tensor:
        shape, dtype = spec
        samples = [sample(x) for x in args["xs"]]
        targets = compute(samples, dtype) if compute else [dtype] * len(samples)
        inputs = [x if isinstance(x, Tensor) else em.literal(static_operand(x, t)) for x, t in zip(args["xs"], targets)]
        targets = [HALF_COMPUTE if t == np.float16 else t for t in targets]

        def body(b: Body, a: list[str]) -> str:
            cast_args = [b.cast(v, t.dtype, d) for v, t, d in zip(a, inputs, targets)]
            result = scalar(b, targets[-1], cast_args)
            return b.cast(result, HALF_COMPUTE, dtype) if dtype == np.float16 and targets[-1] == HALF_COMPUTE else result

        return em.elementwise(inputs, shape, dtype, body)

    return Op(name, eager, _ufunc_bind(nin), rule, lower, dynamic=True, vjp=vjp, **story)


#: NumPy's float16 loops compute in float32 and round each result to float16 (IREE's own
#: f16 math differs from that by an ulp), so the lowering does the same
HALF_COMPUTE = np.dtype(np.float32)


def _promoted(samples: list[Any], out: np.dtype) -> list[np.dtype]:
    dtype = check_dtype(np.result_type(*samples))
    return [dtype] * len(samples)


def _where_dtypes(samples: list[Any], out: np.dtype) -> list[np.dtype]:
    return [np.dtype(bool), out, out]


#: why comparisons have no gradient on either side
BOOL_RESULT = "a bool result"

ELEMENTWISE = [
    elementwise("add", np.add, by_kind("arith.addf", "arith.addi"), 2, vjp=vjp_numpy.add),
    elementwise("subtract", np.subtract, by_kind("arith.subf", "arith.subi"), 2, vjp=vjp_numpy.subtract),
    elementwise("multiply", np.multiply, by_kind("arith.mulf", "arith.muli"), 2, vjp=vjp_numpy.multiply),
    elementwise("divide", np.divide, by_kind("arith.divf", None), 2, vjp=vjp_numpy.divide),
    elementwise("negative", np.negative, _negative, 1, vjp=vjp_numpy.negative),
    elementwise("tanh", np.tanh, by_kind("math.tanh", None), 1, vjp=vjp_numpy.tanh),
    elementwise("exp", np.exp, by_kind("math.exp", None), 1, vjp=vjp_numpy.exp),
    elementwise("log", np.log, by_kind("math.log", None), 1, vjp=vjp_numpy.log),
    elementwise("sqrt", np.sqrt, by_kind("math.sqrt", None), 1, vjp=vjp_numpy.sqrt),
    elementwise("absolute", np.absolute, _absolute, 1, vjp=vjp_numpy.absolute),
    elementwise("maximum", np.maximum, by_kind("arith.maximumf", "arith.maxsi"), 2, vjp=vjp_numpy.maximum),
    elementwise("minimum", np.minimum, by_kind("arith.minimumf", "arith.minsi"), 2, vjp=vjp_numpy.minimum),
    elementwise("less", np.less, compare("olt", "slt", "ult"), 2, _promoted, no_grad=BOOL_RESULT),
    elementwise("less_equal", np.less_equal, compare("ole", "sle", "ule"), 2, _promoted, no_grad=BOOL_RESULT),
    elementwise("greater", np.greater, compare("ogt", "sgt", "ugt"), 2, _promoted, no_grad=BOOL_RESULT),
    elementwise("greater_equal", np.greater_equal, compare("oge", "sge", "uge"), 2, _promoted, no_grad=BOOL_RESULT),
    elementwise("equal", np.equal, compare("oeq", "eq", "eq"), 2, _promoted, no_grad=BOOL_RESULT),
    elementwise("not_equal", np.not_equal, compare("une", "ne", "ne"), 2, _promoted, no_grad=BOOL_RESULT),
    elementwise("where", np.where, _select, 3, _where_dtypes, vjp=vjp_numpy.where),
]


# ---- reductions ---------------------------------------------------------------------------
def _reduce_bind(a: Any, axis: Any = None, dtype: Any = None, out: Any = None, keepdims: bool = False) -> Args:
    return {"a": a, "axis": axis, "dtype": dtype, "out": out, "keepdims": keepdims}


def _axes(args: Args) -> tuple[int, ...]:
    ndim = len(shape_of(args["a"]))
    axis = args["axis"]
    if axis is None:
        return tuple(range(ndim))
    axes = axis if isinstance(axis, tuple) else (axis,)
    return tuple(sorted({normalize_axis(a, ndim) for a in axes}))


#: reduced sizes up to this keep a float32 accumulator: there its blocked order and NumPy's
#: pairwise one round alike (a cancelling sum of 2048 agreed to 1e-6, not so in float64)
WIDE_MIN = 4096


def reduction(
    name: str,
    eager: Callable[..., Any],
    combine: ScalarFn,
    identity: Callable[[np.dtype], Any],
    *,
    mean: bool = False,
    empty_ok: bool = True,
    wide: bool = False,
    vjp: vjp_numpy.VJP | None = None,
    **story: str,
) -> Op:
    """A reduction over static axes (``keepdims`` reinserts unit dims by reshape).
    ``wide``: a float32 sum over the last axis of more than ``WIDE_MIN`` elements is
    accumulated in float64, then rounded. There NumPy sums pairwise (error growing with
    log n), where a loop's one float32 accumulator per lane drifts with n (1% off for a
    million elements); float64 stays within NumPy's own rounding. Over leading axes NumPy
    adds row after row in float32, as the compiled loop does: those keep float32."""

    def rule(args: Args) -> Spec:
        require_default(args, dtype=None, out=None)
        shape, axes = shape_of(args["a"]), _axes(args)
        if not isinstance(args["keepdims"], bool):
            raise NotConvertible("keepdims must be a static bool")
        if not empty_ok and any(shape[i] == 0 or isinstance(shape[i], str) for i in axes):
            raise NotConvertible(f"{name} of an empty (or possibly empty ?) axis")
        if mean and any(shape[i] == 0 for i in axes):
            raise NotConvertible(f"{name} of an empty axis ({EMPTY_MEAN})")
        kept = tuple(1 if i in axes else d for i, d in enumerate(shape) if args["keepdims"] or i not in axes)
        return kept, result_dtype(eager, sample(args["a"]), axis=args["axis"], keepdims=args["keepdims"])

    def lower(em: Emitter, args: Args, spec: Spec) -> Tensor:
        x, axes, (shape, dtype) = args["a"], _axes(args), spec
        long = x.ndim - 1 in axes and (not is_static(x.shape) or int(np.prod([x.shape[i] for i in axes])) > WIDE_MIN)
        acc = np.dtype(np.float64) if wide and dtype == np.float32 and long else dtype
        kept = [i for i in range(x.ndim) if i not in axes]
        init = em.filled(tuple(x.shape[i] for i in kept), acc, identity(acc))
        every = [f"d{i}" for i in range(x.ndim)]
        r = em.generic(x.ndim, axes, [(x, every)], init, [f"d{i}" for i in kept],
                       lambda b, a: combine(b, acc, [b.cast(a[0], x.dtype, acc), a[1]]))
        if mean:
            count = _element_count(em, [x.shape[i] for i in axes], acc, f"{name} over ? dims of a non-empty slice ({EMPTY_MEAN})")
            r = em.elementwise([r], r.shape, acc, lambda b, a: b.op("arith.divf", [a[0], count or b.constant(
                int(np.prod([x.shape[i] for i in axes])), acc)], acc))
        if acc != dtype:
            r = em.elementwise([r], r.shape, dtype, lambda b, a: b.cast(a[0], acc, dtype))
        positions = [i for i in range(x.ndim) if i not in axes] if args["keepdims"] else list(range(r.ndim))
        return em.insert_unit_dims(r, positions, shape)

    return Op(name, eager, _reduce_bind, rule, lower, dynamic=True, vjp=vjp, **story)


#: why a mean over no element is left to Python: NumPy warns there (the graph would only give the NaN)
EMPTY_MEAN = "NumPy warns 'Mean of empty slice' and gives NaN"


def _element_count(em: Emitter, sizes: Shape, dtype: np.dtype, nonempty_guard: str = "") -> str | None:
    """The number of elements of ``sizes`` with ``?`` dims as a ``dtype`` value computed
    before the regions that use it (as NumPy's ``int`` count converts); None when static.
    ``nonempty_guard``: the source of a guard that the count is not zero."""
    if is_static(sizes):
        return None
    b, i64 = em.scalars(), np.dtype(np.int64)
    count = b.constant(int(np.prod([d for d in sizes if not isinstance(d, str)])), i64)
    for d in sizes:
        if isinstance(d, str):
            count = b.op("arith.muli", [count, b.index_cast(em.dims[d], "index", "i64")], i64)
    if nonempty_guard:
        em.guard(b.cmp(i64, ("", "ne", ""), count, b.constant(0, i64)), "raise", nonempty_guard)
    return b.cast(count, i64, dtype)


def _extreme(sign: int) -> Callable[[np.dtype], Any]:
    def identity(dtype: np.dtype) -> Any:
        if dtype.kind == "f":
            return sign * np.inf
        if dtype.kind in "iu":
            info = np.iinfo(dtype)
            return info.min if sign < 0 else info.max
        raise NotConvertible(f"max/min of {dtype.name} is not supported")

    return identity


REDUCTIONS = [
    reduction("sum", np.sum, by_kind("arith.addf", "arith.addi"), lambda dtype: 0, wide=True, vjp=vjp_numpy.sum_vjp),
    reduction("mean", np.mean, by_kind("arith.addf", None), lambda dtype: 0, mean=True, wide=True, vjp=vjp_numpy.mean_vjp),
    reduction("max", np.max, by_kind("arith.maximumf", "arith.maxsi"), _extreme(-1), empty_ok=False, vjp=vjp_numpy.extremum_vjp),
    reduction("min", np.min, by_kind("arith.minimumf", "arith.minsi"), _extreme(1), empty_ok=False, vjp=vjp_numpy.extremum_vjp),
]


# ---- linear algebra -----------------------------------------------------------------------
def _matmul_bind(x1: Any, x2: Any) -> Args:
    return {"a": x1, "b": x2}


def _dot_bind(a: Any, b: Any, out: Any = None) -> Args:
    return {"a": a, "b": b, "out": out}


def _matmul_rule(args: Args) -> Spec:
    """N-d ``a`` with a 1-d or 2-d ``b`` (where matmul and dot agree), 1-d/2-d operands, or
    (``matmul`` only) a stack of matrices ``b``, batch dims broadcast."""
    sa, sb = shape_of(args["a"]), shape_of(args["b"])
    batched = "out" not in args and len(sb) > 2
    if args.get("out") is not None or not (1 <= len(sa) and 1 <= len(sb) and (batched or len(sb) <= 2)):
        raise NotConvertible(f"matmul of shapes {sa} and {sb} (only an N-d operand times a 1-d or 2-d one)")
    if sa[-1] != sb[-2 if batched else 0]:
        raise NotConvertible(f"matmul shapes {sa} and {sb} do not align")
    dtype = result_dtype(np.matmul, sample(args["a"]), sample(args["b"]))
    if dtype.kind == "b":
        raise NotConvertible("bool matmul is not supported")
    if batched:
        return broadcast_shapes(sa[:-2], sb[:-2]) + sa[-2:-1] + sb[-1:], dtype
    return sa[:-1] + sb[1:], dtype


def _batched_matmul(em: Emitter, a: Tensor, b: Tensor, spec: Spec) -> Tensor:
    """``a @ b`` over a stack of matrices ``b``: both broadcast to the batch dims, then one
    einsum (``...xy,...yz->...xz``; a 1-d ``a`` is ``y``)."""
    batch = spec[0][: len(spec[0]) - (2 if a.ndim > 1 else 1)]
    if a.ndim > 1 and a.shape[:-2] != batch:
        a = apply(em, OPS["broadcast_to"], [a, batch + a.shape[-2:]], {})
    if b.shape[:-2] != batch:
        b = apply(em, OPS["broadcast_to"], [b, batch + b.shape[-2:]], {})
    letters = "abcdefghijklmnopqrstuvw"[: len(batch)]
    rows = "x" if a.ndim > 1 else ""
    subscripts = f"{letters}{rows}y,{letters}yz->{letters}{rows}z" if a.ndim > 1 else f"y,{letters}yz->{letters}z"
    return apply(em, OPS["einsum"], [subscripts, a, b], {})


def _matmul_lower(em: Emitter, args: Args, spec: Spec) -> Tensor:
    """An N-d ``a`` is flattened to 2-d, multiplied and reshaped back (no batch dims on ``b``)."""
    a, b = (cast(em, args[k], spec[1]) for k in ("a", "b"))
    if b.ndim > 2:
        return _batched_matmul(em, a, b, spec)
    if a.ndim > 2:
        if not is_static(a.shape[:-1]):
            raise NotConvertible("matmul of an N-d array with ? leading dims (flattened by a static reshape)")
        flat = em.reshape(a, (int(np.prod(a.shape[:-1])), a.shape[-1]))
        return em.reshape(_matmul_lower(em, {"a": flat, "b": b}, spec), spec[0])
    a2 = em.insert_unit_dims(a, [1], (1,) + a.shape) if a.ndim == 1 else a
    b2 = em.insert_unit_dims(b, [0], b.shape + (1,)) if b.ndim == 1 else b
    product = em.matmul(a2, b2)
    kept = [i for i, keep in enumerate((a.ndim == 2, b.ndim == 2)) if keep]
    return em.drop_unit_dims(product, kept)


def _outer_bind(a: Any, b: Any, out: Any = None) -> Args:
    return {"a": a, "b": b, "out": out}


def _outer_rule(args: Args) -> Spec:
    require_default(args, out=None)
    dtype = result_dtype(np.outer, sample(args["a"]), sample(args["b"]))
    if dtype.kind == "b":
        raise NotConvertible("bool outer is not supported")
    return (int(np.prod(shape_of(args["a"]))), int(np.prod(shape_of(args["b"])))), dtype


def _outer_lower(em: Emitter, args: Args, spec: Spec) -> Tensor:
    """A K=1 matmul of the flattened operands (its MLIR VJP is matmul's)."""
    a, b = (cast(em, args[k], spec[1]) for k in ("a", "b"))
    return em.matmul(em.reshape(a, (spec[0][0], 1)), em.reshape(b, (1, spec[0][1])))


# ---- shape manipulation -------------------------------------------------------------------
def _transpose_bind(a: Any, axes: Any = None) -> Args:
    return {"a": a, "axes": axes}


def _transpose_method(a: Any, *axes: Any) -> Args:
    if len(axes) == 1 and (axes[0] is None or isinstance(axes[0], (tuple, list))):
        axes = axes[0]
    return {"a": a, "axes": tuple(axes) if axes else None}


def _permutation(args: Args) -> list[int]:
    ndim = len(shape_of(args["a"]))
    if args["axes"] is None:
        return list(range(ndim))[::-1]
    perm = [normalize_axis(a, ndim) for a in args["axes"]]
    if sorted(perm) != list(range(ndim)):
        raise NotConvertible(f"axes {args['axes']!r} are not a permutation")
    return perm


def _transpose_rule(args: Args) -> Spec:
    shape = shape_of(args["a"])
    return tuple(shape[p] for p in _permutation(args)), args["a"].dtype


def _transpose_lower(em: Emitter, args: Args, spec: Spec) -> Tensor:
    perm = _permutation(args)
    return args["a"] if perm == sorted(perm) else em.transpose(args["a"], perm)


def _reshape_bind(a: Any, shape: Any = None, order: str = "C", *, newshape: Any = None, copy: Any = None) -> Args:
    return {"a": a, "shape": newshape if shape is None else shape, "order": order, "copy": copy}


def _reshape_method(a: Any, *shape: Any, order: str = "C", copy: Any = None) -> Args:
    return {"a": a, "shape": shape[0] if len(shape) == 1 else shape, "order": order, "copy": copy}


def _reshape_rule(args: Args) -> Spec:
    require_default(args, order="C", copy=None)
    shape, size = static_shape(args["shape"]), args["a"].size
    if shape.count(-1) == 1:
        known = int(np.prod([d for d in shape if d != -1]))
        shape = tuple(size // known if d == -1 and known else d for d in shape)
    if int(np.prod(shape)) != size or any(d < 0 for d in shape):
        raise NotConvertible(f"cannot reshape {args['a'].shape} into {args['shape']!r}")
    return shape, args["a"].dtype


def _astype_bind(x: Any, dtype: Any, /, *, copy: bool = True, device: Any = None) -> Args:
    return {"a": x, "dtype": dtype}


def _astype_method(a: Any, dtype: Any, order: str = "K", casting: str = "unsafe", subok: bool = True, copy: bool = True) -> Args:
    return {"a": a, "dtype": dtype}


def _astype_rule(args: Args) -> Spec:
    try:
        dtype = np.dtype(args["dtype"])
    except TypeError:
        raise NotConvertible(f"dtype {args['dtype']!r} is not static") from None
    return args["a"].shape, check_dtype(dtype)


def _join_bind(arrays: Any, axis: Any = 0, out: Any = None, *, dtype: Any = None, casting: str = "same_kind") -> Args:
    if not isinstance(arrays, (list, tuple)) or not arrays:
        raise NotConvertible("arrays to join must be a non-empty list or tuple")
    return {"arrays": list(arrays), "axis": axis, "out": out, "dtype": dtype}


def join(name: str, eager: Callable[..., Any], new_axis: bool) -> Op:
    """``concatenate`` (``new_axis`` False) or ``stack`` (True): casts, unit dims, concat."""

    def shapes_and_axis(args: Args) -> tuple[list[tuple[int, ...]], int]:
        require_default(args, out=None, dtype=None)
        shapes = [shape_of(x) for x in args["arrays"]]
        ndim = len(shapes[0])
        if args["axis"] is None or ndim + new_axis == 0:
            raise NotConvertible(f"{name} needs a static axis and arrays of rank >= 1")
        return shapes, normalize_axis(args["axis"], ndim + new_axis)

    def rule(args: Args) -> Spec:
        shapes, axis = shapes_and_axis(args)
        ok = all(len(s) == len(shapes[0]) for s in shapes) and (
            all(s == shapes[0] for s in shapes)
            if new_axis
            else all(s[:axis] + s[axis + 1 :] == shapes[0][:axis] + shapes[0][axis + 1 :] for s in shapes)
        )
        if not ok:
            raise NotConvertible(f"{name} of mismatched shapes {shapes}")
        dims = list(shapes[0])
        if new_axis:
            dims.insert(axis, len(shapes))
        else:
            dims[axis] = sum(s[axis] for s in shapes)
        return tuple(dims), result_dtype(np.concatenate, [sample(x) for x in args["arrays"]])

    def lower(em: Emitter, args: Args, spec: Spec) -> Tensor:
        shapes, axis = shapes_and_axis(args)
        parts = [cast(em, x, spec[1]) for x in args["arrays"]]
        if new_axis:
            kept = [i for i in range(len(shapes[0]) + 1) if i != axis]
            parts = [em.insert_unit_dims(p, kept, p.shape[:axis] + (1,) + p.shape[axis:]) for p in parts]
        return em.concat(parts, axis, spec[0])

    return Op(name, eager, _join_bind, rule, lower, vjp=vjp_numpy.join_vjp(new_axis))


def _array_bind(object: Any, dtype: Any = None, *, copy: bool = True, order: str = "K", subok: bool = False,
                ndmin: int = 0, like: Any = None) -> Args:
    items = object if isinstance(object, (list, tuple)) else None
    if not items or ndmin or like is not None:
        raise NotConvertible("np.array of traced values takes a non-empty list or tuple of arrays, numbers or such lists")
    return {"arrays": list(items), "axis": 0, "out": None, "dtype": dtype}


def _item_shape(x: Any) -> Shape:
    """The shape NumPy gives an item of ``np.array``'s list (a nested list: its own rows')."""
    if not isinstance(x, (list, tuple)):
        return shape_of(x)
    rows = {_item_shape(item) for item in x}
    if len(rows) != 1:
        raise NotConvertible(f"np.array of a ragged nested list (rows of shapes {sorted(rows)})")
    return (len(x), *rows.pop())


def _item_sample(x: Any) -> Any:
    return [_item_sample(item) for item in x] if isinstance(x, (list, tuple)) else sample(x)


def array_op(stack: Op) -> Op:
    """``np.array([a, b, ...])`` of traced values: their stack, cast as NumPy would; a
    nested list (``np.array([[c, -s], [s, c]])``) is a stack of its rows' arrays."""

    def rule(args: Args) -> Spec:
        shapes = {_item_shape(x) for x in args["arrays"]}
        if len(shapes) != 1:
            raise NotConvertible(f"np.array of items of different shapes {sorted(shapes)}")
        dtype = result_dtype(np.array, [_item_sample(x) for x in args["arrays"]], dtype=args["dtype"])
        return (len(args["arrays"]), *shapes.pop()), dtype

    def lower(em: Emitter, args: Args, spec: Spec) -> Tensor:  # the stack casts each item to spec's dtype
        rows = [apply(em, OPS["array"], [x], {"dtype": spec[1]}) if isinstance(x, (list, tuple)) else x for x in args["arrays"]]
        return stack.lower(em, {**args, "arrays": rows, "dtype": None}, spec)

    return Op("array", np.array, _array_bind, rule, lower, vjp=vjp_numpy.join_vjp(new_axis=True))


# ---- basic indexing -----------------------------------------------------------------------
def _getitem_bind(a: Any, key: Any) -> Args:
    return {"a": a, "key": key}


def ellipsis_at(key: tuple) -> int | None:
    """Where ``...`` is in ``key`` (by identity: ``tuple.index`` would compare index arrays with ``==``)."""
    return next((i for i, k in enumerate(key) if k is Ellipsis), None)


def slice_plan(shape: Shape, key: Any) -> tuple[list[int], list[int | str], list[int], list[int]]:
    """Offsets, sizes, strides and the kept dims of a basic (int/slice) index; a ``?`` dim
    (a symbol in ``shape``) only under a full slice ``:``, which keeps its symbol."""
    key = key if isinstance(key, tuple) else (key,)
    if ellipsis_at(key) is not None:
        at = ellipsis_at(key)
        key = key[:at] + (slice(None),) * (len(shape) - len(key) + 1) + key[at + 1 :]
    if len(key) > len(shape):
        raise NotConvertible(f"too many indices for an array of shape {shape}")
    key = key + (slice(None),) * (len(shape) - len(key))
    offsets, sizes, strides, kept = [], [], [], []
    for dim, (k, n) in enumerate(zip(key, shape)):
        if isinstance(n, str):
            if k != slice(None):
                raise NotConvertible("an index other than ':' into a ? dim")
            offsets.append(0), sizes.append(n), strides.append(1)
            kept.append(dim)
        elif isinstance(k, (int, np.integer)) and not isinstance(k, bool):
            if not -n <= k < n:
                raise NotConvertible(f"index {k} is out of bounds for size {n}")
            offsets.append(int(k) % n), sizes.append(1), strides.append(1)
        elif isinstance(k, slice) and all(v is None or isinstance(v, (int, np.integer)) for v in (k.start, k.stop, k.step)):
            start, stop, step = k.indices(n)
            if step < 0:
                raise NotConvertible("negative slice steps are not supported")
            offsets.append(start), sizes.append(len(range(start, stop, step))), strides.append(step)
            kept.append(dim)
        else:
            raise NotConvertible(f"index {k!r} is not a static int or slice (advanced indexing is not supported)")
    return offsets, sizes, strides, kept


def split_newaxes(ndim: int, key: Any) -> tuple[tuple, list[int]]:
    """``key`` without its ``None`` (``np.newaxis``) entries, and the result dims they add."""
    key = key if isinstance(key, tuple) else (key,)
    if ellipsis_at(key) is not None:
        at = ellipsis_at(key)
        real = sum(k is not None for k in key) - 1
        key = key[:at] + (slice(None),) * max(ndim - real, 0) + key[at + 1 :]
    added, position = [], 0
    for k in key:
        if k is None:
            added.append(position)
        if k is None or isinstance(k, slice):
            position += 1
    return tuple(k for k in key if k is not None), added


def _getitem_rule(args: Args) -> Spec:
    key, added = split_newaxes(args["a"].ndim, args["key"])
    _, sizes, _, kept = slice_plan(args["a"].shape, key)
    shape = [sizes[d] for d in kept]
    for position in added:
        shape.insert(position, 1)
    return tuple(shape), args["a"].dtype


def _getitem_lower(em: Emitter, args: Args, spec: Spec) -> Tensor:
    key, added = split_newaxes(args["a"].ndim, args["key"])
    offsets, sizes, strides, kept = slice_plan(args["a"].shape, key)
    sliced = em.extract_slice(args["a"], offsets, [em.size(d) for d in sizes], strides, tuple(sizes[d] for d in kept))
    return em.insert_unit_dims(sliced, [i for i in range(len(spec[0])) if i not in added], spec[0])


def _copy_bind(a: Any, order: str = "K", subok: bool = False) -> Args:
    return {"a": a}


def _copy_lower(em: Emitter, args: Args, spec: Spec) -> Tensor:
    """A new SSA value (the copy must not share the original's provenance)."""
    return em.elementwise([args["a"]], spec[0], spec[1], lambda b, a: a[0])


# ---- array creation -----------------------------------------------------------------------
def _like_bind(fill: Any) -> Callable[..., Args]:
    def bind(a: Any, dtype: Any = None, order: str = "K", subok: bool = True, shape: Any = None) -> Args:
        return {"a": a, "dtype": dtype, "shape": shape, "fill": fill}

    return bind


def _full_like_bind(a: Any, fill_value: Any, dtype: Any = None, order: str = "K", subok: bool = True, shape: Any = None) -> Args:
    return {"a": a, "dtype": dtype, "shape": shape, "fill": fill_value}


def _like_rule(args: Args) -> Spec:
    require_default(args, shape=None)
    if isinstance(args["fill"], Tensor) or args["dtype"] is not None and not isinstance(args["dtype"], (type, str, np.dtype)):
        raise NotConvertible("fill value and dtype must be static")
    return shape_of(args["a"]), check_dtype(np.dtype(args["dtype"]) if args["dtype"] is not None else sample(args["a"]).dtype)


def _like_lower(em: Emitter, args: Args, spec: Spec) -> Tensor:
    """A constant; with ``?`` dims, a fill of a tensor whose sizes are read from ``a``."""
    if is_static(spec[0]):
        return em.literal(np.full(spec[0], args["fill"], spec[1]))
    for axis, d in enumerate(spec[0]):
        if isinstance(d, str):
            em.bind_dim(d, args["a"], axis)
    return em.filled(spec[0], spec[1], np.full((), args["fill"], spec[1])[()])


def _creation_bind(shape: Any, *rest: Any, **kwargs: Any) -> Args:
    raise NotConvertible("array creation from a traced value: the shape must be static")


def _unreachable_rule(args: Args) -> Spec:
    raise NotConvertible("unreachable")


def _arange_bind(start: Any, stop: Any = None, step: Any = None, dtype: Any = None, *, like: Any = None) -> Args:
    """``np.arange(n)`` of a traced ``n`` (static arguments are folded before): only
    ``len(x)`` of a ``?`` dim (a ``Length``), whose range has that dim."""
    if stop is not None or step is not None or like is not None or getattr(start, "symbol", None) is None \
            or dtype is not None and np.dtype(dtype) != np.int64:
        raise NotConvertible("np.arange of a traced value: only np.arange(len(x)) of an array with a ? first dim")
    return {"n": start}


def _arange_lower(em: Emitter, args: Args, spec: Spec) -> Tensor:
    return em.generic(1, (), [], em.empty(spec[0], spec[1]), ["d0"],
                      lambda b, a: b.index_cast(b.loop_index(0), "index", "i64"))


def creation(name: str, eager: Callable[..., Any]) -> Op:
    """Creation from static arguments only: folded by ``eager`` before any rule is asked."""
    return Op(name, eager, _creation_bind, _unreachable_rule, lambda em, args, spec: _unreachable_rule(args),
              no_grad="static arguments only (folded to a constant)")


def _sized_shape(shape: Any) -> Shape:
    """A creation shape of ints and ``len()``/``.shape`` ints of ``?`` dims (``Length``: their symbols)."""
    dims = shape if isinstance(shape, (tuple, list)) else (shape,)
    if not all(isinstance(d, (int, np.integer)) and not isinstance(d, bool) or getattr(d, "symbol", None) for d in dims):
        raise NotConvertible("array creation from a traced value: the shape must be static or dims of arrays (x.shape, len(x))")
    return tuple(d.symbol if isinstance(d, Tensor) else int(d) for d in dims)


def _sized_bind(fill: Any) -> Callable[..., Args]:
    def bind(shape: Any, dtype: Any = float, order: str = "C", *, like: Any = None) -> Args:
        return {"shape": shape, "dtype": dtype, "order": order, "like": like, "fill": fill}

    return bind


def _full_sized_bind(shape: Any, fill_value: Any, dtype: Any = None, order: str = "C", *, like: Any = None) -> Args:
    return {"shape": shape, "dtype": dtype, "order": order, "like": like, "fill": fill_value}


def _sized_rule(args: Args) -> Spec:
    require_default(args, order="C", like=None)
    if isinstance(args["fill"], Tensor) or not isinstance(args["dtype"], (type, str, np.dtype, type(None))):
        raise NotConvertible("fill value and dtype must be static")
    dtype = np.asarray(args["fill"]).dtype if args["dtype"] is None else np.dtype(args["dtype"])
    return _sized_shape(args["shape"]), check_dtype(dtype)


def sized(name: str, eager: Callable[..., Any], bind: Callable[..., Args]) -> Op:
    """Creation of a shape that holds dims of ``?`` size (``np.zeros((n, d))``, ``n = len(x)``); a
    static one is folded by ``eager`` before the rule is asked."""
    return Op(name, eager, bind, _sized_rule,
              lambda em, args, spec: em.filled(spec[0], spec[1], np.full((), args["fill"], spec[1])[()]),
              no_grad="a constant of a size known at run time")


STACK = join("stack", np.stack, new_axis=True)

OTHERS = [
    Op("matmul", np.matmul, _matmul_bind, _matmul_rule, _matmul_lower, dynamic=True, vjp=vjp_numpy.matmul_vjp),
    Op("dot", np.dot, _dot_bind, _matmul_rule, _matmul_lower, dynamic=True, vjp=vjp_numpy.matmul_vjp),
    Op("outer", np.outer, _outer_bind, _outer_rule, _outer_lower, vjp=vjp_numpy.outer_vjp),
    Op("transpose", np.transpose, _transpose_bind, _transpose_rule, _transpose_lower, dynamic=True, vjp=vjp_numpy.transpose_vjp),
    Op("reshape", np.reshape, _reshape_bind, _reshape_rule, lambda em, args, spec: em.reshape(args["a"], spec[0]), vjp=vjp_numpy.reshape_vjp),
    Op("astype", np.astype, _astype_bind, _astype_rule, lambda em, args, spec: cast(em, args["a"], spec[1]), dynamic=True,
       vjp=vjp_numpy.astype_vjp),
    join("concatenate", np.concatenate, new_axis=False),
    STACK,
    array_op(STACK),
    Op("getitem", operator.getitem, _getitem_bind, _getitem_rule, _getitem_lower, dynamic=True, vjp=vjp_numpy.getitem_vjp),
    Op("copy", np.copy, _copy_bind, lambda args: (shape_of(args["a"]), args["a"].dtype), _copy_lower, dynamic=True,
       vjp=vjp_numpy.astype_vjp),
    Op("zeros_like", np.zeros_like, _like_bind(0), _like_rule, _like_lower, dynamic=True, vjp=vjp_numpy.like_vjp),
    Op("ones_like", np.ones_like, _like_bind(1), _like_rule, _like_lower, dynamic=True, vjp=vjp_numpy.like_vjp),
    Op("full_like", np.full_like, _full_like_bind, _like_rule, _like_lower, dynamic=True, vjp=vjp_numpy.like_vjp),
    # any contents are NumPy's ``empty_like``; zeros keep the graph deterministic
    Op("empty_like", np.empty_like, _like_bind(0), _like_rule, _like_lower, dynamic=True, vjp=vjp_numpy.like_vjp),
    sized("zeros", np.zeros, _sized_bind(0)),
    sized("ones", np.ones, _sized_bind(1)),
    sized("full", np.full, _full_sized_bind),
    Op("arange", np.arange, _arange_bind, lambda args: ((args["n"].symbol,), np.dtype(np.int64)), _arange_lower,
       dynamic=True, no_grad="static arguments only (folded to a constant), or np.arange(len(x)) of a ? dim: integers"),
    sized("empty", np.zeros, _sized_bind(0)),  # any contents are NumPy's ``empty``; zeros keep the graph deterministic
    creation("eye", np.eye),
    creation("identity", np.identity),
    creation("linspace", np.linspace),
    creation("logspace", np.logspace),
    creation("tri", np.tri),
    creation("finfo", np.finfo),  # ``np.finfo(x.dtype).min``: the dtype of a traced array is static
    creation("iinfo", np.iinfo),
    Op("pad", np.pad, padding.bind, padding.rule, padding.lower, vjp=padding.vjp),
]


register(*ELEMENTWISE, *REDUCTIONS, *OTHERS)
#: NumPy aliases (``np.abs`` is ``np.absolute``; ``np.amax`` is ``max``)
BY_FUNCTION.update({np.amax: OPS["max"], np.amin: OPS["min"], np.true_divide: OPS["divide"], np.empty: OPS["empty"]})

METHODS.update({
    **{name: (OPS[name], OPS[name].bind) for name in ("sum", "mean", "max", "min", "dot")},
    "transpose": (OPS["transpose"], _transpose_method),
    "reshape": (OPS["reshape"], _reshape_method),
    "astype": (OPS["astype"], _astype_method),
    "copy": (OPS["copy"], lambda a, order="C": {"a": a}),
})

OPERATORS.update({
    symbol: OPS[name]
    for symbol, name in {
        "+": "add", "-": "subtract", "*": "multiply", "/": "divide", "@": "matmul",
        "<": "less", "<=": "less_equal", ">": "greater", ">=": "greater_equal", "==": "equal", "!=": "not_equal",
    }.items()
})
