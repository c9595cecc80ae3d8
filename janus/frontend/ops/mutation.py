"""In-place updates of arrays local to the trace: ``a op= b``, ``a[key] = v``, ``a[key] op= v``
(boolean masks too, as selects), ``np.add.at``, ``np.put_along_axis``, ``np.fill_diagonal``.

Graph values are immutable SSA tensors, so an update makes a new tensor that replaces the
old one wherever the traced code can see it (the locals, stacks and cells of every frame
being traced, and the lists and dicts they reach). That is NumPy's behaviour only when the
array owns its buffer and no other array shares it, so the update is refused
(``NotConvertible``) when the array is not known to be fresh (an argument, a loop or
branch result: ``Emitter.provenance``), may be a view (basic slicing, reshape,
transpose), has a live view, is held where substitution cannot reach (a tuple, an
iterator, a closure, the heap), or is updated inside an ``scf`` region. Arrays read from
the heap are ``heap_access``'s in-place case. Results keep the target's shape and dtype
(NumPy's ``same_kind`` casting; only the right side broadcasts).
"""

from __future__ import annotations

import dataclasses
import operator
from typing import TYPE_CHECKING, Any

import numpy as np

from janus.frontend.ops import advanced
from janus.frontend.ops import indexing
from janus.frontend.ops import op_table
from janus.frontend.ops import registry
from janus.frontend.trace.branches import Cell, SymFunction, SymIter
from janus.frontend.values import NotConvertible, Tensor, Weak, contains_tensor

if TYPE_CHECKING:
    from janus.frontend.emitter import Emitter
    from janus.frontend.trace.frame import Frame
    from janus.frontend.trace.interpreter import Tracer

_INPLACE = {"+=": operator.iadd, "-=": operator.isub, "*=": operator.imul, "/=": operator.itruediv, "@=": operator.imatmul}

#: the bytecode after ``BINARY_OP`` in ``a[k] op= v``: the result is stored back into ``a[k]``
#: (3.12+: ``a[i:j] op= v`` swaps three values, then STORE_SLICE, decoded as BUILD_SLICE, STORE_SUBSCR)
_STORE_BACK = (("SWAP", "SWAP", "STORE_SUBSCR"), ("SWAP", "SWAP", "SWAP", "BUILD_SLICE", "STORE_SUBSCR"))


def symbolic_region(tracer: "Tracer") -> bool:
    """Whether the trace is in a loop body or a branch side of the graph: code there runs
    as often as the graph says, so a NumPy array written there must become a graph value
    (written at trace time, it would be written once, whatever the run)."""
    return bool(tracer.loops.bodies or tracer.loops.active) or any(f.forking for f in tracer.frames)


def inplace(tracer: "Tracer", frame: "Frame", offset: int, symbol: str, a: Any, b: Any) -> "Tensor | MaskedUpdate | None":
    """``a op= b`` on a non-heap array (None when ``a`` is not an array: Python rebinds)."""
    local = isinstance(a, np.ndarray) and tracer.local_arrays.get(id(a)) is a
    if local and (contains_tensor(b) or symbolic_region(tracer)):
        a = as_graph_constant(tracer, a, f"in-place {symbol}")  # ``out = np.zeros(..); out += x``: now a graph value
    elif isinstance(a, np.ndarray):  # a constant the trace computed: NumPy updates it, aliases included
        if contains_tensor(b):
            raise NotConvertible(f"in-place {symbol} of a traced value into a constant array")
        if symbolic_region(tracer):
            raise NotConvertible(f"in-place {symbol} of a constant array in a loop body or branch side of the graph")
        if symbol not in _INPLACE:
            raise NotConvertible(f"in-place {symbol} on a constant array")
        return _INPLACE[symbol](a, b)
    if isinstance(a, MaskedRead):
        return _masked_inplace(tracer, frame, offset, symbol, a, b)  # type: ignore[return-value]
    if not isinstance(a, Tensor) or isinstance(a, Weak):
        return None
    result = op_table.conform(tracer.em, tracer.binary(symbol[:-1], a, b), a, f"in-place {symbol}")
    if _stores_back(frame, offset) and not _reachable(tracer, a):
        return result  # the temporary of ``a[k] op= v``: STORE_SUBSCR writes it into a
    if a.ndim == 0 and _references(tracer, a) > 1:
        raise NotConvertible(f"in-place {symbol} on a 0-d array that is also referenced elsewhere (NumPy scalar or array?)")
    replace(tracer, a, result, f"in-place {symbol}")
    return result


