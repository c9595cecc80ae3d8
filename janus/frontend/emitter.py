"""Typed MLIR emission for one function: SSA names, constants and structured ops.

Every op the frontend emits goes through an ``Emitter`` (tensor-level ops) or a ``Body``
(scalar code): the emitter knows the type of every SSA value defined so far, so an op
with an unknown operand, an operand of another type or a ``tensor.extract`` of the wrong
rank raises ``EmissionError`` when it is emitted (the tracer adds the traced Python
line), and each op carries the ``loc`` of the traced line it was emitted for. Ops are
printed as text; the compile parses the module once. The building blocks here are
dtype-generic (``linalg.generic`` with scalar bodies, reshapes by reassociation); the op
table composes them per NumPy op.
"""

from __future__ import annotations

import itertools
from typing import Callable, Iterable, Iterator, Protocol, Sequence

import numpy as np

from janus.dialects import GuardOp
from janus.dialects.opdef import JanusOp, Typed
from janus.ir import unit_dims_reassociation
from janus.frontend.values import ELEMENT_TYPES, EmissionError, NotConvertible, Shape, Tensor, check_dtype, is_static, tensor_type

#: literal arrays larger than this (and not splats) are written as hex bytes, not nested lists
MAX_LITERAL_SIZE = 4096
#: literal arrays of more bytes than this are not inlined into the module
MAX_HEX_LITERAL_BYTES = 1 << 20


def scalar_literal(value: object, dtype: np.dtype) -> str:
    """``value`` as an MLIR literal of element type ``dtype`` (bit pattern for inf/nan)."""
    if dtype.kind == "b":
        return "true" if value else "false"
    if dtype.kind == "i":
        return str(int(value))  # type: ignore[call-overload]
    if dtype.kind == "u":  # signless in MLIR: the same bits as the signed value
        return str(int(np.asarray(value).astype(dtype).view(f"i{dtype.itemsize}")))
    v = dtype.type(value)
    if np.isfinite(v):
        return f"{float(v):.17e}"
    bits = np.array(v).view(f"u{dtype.itemsize}").item()
    return f"0x{bits:X}"


def constant_op(value: object, dtype: np.dtype) -> str:
    """``arith.constant`` of a scalar (a bool's type is implied: ``true : i1`` does not parse)."""
    literal = scalar_literal(value, dtype)
    return f"arith.constant {literal}" if dtype.kind == "b" else f"arith.constant {literal} : {ELEMENT_TYPES[dtype.name]}"


def _nested_literal(array: np.ndarray) -> str:
    if array.ndim == 0:
        return scalar_literal(array.item(), array.dtype)
    return "[" + ", ".join(_nested_literal(a) for a in array) + "]"


#: ``arith.cmpi`` predicates of signed ints -> those of unsigned ones
UNSIGNED_PREDICATES = {"slt": "ult", "sle": "ule", "sgt": "ugt", "sge": "uge"}

#: A scalar type: a NumPy dtype or an MLIR type name (``index``, ``i64``).
ScalarType = np.dtype | str


def refuse_half_accumulator(dtype: np.dtype) -> None:
    """NumPy accumulates float16 sums and products in float32 (pairwise): an ``f16``
    accumulator would round at every step, so such a reduction runs in NumPy."""
    if dtype == np.float16:
        raise NotConvertible("a float16 reduction or product (NumPy accumulates it in float32)")


class Value(Protocol):
    """An SSA value: a ``Tensor``, or a function parameter of any type."""

    name: str
    type: str


def mlir_type(t: ScalarType) -> str:
    return t if isinstance(t, str) else ELEMENT_TYPES[t.name]


def affine_map(ndims: int, exprs: Sequence[int | str]) -> str:
    dims = ", ".join(f"d{i}" for i in range(ndims))
    results = ", ".join(str(e) for e in exprs)
    return f"affine_map<({dims}) -> ({results})>"


