"""Contractions written as einsum: ``np.einsum`` itself, ``inner``, ``tensordot`` and
``trace``. Each entry turns its arguments into einsum subscripts (``Contraction.subscripts``)
and shares one lowering, a ``linalg.generic`` with one loop per letter (output letters
parallel, the others reduced; a letter repeated in an operand is its diagonal), and one
tape VJP (the einsum of the cotangent with the other operands); janus-autodiff
differentiates the generic."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from janus.frontend.emitter import Emitter
from janus.frontend.ops.op_table import by_kind, cast, normalize_axis, result_dtype, sample, shape_of
from janus.frontend.ops.registry import METHODS, Args, Op, Spec, register
from janus.frontend.values import NotConvertible, Tensor

Subscripts = Callable[[Args], tuple[str, list[Any]]]
LETTERS = "abcdefghijklmnopqrstuvwxyz"


def parse(subscripts: str, operands: list[Any]) -> tuple[list[str], str, dict[str, int]]:
    """(input letters per operand, output letters, size per letter) of explicit or implicit
    einsum subscripts without ellipses; NumPy's errors become NotConvertible."""
    text = subscripts.replace(" ", "")
    if "." in text or not text.replace(",", "").replace("->", "").isalpha():
        raise NotConvertible(f"einsum subscripts {subscripts!r} (ellipses are not supported)")
    inputs, arrow, output = text.partition("->")
    terms = inputs.split(",")
    if not arrow:
        output = "".join(sorted(c for c in set(inputs) if inputs.count(c) == 1 and c != ","))
    if len(terms) != len(operands) or len(set(output)) != len(output) or not set(output) <= set(inputs):
        raise NotConvertible(f"einsum subscripts {subscripts!r} do not fit {len(operands)} operands")
    sizes: dict[str, int] = {}
    for term, x in zip(terms, operands):
        shape = shape_of(x)
        if len(term) != len(shape):
            raise NotConvertible(f"einsum term {term!r} does not fit an operand of shape {shape}")
        for letter, size in zip(term, shape):
            if sizes.setdefault(letter, size) != size:
                raise NotConvertible(f"einsum letter {letter!r} has sizes {sizes[letter]} and {size}")
    return terms, output, sizes


def _contract(em: Emitter, terms: list[str], output: str, operands: list[Tensor], sizes: dict[str, int],
              dtype: np.dtype) -> Tensor:
    """The contraction as generics of at most two operands, left to right (IREE 3.13 fails
    on some wider ones: "vector.contract op invalid accumulator/result vector shape"); an
    intermediate keeps the letters the output or a later operand still needs."""
    if len(terms) > 2:
        later = set(output).union(*terms[2:])
        middle = "".join(c for c in dict.fromkeys(terms[0] + terms[1]) if c in later)
        first = _contract(em, terms[:2], middle, operands[:2], sizes, dtype)
        return _contract(em, [middle, *terms[2:]], output, [first, *operands[2:]], sizes, dtype)
    letters = list(output) + sorted(set("".join(terms)) - set(output))
    dims = {c: f"d{i}" for i, c in enumerate(letters)}
    multiply, add = by_kind("arith.mulf", "arith.muli"), by_kind("arith.addf", "arith.addi")

    # NumPy accumulates products into zeros (so -0.0 becomes 0.0), but one operand without a
    # sum is a view of it
    summed = len(letters) > len(output) or len(terms) > 1

    def body(b: Any, xs: list[str]) -> str:
        product = xs[0] if len(xs) == 2 else multiply(b, dtype, xs[:2])
        return add(b, dtype, [xs[-1], product]) if summed else product

    init = em.filled(tuple(sizes[c] for c in output), dtype, 0)
    inputs = [(x, [dims[c] for c in term]) for x, term in zip(operands, terms)]
    return em.generic(len(letters), list(range(len(output), len(letters))), inputs, init, [dims[c] for c in output], body)


def contraction(name: str, eager: Callable[..., Any], bind: Callable[..., Args], subscripts: Subscripts) -> Op:
    """An entry computed as ``np.einsum(*subscripts(args))``."""

    def rule(args: Args) -> Spec:
        text, operands = subscripts(args)
        _, output, sizes = parse(text, operands)
        dtype = result_dtype(np.einsum, text, *(sample(x) for x in operands))
        if dtype.kind == "b":
            raise NotConvertible(f"{name} of bools")
        return tuple(sizes[c] for c in output), dtype

    def lower(em: Emitter, args: Args, spec: Spec) -> Tensor:
        text, operands = subscripts(args)
        terms, output, sizes = parse(text, operands)
        return _contract(em, terms, output, [cast(em, x, spec[1]) for x in operands], sizes, spec[1])

    def vjp(g: np.ndarray, out: Any, args: Args) -> dict[str, Any]:
        text, operands = subscripts(args)
        terms, output, sizes = parse(text, operands)
        cotangents = []
        for k, (term, x) in enumerate(zip(terms, operands)):
            others = [(t, o) for i, (t, o) in enumerate(zip(terms, operands)) if i != k]
            seen = set(output).union(*(set(t) for t, _ in others))
            unique = "".join(dict.fromkeys(term))
            kept = "".join(c for c in unique if c in seen)
            d = np.einsum(",".join([output, *(t for t, _ in others)]) + "->" + kept, g, *(o for _, o in others))
            d = np.broadcast_to(np.expand_dims(d, [i for i, c in enumerate(unique) if c not in seen]),
                                [sizes[c] for c in unique])
            cotangents.append(_undiagonal(d, unique, term, sizes))
        return {"operands": cotangents}

    return Op(name, eager, bind, rule, lower, vjp=vjp)