#: NumPy functions that call a ufunc, so that their ``out=`` casts as a ufunc's does
UFUNC_WRAPPERS = (np.clip,)


def with_out(tracer: "Tracer", op: Any, args: list[Any], kwargs: dict[str, Any]) -> Tensor:
    """``op(..., out=a)``: the result written into ``a`` as ``a[...] = result`` would (a
    ufunc's result broadcasts to ``a``, another op's must have its shape), and ``a`` returned."""
    rest = {k: v for k, v in kwargs.items() if k != "out"}
    out = kwargs["out"][0] if isinstance(kwargs["out"], tuple) and len(kwargs["out"]) == 1 else kwargs["out"]
    what = f"{op.name}(out=)"
    if isinstance(out, np.ndarray) and tracer.local_arrays.get(id(out)) is out:
        out = as_graph_constant(tracer, out, what)
    if not isinstance(out, Tensor) or isinstance(out, Weak):
        raise NotConvertible(f"{what} into a value other than an array local to the trace")
    result = registry.apply(tracer.em, op, args, rest)
    if not isinstance(op.eager, np.ufunc) and op.eager not in UFUNC_WRAPPERS and (op_table.shape_of(result), result.dtype) != (out.shape, out.dtype):
        raise NotConvertible(f"{what}: a {result.dtype} {op_table.shape_of(result)} result into a {out.dtype} {out.shape} array")
    new = op_table.conform(tracer.em, result, out, what)
    replace(tracer, out, new, what)
    return new


def setitem(tracer: "Tracer", target: Tensor, key: Any, value: Any, what: str = "item assignment") -> None:
    """``target[key] = value`` on an array local to the trace."""
    replace(tracer, target, assigned(tracer, target, key, value, what), what)


def assigned(tracer: "Tracer", target: Tensor, key: Any, value: Any, what: str = "item assignment") -> Tensor:
    """The array ``target`` would be after ``target[key] = value``."""
    if isinstance(target, Weak):
        raise NotConvertible(f"{what} on a Python scalar")
    if _is_mask(target, key):
        return _masked(tracer, target, key, value)
    if advanced.is_advanced(key):
        return advanced.scatter(tracer, target, key, value)
    return _insert(tracer, target, key, value)


def fill(tracer: "Tracer", target: Any, args: list[Any], kwargs: dict[str, Any]) -> None:
    """``a.fill(value)``: ``a[...] = value`` of one scalar (an array local to the trace, or
    one the trace made from static values)."""
    value = args[0] if len(args) == 1 else None
    if kwargs or len(args) != 1 or (value.ndim if isinstance(value, Tensor) else np.ndim(value)) != 0:
        raise NotConvertible("ndarray.fill takes one scalar")
    if isinstance(target, np.ndarray):
        return setitem_local_array(tracer, target, Ellipsis, args[0])
    return setitem(tracer, target, Ellipsis, args[0])


def sort(tracer: "Tracer", target: Any, args: list[Any], kwargs: dict[str, Any]) -> None:
    """``a.sort(...)``: ``a`` replaced by ``np.sort(a, ...)`` (the op table's entry)."""
    if isinstance(target, np.ndarray):
        if contains_tensor(args) or contains_tensor(kwargs):
            raise NotConvertible("ndarray.sort of an array made from static values, with graph arguments")
        target = as_graph_constant(tracer, target, "ndarray.sort")
    if isinstance(target, Weak):
        raise NotConvertible("ndarray.sort of a Python scalar")
    replace(tracer, target, registry.apply(tracer.em, registry.OPS["sort"], [target, *args], kwargs), "ndarray.sort")


#: ndarray methods that update their array in place
ARRAY_MUTATORS = {"fill": fill, "sort": sort}


def setitem_local_array(tracer: "Tracer", array: np.ndarray, key: Any, value: Any, what: str = "item assignment") -> None:
    """``array[key] = value`` into a NumPy array the trace made from static values (a
    one-hot ``x = np.zeros(n); x[i] = 1``). Static key and value, outside loop and branch
    regions: NumPy's write, now (the contents become a graph constant). Otherwise the array
    becomes a graph constant everywhere the trace sees it, updated as a local array."""
    if not symbolic_region(tracer) and not contains_tensor(key) and not contains_tensor(value):
        array[key] = value
        return
    setitem(tracer, as_graph_constant(tracer, array, what), key, value, what)


