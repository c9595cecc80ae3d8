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
    #: the NumPy VJP rule (``vjp_numpy``); None: the op has no gradient (bool results)
    vjp: vjp_numpy.VJP | None = None


#: every op by name
OPS: dict[str, Op] = {}
#: NumPy callables -> op
BY_FUNCTION: dict[Any, Op] = {}
#: ndarray methods -> (op, binder of the method's own signature)
METHODS: dict[str, tuple[Op, Callable[..., Args]]] = {}
#: Python operators (``BINARY_OP``/``COMPARE_OP`` symbols) -> op
OPERATORS: dict[str, Op] = {}


def register(*ops: Op) -> None:
    """Add ``ops`` to the table (a name registered twice is a bug in the table)."""
    for op in ops:
        if op.name in OPS:
            raise ValueError(f"op {op.name!r} is registered twice")
        OPS[op.name] = op
        BY_FUNCTION.setdefault(op.eager, op)


def apply(em: Emitter, op: Op, args: Sequence[Any], kwargs: dict[str, Any], bind: Callable[..., Args] | None = None) -> Any:
    """Emit ``op`` on traced operands (the caller folds calls on static values eagerly)."""
    if not op.dynamic and (_has_dynamic(args) or _has_dynamic(list(kwargs.values()))):
        raise NotConvertible(f"{op.name} of an array with ? dims is not supported")
    try:
        bound = (bind or op.bind)(*args, **kwargs)
    except TypeError as e:
        raise NotConvertible(f"{op.name}: unsupported arguments ({e})") from None
    result = op.lower(em, bound, op.rule(bound))
    record(em, op.name, bound, result)
    return result


#: ops whose NumPy result is (or may be) a view of their operand ``a``
VIEW_OPS = frozenset({"getitem", "reshape", "transpose"})


def record(em: Emitter, name: str, args: Args, result: Any) -> None:
    """Note whether ``result`` is a fresh array or a view (a lowering that returns an
    operand unchanged leaves that operand's provenance as it is)."""
    if not isinstance(result, Tensor) or any(result is v for v in _tensors(list(args.values()))):
        return
    base = args.get("a") if name in VIEW_OPS else None
    if isinstance(base, Tensor) and em.provenance.get(base) is not None:
        base = em.provenance[base]  # a view of a view: of the same buffer
    em.provenance[result] = base if isinstance(base, Tensor) else None


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