def _undiagonal(d: np.ndarray, unique: str, term: str, sizes: dict[str, int]) -> np.ndarray:
    """``d`` (over ``unique`` letters) placed on the diagonals a repeated letter of ``term``
    denotes: each repeat is renamed and tied to its letter by an identity matrix."""
    renamed, ties = [], []
    for c in term:
        if c in renamed:
            fresh = chr(ord("A") + len(ties))
            ties.append((c, fresh))
            c = fresh
        renamed.append(c)
    if not ties:
        return d
    subscripts = ",".join([unique, *(a + b for a, b in ties)]) + "->" + "".join(renamed)
    return np.einsum(subscripts, d, *(np.eye(sizes[a]) for a, _ in ties))


# ---- the entries: subscripts from each function's own arguments ---------------------------
def _einsum_bind(subscripts: Any, *operands: Any, out: Any = None, dtype: Any = None, order: str = "K",
                 casting: str = "safe", optimize: Any = False) -> Args:
    if not isinstance(subscripts, str) or out is not None or dtype is not None:
        raise NotConvertible("einsum takes a subscripts string, no out= or dtype=")
    return {"subscripts": subscripts, "operands": list(operands)}


def _einsum(args: Args) -> tuple[str, list[Any]]:
    return args["subscripts"], args["operands"]


def _inner_bind(a: Any, b: Any) -> Args:
    return {"operands": [a, b]}


def _inner(args: Args) -> tuple[str, list[Any]]:
    """Over the last axes (a 0-d operand is a product, as NumPy's)."""
    a, b = (len(shape_of(x)) for x in args["operands"])
    left, right = LETTERS[: max(a - 1, 0)], LETTERS[12 : 12 + max(b - 1, 0)]
    if a == 0 or b == 0:
        return f"{LETTERS[:a]},{LETTERS[12:12 + b]}->{LETTERS[:a]}{LETTERS[12:12 + b]}", args["operands"]
    return f"{left}z,{right}z->{left}{right}", args["operands"]


def _tensordot_bind(a: Any, b: Any, axes: Any = 2) -> Args:
    return {"operands": [a, b], "axes": axes}


def _tensordot(args: Args) -> tuple[str, list[Any]]:
    """The last ``axes`` axes of ``a`` with the first of ``b``, or the listed pairs."""
    (a, b), axes = args["operands"], args["axes"]
    na, nb = len(shape_of(a)), len(shape_of(b))
    if isinstance(axes, (int, np.integer)):
        pairs = [list(range(na - int(axes), na)), list(range(int(axes)))]
    elif isinstance(axes, (tuple, list)) and len(axes) == 2:
        pairs = [list(p) if isinstance(p, (tuple, list)) else [p] for p in axes]
    else:
        raise NotConvertible(f"tensordot axes {axes!r}")
    if len(pairs[0]) != len(pairs[1]):
        raise NotConvertible("tensordot axes lists of different lengths (NumPy raises)")
    left = list(LETTERS[:na])
    right = list(LETTERS[na : na + nb])
    for i, j in zip(*pairs):
        right[normalize_axis(j, nb)] = left[normalize_axis(i, na)]
    summed = set(left) & set(right)
    output = "".join(c for c in left if c not in summed) + "".join(c for c in right if c not in summed)
    return f"{''.join(left)},{''.join(right)}->{output}", [a, b]


def _trace_bind(a: Any, offset: int = 0, axis1: int = 0, axis2: int = 1, dtype: Any = None, out: Any = None) -> Args:
    if offset != 0 or dtype is not None or out is not None:
        raise NotConvertible("trace with an offset, dtype= or out=")
    return {"operands": [a], "axis1": axis1, "axis2": axis2}


def _trace(args: Args) -> tuple[str, list[Any]]:
    (a,) = args["operands"]
    ndim = len(shape_of(a))
    i, j = normalize_axis(args["axis1"], ndim), normalize_axis(args["axis2"], ndim)
    if i == j:
        raise NotConvertible("trace over one axis twice (NumPy raises)")
    term = [LETTERS[k] for k in range(ndim)]
    term[j] = term[i]
    rest = "".join(c for k, c in enumerate(term) if k not in (i, j))
    return f"{''.join(term)}->{rest}", [a]


CONTRACTIONS = [
    contraction("einsum", np.einsum, _einsum_bind, _einsum),
    contraction("inner", np.inner, _inner_bind, _inner),
    contraction("tensordot", np.tensordot, _tensordot_bind, _tensordot),
    contraction("trace", np.trace, _trace_bind, _trace),
]

register(*CONTRACTIONS)
METHODS["trace"] = (CONTRACTIONS[-1], _trace_bind)