def as_graph_constant(tracer: "Tracer", array: np.ndarray, what: str) -> Tensor:
    """A NumPy array the trace made, as a local graph constant wherever the trace sees it
    (so that a graph value can be written into it)."""
    if found_in(tracer.heap.values.values(), array):
        raise NotConvertible(f"{what} into an array made from static values, also stored on the heap in this call")
    if any(isinstance(v, np.ndarray) and v is not array and np.may_share_memory(v, array) for v in _walk(_roots(tracer))):
        raise NotConvertible(f"{what} into an array made from static values that a view of it sees (NumPy updates both)")
    tensor = tracer.em.literal(array, hoisted=True)  # the array's value from before any region being traced
    tracer.em.provenance[tensor] = None
    substitute(tracer, array, tensor, what)  # type: ignore[arg-type]
    del tracer.local_arrays[id(array)]
    tracer.graph_constants += 1
    return tensor


def _is_mask(target: Tensor, key: Any) -> bool:
    """Whether ``key`` is one boolean array over the leading dims of ``target``."""
    dtype = key.dtype if isinstance(key, (Tensor, np.ndarray)) else None
    return dtype is not None and dtype.kind == "b" and 0 < key.ndim <= target.ndim and tuple(key.shape) == target.shape[: key.ndim]


def _masked(tracer: "Tracer", target: Tensor, mask: Any, value: Any) -> Tensor:
    """``target[mask] = value``: ``value`` where the mask is set, ``target`` elsewhere (the
    stored result of ``target[mask] op= v`` as it is)."""
    if isinstance(value, MaskedUpdate) and value.target is target and value.mask is mask:
        return value.updated
    what = "boolean-mask assignment"
    fill = _mask_operand(tracer.em, target, mask, value, what)
    return _select(tracer.em, target, mask, op_table.conform(tracer.em, fill, Tensor("", op_table.shape_of(fill), target.dtype), what))


def _mask_operand(em: "Emitter", target: Tensor, mask: Any, value: Any, what: str) -> Any:
    """``value`` of ``target[mask] = value`` (or ``op= value``) as an operand broadcasting
    over ``target``: ``target[mask]`` has the shape ``(count,) + trailing``, so ``value``
    must broadcast to it for every count, a leading dim being 1 (then dropped). A value
    with one entry per selected element has a count the graph does not know: refused."""
    shape, trailing = op_table.shape_of(value), target.shape[mask.ndim:]
    if len(shape) > len(trailing) + 1 or len(shape) == len(trailing) + 1 and shape[0] != 1:
        raise NotConvertible(f"{what} of an array of one value per selected element (a count the graph does not know)")
    if len(shape) == len(trailing) + 1:
        shape = shape[1:]
        value = em.reshape(value, shape) if isinstance(value, Tensor) else np.reshape(value, shape)
    if op_table.broadcast_shapes(shape, trailing) != trailing:
        raise NotConvertible(f"{what}: a value of shape {op_table.shape_of(value)} does not broadcast to the selection")
    return value


def _select(em: "Emitter", target: Tensor, mask: Any, value: Tensor) -> Tensor:
    """``value`` (broadcast over ``target``, of its dtype) where ``mask`` is set, ``target`` elsewhere."""
    if not isinstance(mask, Tensor):
        mask = em.literal(mask)
    if mask.ndim < target.ndim:
        mask = em.reshape(mask, mask.shape + (1,) * (target.ndim - mask.ndim))
    return em.elementwise([mask, value, target], target.shape, target.dtype, lambda b, v: b.select(v[0], v[1], v[2], target.dtype))


@dataclasses.dataclass(frozen=True)
class MaskedRead:
    """``target[mask]`` read by ``target[mask] op= v``: the selection's length is data
    dependent, so it is never made; the in-place op computes the whole updated array."""

    target: Tensor
    mask: Any


@dataclasses.dataclass(frozen=True)
class MaskedUpdate:
    """``target[mask] op= v`` before its store back: ``where(mask, target op v, target)``."""

    target: Tensor
    mask: Any
    updated: Tensor


#: the bytecode before ``BINARY_SUBSCR`` in ``a[k] op= v``: ``a`` and ``k`` kept for the store back
_READ_FOR_UPDATE = (("COPY", 2), ("COPY", 2))