class Body:
    """Scalar ops: inside a ``linalg.generic`` region, or (``Emitter.scalars``) in the
    function body itself. Names and types are the emitter's."""

    def __init__(self, emitter: "Emitter", lines: list[str] | None = None, host: bool = False) -> None:
        self.em = emitter
        self.lines: list[str] = [] if lines is None else lines
        #: the ops run on the host (IREE's VM), not in a dispatch
        self.host = host

    def _op(self, text: str, result: ScalarType, uses: Sequence[tuple[str, ScalarType]] = ()) -> str:
        """``%v = text``: its operands checked, its result defined as ``result``."""
        name = self.em.fresh()
        self.em.append(f"{name} = {text}", [(n, mlir_type(t)) for n, t in uses], [(name, mlir_type(result))], self.lines)
        return name

    def op(self, opname: str, operands: Sequence[str], dtype: ScalarType, attrs: str = "",
           result: ScalarType | None = None) -> str:
        """``opname`` on operands of type ``dtype``; its result has that type unless ``result`` says."""
        t = mlir_type(dtype)
        return self._op(f"{opname} {attrs}{', '.join(operands)} : {t}", dtype if result is None else result,
                        [(x, t) for x in operands])

    def constant(self, value: object, dtype: ScalarType) -> str:
        if isinstance(dtype, str):  # index or an integer type named in MLIR
            return self._op(f"arith.constant {int(value)} : {dtype}", dtype)  # type: ignore[call-overload]
        return self._op(constant_op(value, dtype), dtype)

    def loop_index(self, dim: int) -> str:
        """The ``index`` of the iteration along loop dimension ``dim``."""
        return self._op(f"linalg.index {dim} : index", "index")

    def index_cast(self, x: str, src: str, dst: str) -> str:
        """``x`` between ``index`` and an integer type (MLIR type names)."""
        return self._op(f"arith.index_cast {x} : {src} to {dst}", dst, [(x, src)])

    def cmp(self, dtype: ScalarType, predicate: str | tuple[str, str, str], x: str, y: str) -> str:
        """Comparison with NumPy semantics: ordered floats (``!=`` unordered), signed ints; a
        ``predicate`` string is an ``arith.cmpi`` one (on integers or ``index``)."""
        if isinstance(predicate, str):
            return self.op("arith.cmpi", [x, y], dtype, f"{predicate}, ", result="i1")
        if not isinstance(dtype, str) and dtype.kind == "f":
            return self.op("arith.cmpf", [x, y], dtype, f"{predicate[0]}, ", result="i1")
        kind = "i" if isinstance(dtype, str) else dtype.kind
        chosen = predicate[1] if kind == "i" else UNSIGNED_PREDICATES.get(predicate[1], predicate[1]) if kind == "u" else predicate[2]
        return self.op("arith.cmpi", [x, y], dtype, f"{chosen}, ", result="i1")

    def select(self, condition: str, x: str, y: str, dtype: ScalarType) -> str:
        t = mlir_type(dtype)
        return self._op(f"arith.select {condition}, {x}, {y} : {t}", t, [(condition, "i1"), (x, t), (y, t)])

    def extract(self, x: Tensor, coords: Sequence[str]) -> str:
        """The element of ``x`` at ``index`` values ``coords`` (one per dim)."""
        if len(coords) != x.ndim:
            raise EmissionError(f"tensor.extract of {x.name} ({x.type}) with {len(coords)} indices")
        return self._op(f"tensor.extract {x.name}[{', '.join(coords)}] : {x.type}", x.dtype,
                        [(x.name, x.type), *((c, "index") for c in coords)])

    def bitcast(self, x: str, src: ScalarType, dst: str) -> str:
        """``x``'s bits reinterpreted as the same-width MLIR type ``dst`` (a float's sign bit)."""
        s = mlir_type(src)
        return self._op(f"arith.bitcast {x} : {s} to {dst}", dst, [(x, s)])

    def cast(self, x: str, src: np.dtype, dst: np.dtype) -> str:
        """NumPy's ``astype`` on one element (float to int truncates, nonzero is True)."""
        if src == dst:
            return x
        if dst.kind == "b":
            return self.cmp(src, ("une", "ne", "ne"), x, self.constant(0, src))
        if self.host and (src == np.float64 and (dst.kind != "f" or dst.itemsize < 8) or np.float16 in (src, dst)):
            return self._in_dispatch(x, src, dst)
        s, d = ELEMENT_TYPES[src.name], ELEMENT_TYPES[dst.name]
        if src.kind == "f" and dst.kind == "f":
            opname = "arith.extf" if src.itemsize < dst.itemsize else "arith.truncf"
        elif dst.kind == "f":
            opname = "arith.sitofp" if src.kind == "i" else "arith.uitofp"
        elif src.kind == "f":
            return self._float_to_int(x, src, dst)
        elif src.itemsize == dst.itemsize and src.kind != "b":
            return self._op(f"arith.bitcast {x} : {s} to {d}", dst, [(x, s)]) if s != d else x  # int8 <-> uint8: the same bits
        else:
            opname = "arith.trunci" if src.itemsize > dst.itemsize else "arith.extsi" if src.kind == "i" else "arith.extui"
        return self._op(f"{opname} {x} : {s} to {d}", dst, [(x, s)])

    def _float_to_int(self, x: str, src: np.dtype, dst: np.dtype) -> str:
        """NumPy's C cast (truncation toward zero) as C compilers emit it on x86: the narrow
        ints and int32 through a signed ``i32`` conversion, uint32 through ``i64``, so that
        ``-1.0`` becomes 255 in ``uint8`` as in NumPy (LLVM's ``fptoui`` of a negative is
        poison); uint64 by ``fptoui`` from 2**63 up, else signed. Values outside the
        target's range are undefined in C (NumPy warns); these follow the same instructions."""
        s, d = ELEMENT_TYPES[src.name], ELEMENT_TYPES[dst.name]
        if dst == np.uint64:
            limit = min(2.0 ** 63, float(np.finfo(src).max))  # float16 stops at 65504
            big = self.cmp(src, ("oge", "", ""), x, self.constant(limit, src))
            signed = self._op(f"arith.fptosi {x} : {s} to i64", "i64", [(x, s)])
            unsigned = self._op(f"arith.fptoui {x} : {s} to i64", "i64", [(x, s)])
            return self.select(big, unsigned, signed, "i64")
        via = "i64" if dst.itemsize == 8 or dst == np.uint32 else "i32"
        wide = self._op(f"arith.fptosi {x} : {s} to {via}", via, [(x, s)])
        return wide if via == d else self._op(f"arith.trunci {wide} : {via} to {d}", dst, [(wide, via)])

    def _in_dispatch(self, x: str, src: np.dtype, dst: np.dtype) -> str:
        """``cast`` in a 0-d ``linalg.generic``: IREE 3.13's VM has no f64 -> f32 truncation,
        no f64 -> integer conversion and no f16 at all ("failed to legalize arith.truncf")
        for host code."""
        em = self.em
        cast = em.generic(0, (), [(em.from_scalar(x, src), [])], em.empty((), dst), [],
                          lambda b, args: b.cast(args[0], src, dst))
        return em.scalar(cast)


