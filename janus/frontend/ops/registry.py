"""The op registry: every op by name, by NumPy callable, by ndarray method and by Python
operator, and ``apply``, the one way a traced call becomes MLIR.

Op records live beside their rules (``op_table`` for NumPy, ``nn_ops`` for ``janus.nn``)
and register themselves here, as JAX primitives do; this module imports neither, so the
op modules may use each other's entries through ``OPS`` without an import circle.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

import numpy as np

from janus.frontend.emitter import Emitter
from janus.frontend.ops import vjp_numpy
from janus.frontend.values import NotConvertible, Shape, Tensor

Spec = tuple[Shape, np.dtype]
Args = dict[str, Any]


@dataclass(frozen=True)
class Op:
    name: str
    eager: Callable[..., Any]
    bind: Callable[..., Args]
    rule: Callable[[Args], Spec]
    lower: Callable[[Emitter, Args, Spec], Tensor]
    #: whether ``rule`` and ``lower`` handle operands with ``?`` dims (else NotConvertible)
    dynamic: bool = False
    # The gradient story, in one place. Tape side: ``vjp``, the NumPy rule the eager tape
    # of ``janus.grad`` calls. Compiled side: by default janus-autodiff differentiates the
    # MLIR the lowering emits (every op it emits has a rule in ``passes/autodiff/rules.py``).
    # A side without a gradient says why; tests/frontend/ops/test_gradients.py checks each
    # claim against the tape and the pass, and docs/autodiff.md tabulates them (``gradients``).
    #: the NumPy VJP rule (``vjp_numpy``, ``nn_numpy``, ``padding``)
    vjp: vjp_numpy.VJP | None = None
    #: why neither side has a gradient (a bool result, static arguments only): said once for both
    no_grad: str = ""
    #: why the eager tape has no ``vjp`` although janus-autodiff differentiates the lowering
    no_tape_vjp: str = ""
    #: why janus-autodiff cannot differentiate the lowering
    no_mlir_vjp: str = ""
    #: the argument forms whose lowering janus-autodiff rejects (a located error: that call
    #: then runs on the tape), where it differentiates the others
    mlir_vjp_limit: str = ""

    def __post_init__(self) -> None:
        """Refuse a story that contradicts itself: a side both there and excused, or neither."""
        if (self.vjp is None) != bool(self.no_grad or self.no_tape_vjp):
            raise ValueError(f"op {self.name!r}: give a tape vjp or the reason it has none (no_grad, no_tape_vjp), one of them")
        if self.no_grad and (self.no_tape_vjp or self.no_mlir_vjp or self.mlir_vjp_limit):
            raise ValueError(f"op {self.name!r}: no_grad already says that neither side has a gradient")
        if self.no_mlir_vjp and self.mlir_vjp_limit:
            raise ValueError(f"op {self.name!r}: a limit of a compiled gradient it does not have")


#: every op by name
OPS: dict[str, Op] = {}
#: NumPy callables -> op
BY_FUNCTION: dict[Any, Op] = {}
#: ndarray methods -> (op, binder of the method's own signature)
METHODS: dict[str, tuple[Op, Callable[..., Args]]] = {}
#: Python operators (``BINARY_OP``/``COMPARE_OP`` symbols) -> op
OPERATORS: dict[str, Op] = {}
#: Python's unary operators on arrays (``UNARY_NEGATIVE``, ``UNARY_INVERT``) -> op
UNARY_OPERATORS: dict[str, Op] = {}


def register(*ops: Op) -> None:
    """Add ``ops`` to the table (a name registered twice is a bug in the table)."""
    for op in ops:
        if op.name in OPS:
            raise ValueError(f"op {op.name!r} is registered twice")
        OPS[op.name] = op
        BY_FUNCTION.setdefault(op.eager, op)


def apply(em: Emitter, op: Op, args: Sequence[Any], kwargs: dict[str, Any], bind: Callable[..., Args] | None = None,
          eager: Callable[..., Any] | None = None) -> Any:
    """Emit ``op`` on traced operands (the caller folds calls on static values eagerly);
    ``eager``: NumPy's own callable for these ``args`` when it is not ``op.eager`` (an
    ndarray method, its receiver first)."""
    if not op.dynamic and (_has_dynamic(args) or _has_dynamic(list(kwargs.values()))):
        raise NotConvertible(f"{op.name} of an array with ? dims is not supported")
    try:
        bound = (bind or op.bind)(*args, **kwargs)
    except TypeError as e:
        raise NotConvertible(f"{op.name}: unsupported arguments ({e})") from None
    if isinstance(bound.get("a"), (list, tuple)) and _tensors(list(bound["a"])) and op.name != "array":
        bound = {**bound, "a": apply(em, OPS["array"], [bound["a"]], {})}  # NumPy's asarray of the operand
    result = op.lower(em, bound, op.rule(bound))
    record(em, op.name, bound, result)
    maker = eager if bind is not None else op.eager  # a method's arguments are not the function's
    if op.name in VIEW_OPS and em.provenance.get(result) is not None and maker is not None:
        _note_replay(em, result, bound["a"], maker, args, kwargs)
    return result


def call(em: Emitter, name: str, *args: Any, **kwargs: Any) -> Any:
    """``apply`` of the op ``name`` on positional operands: how a composite lowering uses other entries
    (janus-autodiff then differentiates it through their rules)."""
    return apply(em, OPS[name], list(args), kwargs)


#: ops whose NumPy result is (or may be) a view of their operand ``a``
VIEW_OPS = frozenset({"getitem", "reshape", "transpose", "ravel", "squeeze", "expand_dims", "swapaxes", "moveaxis"})
#: ops whose NumPy result is a read-only view: left out of ``provenance``, so a write into it is
#: refused (the call runs in Python, where NumPy raises or writes through as it does)
READ_ONLY_OPS = frozenset({"sliding_window_view"})


def record(em: Emitter, name: str, args: Args, result: Any) -> None:
    """Note whether ``result`` is a fresh array or a view (a lowering that returns an
    operand unchanged leaves that operand's provenance as it is)."""
    if not isinstance(result, Tensor) or any(result is v for v in _tensors(list(args.values()))) or name in READ_ONLY_OPS:
        return
    base = args.get("a") if name in VIEW_OPS else None
    if isinstance(base, Tensor) and em.provenance.get(base) is not None:
        base = em.provenance[base]  # a view of a view: of the same buffer
    em.provenance[result] = base if isinstance(base, Tensor) else None


def _note_replay(em: Emitter, view: Tensor, base: Any, eager: Callable[..., Any], args: Sequence[Any],
                 kwargs: dict[str, Any]) -> None:
    """Record how NumPy makes ``view`` from the array of ``base`` when nothing else in the
    call is a graph value (``Emitter.replays``): a returned view of an argument is then made
    by NumPy from the caller's array, sharing its memory as in Python."""
    at = [i for i, a in enumerate(args) if a is base]
    if len(at) != 1 or not all(_plain(a) for i, a in enumerate(args) if i != at[0]) or not all(map(_plain, kwargs.values())):
        return
    head, tail = tuple(args[:at[0]]), tuple(args[at[0] + 1:])
    em.replays[view] = (base, lambda array: eager(*head, array, *tail, **kwargs))


def _plain(value: Any) -> bool:
    """A static index, shape or axis argument (no graph value hidden in it, a slice's included)."""
    if value is None or value is Ellipsis or type(value) in (int, bool, str) or isinstance(value, np.integer):
        return True
    if type(value) is slice:
        return all(map(_plain, (value.start, value.stop, value.step)))
    return type(value) in (tuple, list) and all(map(_plain, value))


def _tensors(values: Sequence[Any]) -> list[Tensor]:
    found: list[Tensor] = []
    for v in values:
        if isinstance(v, Tensor):
            found.append(v)
        elif isinstance(v, (list, tuple)):
            found.extend(_tensors(v))
    return found


def _has_dynamic(values: Sequence[Any]) -> bool:
    for v in values:
        if isinstance(v, Tensor) and not v.static or isinstance(v, (list, tuple)) and _has_dynamic(v):
            return True
    return False