#: in-place ops whose integer form may fail on an element (division by zero, a negative
#: power, an out-of-range shift): computed on the unselected elements too, so refused
_PARTIAL_INTEGER_OPS = frozenset({"//=", "%=", "**=", "<<=", ">>="})


def masked_read(tracer: "Tracer", frame: "Frame", offset: int, target: Any, key: Any) -> MaskedRead | None:
    """``target[key]`` at ``offset`` as the read of ``target[mask] op= v``, or None. A NumPy
    array the trace made, under a graph mask, becomes a local graph constant first."""
    static = isinstance(target, np.ndarray) and isinstance(key, Tensor) and tracer.local_arrays.get(id(target)) is target
    if not (static or isinstance(target, Tensor) and not isinstance(target, Weak)) or not _is_mask(target, key):
        return None
    at = frame.bc.index[offset]
    if tuple((ins.opname, ins.arg) for ins in frame.bc.instrs[max(at - 2, 0):at]) != _READ_FOR_UPDATE:
        return None
    return MaskedRead(as_graph_constant(tracer, target, "boolean-mask in-place update") if static else target, key)


def _masked_inplace(tracer: "Tracer", frame: "Frame", offset: int, symbol: str, read: MaskedRead, value: Any) -> MaskedUpdate:
    """``a[mask] op= v`` as ``where(mask, a op v, a)``, with NumPy's dtype rules for ``a[mask] op v``
    and in-place casting (a cast NumPy refuses runs in Python, which raises)."""
    what, target = f"boolean-mask in-place {symbol}", read.target
    if not _stores_back(frame, offset):
        raise NotConvertible(f"{what} whose result is not stored back")
    if symbol in _PARTIAL_INTEGER_OPS and target.dtype.kind in "iub":
        raise NotConvertible(f"{what} on a {target.dtype} array (NumPy computes only the selected elements)")
    operand = _mask_operand(tracer.em, target, read.mask, value, what)
    result = op_table.conform(tracer.em, tracer.binary(symbol[:-1], target, operand), target, what)
    return MaskedUpdate(target, read.mask, _select(tracer.em, target, read.mask, result))


def _insert(tracer: "Tracer", target: Tensor, key: Any, value: Any) -> Tensor:
    """Basic indexing (static or traced ints, slices): ``tensor.insert_slice``."""
    keys = key if isinstance(key, tuple) else (key,)
    if any(k is None for k in keys):
        raise NotConvertible("item assignment with a None (newaxis) index")
    for k in keys:
        if isinstance(k, Tensor) and (k.shape or k.dtype.kind != "i"):
            raise NotConvertible(f"item assignment with a {k.type} index")
    offsets, sizes, strides, kept = indexing.traced_plan(tracer, target, keys)
    part = Tensor("", tuple(sizes[d] for d in kept), target.dtype)
    source = op_table.conform(tracer.em, value, part, "item assignment")
    return tracer.em.insert_slice(source, target, offsets, [tracer.em.size(d) for d in sizes], strides)


def loop_fresh(tracer: "Tracer", frame: "Frame", originals: dict, placeholders: dict) -> list[Tensor]:
    """The placeholders a loop body may update in place: of fresh local arrays (made by the trace,
    not views) that the loop's frame holds at one place only, in a variable of its own (not
    in a list or dict: a recursion threads those, ``recursion.threaded``), with no live view,
    that no other frame, heap location or tree node holds."""
    provenance = tracer.em.provenance
    outside = list(_walk([[[f.locals, f.stack, f.cells] for f in tracer.frames if f is not frame],
                          list(tracer.heap.values.values()), list(tracer.tree_state.stored)]))
    viewed = {id(provenance.get(v)) for v in [*outside, *_walk([frame.locals, frame.stack, frame.cells])]
              if isinstance(v, Tensor) and provenance.get(v) is not None}
    held = list(originals.values())
    return [placeholders[path] for path, original in originals.items()
            if len(path) == 2 and original in provenance and provenance[original] is None and id(original) not in viewed
            and sum(v is original for v in held) == 1 and not any(v is original for v in outside)]