BodyFn = Callable[[Body, list[str]], str]


class Emitter:
    """Collects the ops of one function body, in order."""

    def __init__(self, guard_ids: Iterator[int] | None = None) -> None:
        self.lines: list[str] = []
        #: constants made while tracing a region (a loop body, a branch side) that are
        #: values of the whole function: printed first, so a rolled-back region keeps them
        self.hoisted: list[str] = []
        #: the body's own lines, where local arrays may be updated in place (an update is a new
        #: SSA value under the old name, so a ``janus.grad`` function's updates differentiate too)
        self.body: list[str] = self.lines
        #: id of a data-dependent branch side's lines -> the lines around that branch: an
        #: in-place update there is joined by the ``scf.if`` (a loop body's lines are not here)
        self.sides: dict[int, list[str]] = {}
        #: an array updated in place -> the array it was before its first update (a recursive
        #: function's threaded parameters are returned as updates of themselves)
        self.updated: dict[Tensor, Tensor] = {}
        self._count = 0
        self._guard_ids = guard_ids if guard_ids is not None else itertools.count()
        #: symbol of each ``?`` dim -> the ``index`` SSA value holding its size
        self.dims: dict[str, str] = {}
        #: arrays this function made: None for a fresh buffer, else the array it is a view of
        #: (``mutation`` updates only fresh, unaliased ones in place)
        self.provenance: dict[Tensor, Tensor | None] = {}
        #: a view -> (its operand, NumPy's making of it from the operand's array) (``registry.apply``)
        self.replays: dict[Tensor, tuple[Tensor, Callable[[np.ndarray], object]]] = {}
        #: the MLIR type of every SSA value of the function defined so far
        self.types: dict[str, str] = {}
        #: `` loc(...)`` of the traced Python line the next ops are emitted for ('' for none)
        self.loc = ""

    def sibling(self) -> "Emitter":
        """An emitter for another function of the same module (guard ids stay module-unique)."""
        return Emitter(self._guard_ids)

    def in_place_region(self) -> bool:
        """Whether the current lines are the body's or a branch side's within it (no loop)."""
        lines: list[str] | None = self.lines
        while lines is not self.body:
            lines = self.sides.get(id(lines))
            if lines is None:
                return False
        return True

    def fresh(self) -> str:
        self._count += 1
        return f"%v{self._count}"

    # ---- the typed core: every op is appended here -----------------------------------
    def define(self, *values: Value) -> None:
        """Values defined without an op of this function: its parameters."""
        for t in values:
            self.types[t.name] = t.type

    def check(self, name: str, type_: str) -> None:
        """``EmissionError`` unless ``name`` is a value of this function of type ``type_``."""
        known = self.types.get(name)
        if known is None:
            raise EmissionError(f"operand {name} ({type_}) is not a value of this function")
        if known != type_:
            raise EmissionError(f"operand {name} is a {known}, used as a {type_}")

    def append(self, text: str, uses: Sequence[Typed] = (), defines: Sequence[Typed] = (),
               into: list[str] | None = None) -> None:
        """Append the op ``text`` (to ``into``, default the body) after checking the
        ``(name, type)`` operands it ``uses``; record the values it ``defines``."""
        for name, type_ in uses:
            self.check(name, type_)
        self.types.update(defines)
        (self.lines if into is None else into).append(text + self.loc)

    def emit(self, rhs: str, shape: Shape, dtype: np.dtype, operands: Sequence[Tensor] = (),
             scalars: Sequence[Typed] = ()) -> Tensor:
        """``%v = rhs``, a tensor of ``shape`` and ``dtype`` computed from tensor ``operands``
        and ``(name, type)`` ``scalars``."""
        result = Tensor(self.fresh(), shape, dtype)
        self.append(f"{result.name} = {rhs}", [*((t.name, t.type) for t in operands), *scalars], [(result.name, result.type)])
        return result

    def argument(self, type_: str) -> str:
        """A new block argument of ``type_`` (of a region the caller writes)."""
        name = self.fresh()
        self.types[name] = type_
        return name

    def scalars(self) -> Body:
        """A ``Body`` emitting scalar code into this function's body."""
        return Body(self, self.lines, host=True)

    # ---- dynamic dims -------------------------------------------------------------------
    def bind_dim(self, symbol: str, source: Tensor, dim: int) -> None:
        """Record that ``?`` dims named ``symbol`` have the size of ``source``'s dim ``dim``."""
        if symbol not in self.dims:
            self.dims[symbol] = self.dim(source, dim)

    def dim(self, x: Tensor, dim: int) -> str:
        """The ``index`` size of ``x``'s dim ``dim`` (``tensor.dim``)."""
        index, name = self.index_constant(dim), self.fresh()
        self.append(f"{name} = tensor.dim {x.name}, {index} : {x.type}", [(x.name, x.type), (index, "index")],
                    [(name, "index")])
        return name

    def size(self, d: int | str) -> int | str:
        """A dim's size: an int, or the ``index`` value bound to its symbol."""
        return self.dims[d] if isinstance(d, str) else d

    def empty(self, shape: Shape, dtype: np.dtype) -> Tensor:
        """``tensor.empty`` of ``shape``, its ``?`` sizes taken from the bound dims."""
        sizes = [self.dims[d] for d in shape if isinstance(d, str)]
        return self.emit(f"tensor.empty({', '.join(sizes)}) : {tensor_type(shape, dtype)}", shape, dtype, (), _indices(sizes))

    # ---- constants and initial values -------------------------------------------------
    def function_lines(self) -> list[str]:
        """The body of the function: hoisted constants, then the ops in order."""
        return [*self.hoisted, *self.lines]

    def literal(self, value: object, hoisted: bool = False) -> Tensor:
        """A constant tensor holding ``value`` (a NumPy array or scalar); ``hoisted``: at
        the top of the function, whatever region is being traced."""
        array = np.asarray(value)
        dtype = check_dtype(array.dtype)
        flat = array.reshape(-1)
        if array.size and (flat == flat[0]).all() and not (dtype.kind == "f" and np.isnan(flat).any()):
            text = scalar_literal(flat[0], dtype)
        elif array.size <= MAX_LITERAL_SIZE:
            text = _nested_literal(array)
        elif dtype.kind != "b" and array.nbytes <= MAX_HEX_LITERAL_BYTES:  # MLIR's dense hex form: little-endian bytes
            text = f'"0x{np.ascontiguousarray(array, dtype.newbyteorder("<")).tobytes().hex().upper()}"'
        else:
            raise NotConvertible(f"a constant array of {array.size} elements is too large to inline")
        ttype = tensor_type(array.shape, dtype)
        if not hoisted:
            return self.emit(f"arith.constant dense<{text}> : {ttype}", array.shape, dtype)
        tensor = Tensor(self.fresh(), array.shape, dtype)
        self.append(f"{tensor.name} = arith.constant dense<{text}> : {ttype}", defines=[(tensor.name, ttype)],
                    into=self.hoisted)
        return tensor

    def filled(self, shape: Shape, dtype: np.dtype, value: object) -> Tensor:
        """A fresh tensor of ``shape`` holding ``value`` (an init for ``outs``)."""
        return self.fill(self.scalars().constant(value, dtype), self.empty(shape, dtype))

    def fill(self, scalar: str, init: Tensor) -> Tensor:
        """``init``'s shape filled with ``scalar`` (of its element type)."""
        element = ELEMENT_TYPES[init.dtype.name]
        return self.emit(f"linalg.fill ins({scalar} : {element}) outs({init.name} : {init.type}) -> {init.type}",
                         init.shape, init.dtype, [init], [(scalar, element)])

    # ---- structured ops ---------------------------------------------------------------
    def generic(
        self,
        space: int,
        reductions: Sequence[int],
        inputs: Sequence[tuple[Tensor, Sequence[int | str]]],
        init: Tensor,
        out_exprs: Sequence[int | str],
        body: BodyFn,
    ) -> Tensor:
        """``linalg.generic`` over ``space`` loops; ``body(b, [inputs..., acc])`` yields."""
        if reductions:
            refuse_half_accumulator(init.dtype)
        maps = [affine_map(space, exprs) for _, exprs in inputs] + [affine_map(space, out_exprs)]
        iterators = ", ".join('"reduction"' if i in reductions else '"parallel"' for i in range(space))
        b = Body(self)
        types = [ELEMENT_TYPES[t.dtype.name] for t, _ in inputs] + [ELEMENT_TYPES[init.dtype.name]]
        args = [self.argument(t) for t in types]
        result = body(b, args)
        self.check(result, types[-1])
        ins = ""
        if inputs:
            ins = f"ins({', '.join(t.name for t, _ in inputs)} : {', '.join(t.type for t, _ in inputs)}) "
        block = ", ".join(f"{a}: {t}" for a, t in zip(args, types))
        region = "\n".join(["{", f"^bb0({block}):", *b.lines, f"linalg.yield {result} : {types[-1]}", f"}} -> {init.type}"])
        head = f"linalg.generic {{indexing_maps = [{', '.join(maps)}], iterator_types = [{iterators}]}} "
        return self.emit(f"{head}{ins}outs({init.name} : {init.type}) {region}", init.shape, init.dtype,
                         [*(t for t, _ in inputs), init])

    def elementwise(self, inputs: Sequence[Tensor], shape: Shape, dtype: np.dtype, body: BodyFn) -> Tensor:
        """Elementwise ``body`` with NumPy broadcasting of ``inputs`` to ``shape``.

        On 0-d operands the body is emitted as scalar code between ``tensor.extract`` and
        ``tensor.from_elements`` (which canonicalize folds away): IREE would launch a
        dispatch for a 0-d ``linalg.generic``, about 100x the cost of host scalar code.
        Bodies read only the input elements, never the accumulator.
        """
        if not shape:
            return self.from_scalar(body(self.scalars(), [self.scalar(t) for t in inputs]), dtype)
        rank = len(shape)

        def exprs(t: Tensor) -> list[int | str]:
            lead = rank - t.ndim
            return [0 if d == 1 and shape[lead + i] != 1 else f"d{lead + i}" for i, d in enumerate(t.shape)]

        init = self.empty(shape, dtype)
        return self.generic(rank, (), [(t, exprs(t)) for t in inputs], init, [f"d{i}" for i in range(rank)], body)

    def matmul(self, a: Tensor, b: Tensor) -> Tensor:
        refuse_half_accumulator(a.dtype)
        shape = (a.shape[0], b.shape[1])
        if a.shape[1] == 1:  # an outer product: elementwise, fused by IREE with its consumers
            mul = "arith.mulf" if a.dtype.kind == "f" else "arith.muli"
            return self.elementwise([a, b], shape, a.dtype, lambda body, x: body.op(mul, x[:2], a.dtype))
        return self.structured("linalg.matmul", [a, b], self.filled(shape, a.dtype, 0))

    def structured(self, opname: str, ins: Sequence[Tensor], init: Tensor, attrs: str = "") -> Tensor:
        """A destination-style op, ``opname {attrs} ins(...) outs(init)``, of ``init``'s type."""
        head = f"{opname} {{{attrs}}}" if attrs else opname
        return self.emit(f"{head} ins({', '.join(t.name for t in ins)} : {', '.join(t.type for t in ins)}) "
                         f"outs({init.name} : {init.type}) -> {init.type}", init.shape, init.dtype, [*ins, init])

    def transpose(self, x: Tensor, perm: Sequence[int]) -> Tensor:
        shape = tuple(x.shape[p] for p in perm)
        init = self.empty(shape, x.dtype)
        perm_text = ", ".join(str(p) for p in perm)
        return self.emit(
            f"linalg.transpose ins({x.name} : {x.type}) outs({init.name} : {init.type}) permutation = [{perm_text}]",
            shape,
            x.dtype,
            [x, init],
        )

    def _reassociate(self, op: str, x: Tensor, groups: list[list[int]], shape: Shape) -> Tensor:
        text = "[" + ", ".join("[" + ", ".join(map(str, g)) + "]" for g in groups) + "]"
        sizes = [self.size(d) for d in shape] if op == "tensor.expand_shape" else []
        extra = f" output_shape [{', '.join(map(str, sizes))}]" if sizes else ""
        return self.emit(f"{op} {x.name} {text}{extra} : {x.type} into {tensor_type(shape, x.dtype)}", shape, x.dtype, [x],
                         _indices(sizes))

    def insert_unit_dims(self, x: Tensor, kept: Sequence[int], shape: Shape) -> Tensor:
        """``x`` reshaped to ``shape``: the same dims, at positions ``kept``, plus unit dims."""
        if x.shape == shape:
            return x
        return self._reassociate("tensor.expand_shape", x, unit_dims_reassociation(x.shape, kept, len(shape)), shape)

    def drop_unit_dims(self, x: Tensor, kept: Sequence[int]) -> Tensor:
        """``x`` without its unit dims other than those at positions ``kept``."""
        shape = tuple(x.shape[k] for k in kept)
        if x.shape == shape:
            return x
        return self._reassociate("tensor.collapse_shape", x, unit_dims_reassociation(shape, kept, x.ndim), shape)

    def reshape(self, x: Tensor, shape: tuple[int, ...]) -> Tensor:
        """Row-major reshape: collapse to one dimension, then expand."""
        if x.shape == shape:
            return x
        flat = x if x.ndim == 1 else (
            self.insert_unit_dims(x, [], (1,)) if x.ndim == 0 else self._reassociate("tensor.collapse_shape", x, [list(range(x.ndim))], (x.size,))
        )
        if len(shape) == 0:
            return self.drop_unit_dims(flat, [])
        if len(shape) == 1:
            return flat
        return self._reassociate("tensor.expand_shape", flat, [list(range(len(shape)))], shape)

    def collapse_leading(self, x: Tensor, k: int, size: int | str) -> Tensor:
        """``x`` with its first ``k`` dims as one of ``size`` (their product: an int, or a bound symbol)."""
        groups = [list(range(k)), *([i] for i in range(k, x.ndim))]
        return self._reassociate("tensor.collapse_shape", x, groups, (size, *x.shape[k:]))

    def product_dim(self, shape: Shape, symbol: str) -> int | str:
        """The number of elements of ``shape``: an int, or with ``?`` dims ``symbol`` bound to it."""
        if is_static(shape):
            return int(np.prod(shape, dtype=np.int64))
        b, count = self.scalars(), self.index_constant(1)
        for d in shape:
            count = b.op("arith.muli", [count, self.dims[d] if isinstance(d, str) else self.index_constant(d)], "index")
        self.dims[symbol] = count
        return symbol

    def extract_slice(self, x: Tensor, offsets: Sequence[int | str], sizes: Sequence[int | str], strides: Sequence[int],
                      shape: Shape) -> Tensor:
        """The slice of ``x`` at ``offsets`` and ``sizes`` (ints, or ``index`` values), as ``shape``."""
        where = _slice(offsets, sizes, strides)
        return self.emit(f"tensor.extract_slice {x.name}{where} : {x.type} to {tensor_type(shape, x.dtype)}",
                         shape, x.dtype, [x], _indices(offsets, sizes))

    def insert_slice(self, x: Tensor, into: Tensor, offsets: Sequence[int | str], sizes: Sequence[int | str],
                     strides: Sequence[int]) -> Tensor:
        """``into`` with ``x`` written at ``offsets`` (ints, or ``index`` values)."""
        where = _slice(offsets, sizes, strides)
        return self.emit(f"tensor.insert_slice {x.name} into {into.name}{where} : {x.type} into {into.type}",
                         into.shape, into.dtype, [x, into], _indices(offsets, sizes))

    def cast(self, x: Tensor, shape: Shape) -> Tensor:
        """``tensor.cast`` of ``x`` to the compatible ``shape``."""
        return self.emit(f"tensor.cast {x.name} : {x.type} to {tensor_type(shape, x.dtype)}", shape, x.dtype, [x])

    def concat(self, parts: Sequence[Tensor], axis: int, shape: tuple[int, ...]) -> Tensor:
        if len(parts) == 1:
            return parts[0]
        names, types = ", ".join(p.name for p in parts), ", ".join(p.type for p in parts)
        out = tensor_type(shape, parts[0].dtype)
        return self.emit(f"tensor.concat dim({axis}) {names} : ({types}) -> {out}", shape, parts[0].dtype, parts)

    # ---- speculation --------------------------------------------------------------------
    def scalar_condition(self, x: Tensor) -> str:
        """The ``i1`` truth of a one-element bool tensor."""
        return self.scalars().extract(x, [self.index_constant(0) for _ in x.shape])

    def scalar(self, x: Tensor) -> str:
        """The element of a 0-d tensor, as a scalar SSA value."""
        return self.scalars().extract(x, [])

    def from_scalar(self, scalar: str, dtype: np.dtype, kind: type[Tensor] = Tensor) -> Tensor:
        """A 0-d tensor (``kind``: ``Weak`` for a Python scalar) holding ``scalar``."""
        name = self.fresh()
        self.tensor_of(name, scalar, dtype)
        return kind(name, (), dtype)

    def tensor_of(self, name: str, scalar: str, dtype: np.dtype) -> None:
        """``name = `` the 0-d tensor of ``scalar``. Bools use ``linalg.fill``: IREE 3.13
        rejects ``tensor.from_elements`` of an ``i1`` computed at run time (its i1 -> i8
        storage rewrite leaves the op ill-typed)."""
        t = tensor_type((), dtype)
        if dtype.kind == "b":
            empty = self.empty((), dtype)
            self.append(f"{name} = linalg.fill ins({scalar} : i1) outs({empty.name} : {t}) -> {t}",
                        [(scalar, "i1"), (empty.name, t)], [(name, t)])
        else:
            self.append(f"{name} = tensor.from_elements {scalar} : {t}", [(scalar, ELEMENT_TYPES[dtype.name])], [(name, t)])

    def index_constant(self, value: int) -> str:
        return self.scalars().constant(value, "index")

    def negate(self, condition: str) -> str:
        b = self.scalars()
        return b.op("arith.xori", [condition, b.constant(True, np.dtype(bool))], "i1")

    def janus(self, op: type[JanusOp], operands: dict[str, Typed | Sequence[Typed] | None], attributes: dict[str, object],
              result_types: Sequence[str] = (), into: list[str] | None = None) -> str:
        """A janus op printed from its declaration (``JanusOp.asm``), appended to ``into``
        (default: the body); the name of its results (``%v`` or ``%v:N``), '' without any."""
        name = self.fresh() if result_types else ""
        head = f"{name}{f':{len(result_types)}' if len(result_types) > 1 else ''} = " if name else ""
        uses = [u for v in operands.values() if v is not None for u in ([v] if isinstance(v, tuple) else v)]
        self.append(head + op.asm(operands, attributes, result_types), uses, result_values(name, result_types), into)
        return name

    def call(self, callee: str, operands: Sequence[Tensor], result_types: Sequence[str]) -> str:
        """``func.call @callee``; the name of its results (``%v:N``)."""
        name = self.fresh()
        signature = f"({', '.join(t.type for t in operands)}) -> ({', '.join(result_types)})"
        self.append(f"{name}:{len(result_types)} = func.call @{callee}({', '.join(t.name for t in operands)}) : {signature}",
                    [(t.name, t.type) for t in operands], [(f"{name}#{i}", t) for i, t in enumerate(result_types)])
        return name

    def guard(self, condition: str, kind: str, source: str) -> int:
        """A ``janus.guard``; returns its module-unique id."""
        gid = next(self._guard_ids)
        self.janus(GuardOp, {"condition": (condition, "i1")}, {"id": gid, "kind": kind, "source": source})
        return gid

    def scf_if(self, name: str, condition: str, then_lines: list[str], else_lines: list[str],
               results: Sequence[tuple[Tensor, Tensor]]) -> None:
        """``name:N = scf.if`` yielding each pair's first value on the true side, second on the false.

        0-d results are yielded as scalars (see ``elementwise``) and rebuilt after the op
        under their ``joined_name``.
        """
        types = ", ".join(ELEMENT_TYPES[a.dtype.name] if not a.shape else a.type for a, _ in results)

        def region(lines: list[str], values: list[Tensor]) -> list[str]:
            outer, self.lines = self.lines, list(lines)
            names = [self.scalar(v) if not v.shape else v.name for v in values]
            for v in values:
                if v.shape:
                    self.check(v.name, v.type)
            lines, self.lines = self.lines, outer
            yielded = f"scf.yield {', '.join(names)} : {types}" if values else "scf.yield"
            return [*lines, yielded]

        head = f"{name}:{len(results)} = " if results else ""
        arrow = f" -> ({types})" if results else ""
        then_region, else_region = region(then_lines, [a for a, _ in results]), region(else_lines, [b for _, b in results])
        result_types = [ELEMENT_TYPES[a.dtype.name] if not a.shape else a.type for a, _ in results]
        self.append("\n".join([f"{head}scf.if {condition}{arrow} {{", *then_region, "} else {", *else_region, "}"]),
                    [(condition, "i1")], [(f"{name}#{i}", t) for i, t in enumerate(result_types)])
        for i, (a, _) in enumerate(results):
            if not a.shape:
                self.tensor_of(joined_name(name, i, ()), f"{name}#{i}", a.dtype)


    # ---- loops (``trace/loops.py``): a body traced as region ``lines`` on block arguments ----
    def scf_for(self, iv: str, bounds: tuple[str, str, str], carried: Sequence[tuple[Tensor, Tensor]],
                lines: list[str], yields: Sequence[Tensor]) -> str:
        """``scf.for`` of ``iv`` over the ``index`` ``bounds`` (lower, upper, step); each
        (block argument, initial value) pair of ``carried`` is an ``iter_arg`` the body
        ``yields`` anew; the name of its results."""
        name = self.fresh()
        head, iter_args = "", ""
        if carried:
            types = ", ".join(t.type for _, t in carried)
            head = f"{name}:{len(carried)} = "
            iter_args = f" iter_args({', '.join(f'{p.name} = {o.name}' for p, o in carried)}) -> ({types})"
            lines = [*lines, f"scf.yield {', '.join(y.name for y in yields)} : {types}"]
        lower, upper, step = bounds
        self.append("\n".join([f"{head}scf.for {iv} = {lower} to {upper} step {step}{iter_args} {{", *lines, "}"]),
                    [(b, "index") for b in bounds] + _typed(o for _, o in carried) + _typed(yields), _results(name, carried))
        return name

    def do_while(self, first: str, carried: Sequence[tuple[Tensor, Tensor]], lines: list[str], condition: str,
                 yields: Sequence[Tensor]) -> str:
        """A do-while: the body ``lines`` in the before-region of an ``scf.while`` that goes on
        while ``condition``, entered only if the ``first`` test passed (IREE's stream
        conversion rejects a while whose before-region arguments and results differ in
        number, which this form never has); the name of its results."""
        name = self.fresh()
        types = ", ".join(t.type for _, t in carried)
        inits = ", ".join(f"{p.name} = {o.name}" for p, o in carried)
        after = [self.argument(p.type) for p, _ in carried]
        head = f"{name}:{len(carried)} = " if carried else ""
        loop_name = self.fresh()
        signature, yield_types = (f"({types}) -> ({types})", f" : {types}") if carried else ("() -> ()", "")
        self.append("\n".join([
            f"{head}scf.if {first}{f' -> ({types})' if carried else ''} {{",
            f"{loop_name}{f':{len(carried)}' if carried else ''} = scf.while ({inits}) : {signature} {{" if carried
            else f"scf.while () : {signature} {{",
            *lines,
            f"scf.condition({condition}) {', '.join(y.name for y in yields)}{yield_types}".rstrip(),
            "} do {",
            f"^bb0({', '.join(f'{a}: {p.type}' for a, (p, _) in zip(after, carried))}):",
            f"scf.yield {', '.join(after)}{yield_types}".rstrip(),
            "}",
            f"scf.yield {', '.join(f'{loop_name}#{k}' for k in range(len(carried)))}{yield_types}".rstrip(),
            "} else {",
            f"scf.yield {', '.join(o.name for _, o in carried)}{yield_types}".rstrip(),
            "}",
        ]), [(first, "i1"), (condition, "i1"), *_typed(o for _, o in carried), *_typed(yields)], _results(name, carried))
        return name