def _replace_in_loop(tracer: "Tracer", old: Tensor, new: Tensor, what: str) -> bool:
    """``old`` a carried fresh array of the loop body being traced (``loops.LoopBody``): its
    update substituted in the body's state and the frames it calls; False when it is not one."""
    where = tracer.loops.fresh.get(id(old))
    if where is None or tracer.em.lines is not where.lines:
        return False
    roots = [[where.frame.locals, where.frame.stack, where.frame.cells],
             [[f.locals, f.stack, f.cells] for f in tracer.frames[where.depth:]]]
    provenance = tracer.em.provenance
    if any(isinstance(v, Tensor) and v is not old and provenance.get(v) is old for v in _walk(roots)):
        raise NotConvertible(f"{what}: the array has a live view (NumPy would update the view too)")
    _substitute_frames([where.frame, *tracer.frames[where.depth:]], old, new, what)
    tracer.loops.fresh[id(new)] = where
    return True


def replace(tracer: "Tracer", old: Tensor, new: Tensor, what: str) -> None:
    """Make every place the trace can see hold ``new`` instead of ``old`` (or refuse)."""
    em = tracer.em
    provenance = em.provenance
    if _replace_in_loop(tracer, old, new, what):
        return
    if tracer.heap.argument_leaf(old) is not None:
        tracer.heap.update_argument(old, new, what)
        return
    if not em.in_place_region():
        raise NotConvertible(f"{what} on a local array inside a loop region in the graph")
    if old not in provenance:
        raise NotConvertible(f"{what} on an array not known to be local to the trace (an argument, a loop or branch result)")
    if provenance[old] is not None and _base_alive(tracer, old):
        raise NotConvertible(f"{what} on an array that may be a view of another array (slice, reshape, transpose)")
    heap = tracer.heap
    stored = [path for path, v in heap.values.items() if v is old and path in heap.written]  # ``self.w = np.zeros(d)``
    if found_in([v for path, v in heap.values.items() if path not in stored] + heap.appended(), old):
        raise NotConvertible(f"{what} on an array also stored on the heap in this call (inside a list, tuple or dict)")
    if found_in(tracer.tree_state.stored, old):
        raise NotConvertible(f"{what} on an array also stored on a tree node in this call")
    check_views(tracer, old, what)
    _check_outside_branch(tracer, old, what)
    substitute(tracer, old, new, what)
    for path in stored:  # the locations this call stored it to hold the updated array (committed after the call)
        heap.write(*heap.parents[path], new)
    provenance[new] = None
    em.updated[new] = em.updated.get(old, old)


def _outside_branch(tracer: "Tracer") -> int:
    """How many frames (outermost first) stand outside the innermost branch side being
    traced (0 outside branches): a side copies the state of its own frame only."""
    return next((i for i in range(len(tracer.frames) - 1, -1, -1) if tracer.frames[i].forking), 0)


def _check_outside_branch(tracer: "Tracer", old: Tensor, what: str) -> None:
    """Inside a branch side, refuse an array that frames outside the branch hold other than
    through the containers the side copied: the ``scf.if`` joins only the side's copies."""
    outside = tracer.frames[:_outside_branch(tracer)]
    copied = {key for originals in tracer.branch_copies for key in originals}
    roots = [[f.locals for f in outside], [f.stack for f in outside], [f.cells for f in outside]]
    if any(v is old for v in _walk(roots, copied)):
        raise NotConvertible(f"{what} inside a data-dependent branch on an array a calling function holds")


def join_fresh(em: "Emitter", joined: list[tuple[Tensor, Tensor, Tensor]]) -> None:
    """Mark the ``scf.if`` results that join two fresh arrays fresh too, so that they can be
    updated in place after the branch: each side's array is joined with one partner only
    (so aliases stay aliases) and no joined array is a view of it."""
    provenance = em.provenance
    partners: dict[int, set[int]] = {}
    for a, b, _ in joined:
        partners.setdefault(id(a), set()).add(id(b))
        partners.setdefault(id(b), set()).add(id(a))
    viewed = {id(provenance[v]) for a, b, _ in joined for v in (a, b) if provenance.get(v) is not None}
    for a, b, value in joined:
        if all(v in provenance and provenance[v] is None and len(partners[id(v)]) == 1 and id(v) not in viewed
               for v in (a, b)):
            provenance[value] = None
            if em.updated.get(a, a) is em.updated.get(b, b):
                em.updated[value] = em.updated.get(a, a)


def _base_alive(tracer: "Tracer", view: Tensor) -> bool:
    """Whether the array ``view`` is a view of can still be seen: the base itself, or another
    view of it (``softmax(x).T`` written into is a view of a dead temporary: it is not)."""
    base, provenance = tracer.em.provenance[view], tracer.em.provenance
    return any(v is base or v is not view and isinstance(v, Tensor) and provenance.get(v) is base for v in _walk(_roots(tracer)))


def check_views(tracer: "Tracer", base: Tensor, what: str) -> None:
    """Refuse when a view of ``base`` made by the trace is still reachable."""
    provenance = tracer.em.provenance
    for value in _walk(_roots(tracer)):
        if isinstance(value, Tensor) and value is not base and provenance.get(value) is base:
            raise NotConvertible(f"{what}: the array has a live view (NumPy would update the view too)")


def substitute(tracer: "Tracer", old: Tensor, new: Tensor, what: str) -> None:
    """Replace ``old`` by ``new`` in every frame being traced, and the lists and dicts they reach."""
    _substitute_frames(tracer.frames[_outside_branch(tracer):], old, new, what)  # the frames outside do not hold it (checked)


def _substitute_frames(frames: list["Frame"], old: Tensor, new: Tensor, what: str) -> None:
    rebuilt: dict[int, tuple] = {}
    for f in frames:
        _substitute(f.locals, old, new, what, rebuilt)
        _substitute(f.stack, old, new, what, rebuilt)
        for cell in f.cells.values():
            if isinstance(cell, Cell) and cell.contents is old:
                cell.contents = new
            elif isinstance(cell, Cell):
                _substitute(cell.contents, old, new, what, rebuilt)


def _roots(tracer: "Tracer") -> list[Any]:
    frames = tracer.frames
    return [[f.locals for f in frames], [f.stack for f in frames], [f.cells for f in frames], list(tracer.heap.values.values()),
            list(tracer.tree_state.stored), tracer.heap.appended()]


def _substitute(container: Any, old: Tensor, new: Tensor, what: str, rebuilt: dict[int, tuple] | None = None) -> None:
    """Replace ``old`` in ``container`` and the lists and dicts it holds, in place; a plain
    tuple holding it (``(param, grad)`` pairs) is made again with ``new`` (``rebuilt``: one
    new tuple per old one, so a tuple held in two places stays one)."""
    if isinstance(container, dict):
        items = list(container.items())
    elif isinstance(container, list):
        items = list(enumerate(container))
    else:
        if container is not old and found_in([container], old):
            raise NotConvertible(f"{what} on an array held by a {type(container).__name__} (cannot be updated)")
        return
    rebuilt = {} if rebuilt is None else rebuilt
    for k, v in items:
        if v is old:
            container[k] = new
        elif type(v) is tuple and found_in([v], old):
            container[k] = _rebuilt(v, old, new, what, rebuilt)
        else:
            _substitute(v, old, new, what, rebuilt)


def _rebuilt(t: tuple, old: Tensor, new: Tensor, what: str, rebuilt: dict[int, tuple]) -> tuple:
    """``t`` with ``old`` replaced by ``new`` (a tuple of the trace: its identity is the trace's own)."""
    if id(t) not in rebuilt:
        items = []
        for x in t:
            if x is old:
                x = new
            elif type(x) is tuple:
                x = _rebuilt(x, old, new, what, rebuilt)
            else:
                _substitute(x, old, new, what, rebuilt)
            items.append(x)
        rebuilt[id(t)] = tuple(items)
    return rebuilt[id(t)]


def _walk(values: Any, skip: set[int] | frozenset[int] = frozenset()) -> Any:
    """Every value reachable through containers and traced-Python objects (not through
    the objects whose ids are in ``skip``)."""
    stack = [values]
    seen: set[int] = set(skip)
    while stack:
        v = stack.pop()
        if not isinstance(v, Tensor):
            if id(v) in seen:
                continue
            seen.add(id(v))
        yield v
        if isinstance(v, dict):
            stack.extend(v.values())
        elif isinstance(v, (list, tuple)):
            stack.extend(v)
        elif isinstance(v, Cell):
            stack.append(v.contents)
        elif isinstance(v, SymIter):
            stack.append(v.items[v.pos :])
        elif isinstance(v, SymFunction):
            stack.extend((v.defaults, v.closure))
        elif dataclasses.is_dataclass(v) and not isinstance(v, type):  # a record or partial built by the trace
            stack.extend(getattr(v, f.name) for f in dataclasses.fields(v))
        elif "receiver" in getattr(v, "__dict__", ()):  # a bound array method (not hasattr: a
            stack.append(v.receiver)  # dropped recursive result refuses every attribute)