def _slice(offsets: Sequence[int | str], sizes: Sequence[int | str], strides: Sequence[int]) -> str:
    return "".join(f"[{', '.join(map(str, values))}]" for values in (offsets, sizes, strides)).replace("][", "] [")


def _indices(*groups: Sequence[int | str]) -> list[Typed]:
    """The ``index`` SSA values among static sizes and offsets."""
    return [(v, "index") for values in groups for v in values if isinstance(v, str)]


def _typed(values: Iterable[Tensor]) -> list[Typed]:
    return [(t.name, t.type) for t in values]


def _results(name: str, carried: Sequence[tuple[Tensor, Tensor]]) -> list[Typed]:
    return [(f"{name}#{k}", t.type) for k, (_, t) in enumerate(carried)]


def result_values(name: str, types: Sequence[str]) -> list[Typed]:
    """The (name, type) of each result of an op named ``name``: ``name``, or ``name#i`` for several."""
    return [(name, types[0])] if len(types) == 1 else [(f"{name}#{i}", t) for i, t in enumerate(types)]


def joined_name(base: str, index: int, shape: Shape) -> str:
    """The SSA name of result ``index`` of the ``scf.if`` named ``base`` (0-d: its rebuilt tensor)."""
    return f"{base}#{index}" if shape else f"{base}_{index}"


def function_text(name: str, inputs: Sequence[Tensor], outputs: Sequence[Tensor], lines: Sequence[str],
                  private: bool = False, attributes: str = "") -> str:
    """A ``func.func`` returning ``outputs``, with ``lines`` as its body."""
    arg_text = ", ".join(f"{t.name}: {t.type}" for t in inputs)
    result_types = ", ".join(t.type for t in outputs)
    ret = f"return {', '.join(t.name for t in outputs)} : {result_types}" if outputs else "return"
    body = "\n    ".join([*lines, ret])
    visibility = "private " if private else ""
    attrs = f" attributes {{{attributes}}}" if attributes else ""
    return f"  func.func {visibility}@{name}({arg_text}) -> ({result_types}){attrs} {{\n    {body}\n  }}"