def found_in(values: Any, target: Tensor) -> bool:
    return any(v is target for v in _walk(list(values)))


def _references(tracer: "Tracer", a: Tensor) -> int:
    """How many places the trace can see hold ``a`` (its frames and the heap shadow)."""
    return sum(v is a for v in _walk(_roots(tracer)))


def _reachable(tracer: "Tracer", a: Tensor) -> bool:
    return _references(tracer, a) > 0


def _stores_back(frame: "Frame", offset: int) -> bool:
    start = frame.bc.index[offset] + 1
    names = tuple(ins.opname for ins in frame.bc.instrs[start:start + max(map(len, _STORE_BACK))])
    return any(names[:len(form)] == form for form in _STORE_BACK)


class _AddAt:
    """``np.add.at(a, indices, values)``: unbuffered scatter-add into an array local to the
    trace (every duplicate index adds); the tracer calls ``janus_trace``."""

    def __call__(self, a: Any, indices: Any, values: Any) -> None:
        np.add.at(a, indices, values)

    def janus_trace(self, tracer: "Tracer", args: list, kwargs: dict) -> None:
        if kwargs or len(args) != 3:
            raise NotConvertible("np.add.at takes (array, indices, values)")
        target, key, value = args
        if not contains_tensor(args) and not symbolic_region(tracer):
            return self(target, key, value)
        if isinstance(target, np.ndarray) and tracer.local_arrays.get(id(target)) is target:
            target = as_graph_constant(tracer, target, "np.add.at")
        if not isinstance(target, Tensor) or isinstance(target, Weak) or not advanced.is_advanced(key):
            raise NotConvertible("np.add.at into a traced array with integer-array indices only")
        scattered = lambda what: advanced.scatter(tracer, target, key, value, accumulate=True)  # noqa: E731
        if not tracer.heap.update_in_place(target, scattered, "np.add.at"):
            replace(tracer, target, scattered("np.add.at"), "np.add.at")


ADD_AT = _AddAt()


_PUT_ALONG_AXIS_PARAMETERS = ("arr", "indices", "values", "axis")


def put_along_axis(tracer: "Tracer", args: list[Any], kwargs: dict[str, Any]) -> None:
    """``np.put_along_axis(arr, indices, values, axis)``: NumPy's own definition,
    ``arr[key] = values`` with ``indices`` on ``axis`` and an ``arange`` on every other axis,
    written as item assignment writes (into an argument, as its update: ``heap.update_argument``)."""
    bound = dict(zip(_PUT_ALONG_AXIS_PARAMETERS, args)) | kwargs
    if len(args) > 4 or set(bound) != set(_PUT_ALONG_AXIS_PARAMETERS):
        raise NotConvertible("np.put_along_axis takes (arr, indices, values, axis)")
    arr, indices, values, axis = (bound[name] for name in _PUT_ALONG_AXIS_PARAMETERS)
    if not isinstance(arr, (Tensor, np.ndarray)) or not isinstance(indices, (Tensor, np.ndarray)):
        raise NotConvertible("np.put_along_axis with non-array operands")
    if axis is None:
        return _put_flat(tracer, arr, indices, values)
    if indices.dtype.kind not in "iu" or indices.ndim != arr.ndim or isinstance(arr, Weak):
        raise NotConvertible("np.put_along_axis needs integer indices of the array's rank (NumPy raises)")
    axis = op_table.normalize_axis(axis, arr.ndim)
    if not op_table.is_static(arr.shape):
        raise NotConvertible("np.put_along_axis into an array with ? dims")
    ones = (1,) * arr.ndim
    key = tuple(indices if d == axis else np.arange(n).reshape(ones[:d] + (n,) + ones[d + 1:]) for d, n in enumerate(arr.shape))
    if isinstance(arr, Tensor):
        return setitem(tracer, arr, key, values, "np.put_along_axis")
    if tracer.local_arrays.get(id(arr)) is not arr:
        raise NotConvertible("np.put_along_axis into a NumPy array the trace did not make")
    return setitem_local_array(tracer, arr, key, values, "np.put_along_axis")


def _put_flat(tracer: "Tracer", arr: Tensor | np.ndarray, indices: Any, values: Any) -> None:
    """``np.put_along_axis(arr, indices, values, axis=None)``: NumPy (2.x) writes through
    ``np.array(arr.flat)``, a view of a C-contiguous array (``arr.flat[indices] = values``,
    the last duplicate wins) and a read-only copy of any other (it raises). The trace
    writes only where C order is certain: an array with at most one dimension longer than 1
    (every fresh one is contiguous), or a C-contiguous array the trace made; the write is
    a scatter into the flattened array, reshaped back."""
    what = "np.put_along_axis(axis=None)"
    if indices.dtype.kind not in "iu" or indices.ndim != 1 or isinstance(arr, Weak) or arr.ndim == 0:
        raise NotConvertible(f"{what} needs 1-d integer indices and an array (NumPy raises)")
    if not op_table.is_static(arr.shape):
        raise NotConvertible(f"{what} into an array with ? dims")
    if isinstance(arr, np.ndarray):
        if tracer.local_arrays.get(id(arr)) is not arr or not arr.flags.c_contiguous:
            raise NotConvertible(f"{what} into a NumPy array the trace did not make, or not C-contiguous")
        if not symbolic_region(tracer) and not contains_tensor(indices) and not contains_tensor(values):
            return np.put_along_axis(arr, indices, values, axis=None)
        arr = as_graph_constant(tracer, arr, what)
    elif sum(n > 1 for n in arr.shape) > 1:
        raise NotConvertible(f"{what} into an array of 2+ dims longer than 1: NumPy writes into it only when it is "
                             "C-contiguous (else raises), and the trace does not know its memory layout")
    em = tracer.em
    size = int(np.prod(arr.shape))
    flat = em.reshape(arr, (size,)) if arr.shape != (size,) else arr
    updated = advanced.scatter(tracer, flat, (indices,), values)
    replace(tracer, arr, em.reshape(updated, arr.shape) if arr.shape != (size,) else updated, what)


_FILL_DIAGONAL_PARAMETERS = ("a", "val", "wrap")


def fill_diagonal(tracer: "Tracer", args: list[Any], kwargs: dict[str, Any]) -> None:
    """``np.fill_diagonal(a, val)``: ``a[i, i, ...] = val`` for ``i < min(a.shape)`` (NumPy
    writes ``a.flat[::step]``: the same elements for a 2-d array without ``wrap`` and for a
    cube), into an array local to the trace or read from the heap (updated in place at
    commit). ``val`` a scalar or one value per diagonal element (NumPy repeats a shorter one)."""
    bound = dict(zip(_FILL_DIAGONAL_PARAMETERS, args)) | kwargs
    if len(args) > 3 or not {"a", "val"} <= set(bound) <= set(_FILL_DIAGONAL_PARAMETERS):
        raise NotConvertible("np.fill_diagonal takes (a, val, wrap=False)")
    a, val = bound["a"], bound["val"]
    what = "np.fill_diagonal"
    if not isinstance(a, (Tensor, np.ndarray)) or isinstance(a, Weak) or a.ndim < 2 or not op_table.is_static(a.shape):
        raise NotConvertible(f"{what} into a value other than an array of 2+ static dims")
    if a.ndim > 2 and len(set(a.shape)) != 1:
        raise NotConvertible(f"{what} of an array whose dims differ (NumPy raises)")
    if bound.get("wrap", False) and a.shape[0] > a.shape[1] + 1:
        raise NotConvertible(f"{what}(wrap=True) of a tall array (NumPy starts the diagonal again)")
    n = min(a.shape)
    shape = tuple(val.shape) if isinstance(val, Tensor) else np.shape(val)
    if shape not in ((), (n,)):
        raise NotConvertible(f"{what} with values other than a scalar or one per diagonal element")
    key = (np.arange(n),) * a.ndim
    if isinstance(a, np.ndarray):
        if tracer.local_arrays.get(id(a)) is not a:
            raise NotConvertible(f"{what} into a NumPy array the trace did not make")
        return setitem_local_array(tracer, a, key, val, what)
    written = lambda verb: assigned(tracer, a, key, val, verb)  # noqa: E731
    if not tracer.heap.update_in_place(a, written, what):
        setitem(tracer, a, key, val, what)


#: NumPy functions that write into an argument, by the function
NUMPY_MUTATORS = {np.put_along_axis: put_along_axis, np.fill_diagonal: fill_diagonal}
