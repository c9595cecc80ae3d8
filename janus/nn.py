"""``janus.nn``: deep-learning ops that run as NumPy and lower to MLIR when traced.

Called from plain Python each is its NumPy implementation (``janus.frontend.ops.nn_numpy``),
so imperative code using them is ordinary NumPy; under ``janus.jit`` each is one op-table
entry (``janus.frontend.ops.nn_ops``) lowered to linalg; under ``janus.grad`` each is one tape
node with its own VJP. Layouts: NCHW inputs, FCHW filters. ``cross_entropy(logits,
labels)`` takes (N, C) logits and (N,) int class indices and returns the mean over the
batch; ``embedding(table, ids)`` returns ``table[ids]``; out-of-range labels or ids raise
``IndexError`` (negative ones are not wrapped).
"""

from __future__ import annotations

import functools
from typing import Any

from janus.frontend import tape
from janus.frontend.ops import nn_ops
from janus.frontend.ops.registry import Op, apply
from janus.frontend.values import Tensor


def _holds_tensor(value: Any) -> bool:
    if isinstance(value, (list, tuple)):
        return any(_holds_tensor(v) for v in value)
    return isinstance(value, Tensor)


class NNFunction:
    """A ``janus.nn`` op as a callable: NumPy when called, one node on a ``janus.grad`` tape,
    its table entry when traced (``janus_trace``: the tracer bakes it in like a jit function)."""

    def __init__(self, op: Op) -> None:
        self.janus_op = op
        functools.update_wrapper(self, op.eager)
        self.__module__ = "janus.nn"

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        traced = [t for _, t in tape.traced_leaves((args, kwargs))]
        if traced:
            return traced[0].tape.apply(self.janus_op, f"janus.nn.{self.janus_op.name}", self.janus_op.eager, args, kwargs)
        return self.janus_op.eager(*args, **kwargs)

    def janus_trace(self, tracer: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
        if _holds_tensor(args) or _holds_tensor(list(kwargs.values())):
            return apply(tracer.em, self.janus_op, args, kwargs)
        return self.janus_op.eager(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<janus.nn.{self.janus_op.name}>"


#: the public functions (``janus.nn``), by op name
FUNCTIONS: dict[str, NNFunction] = {op.name: NNFunction(op) for op in nn_ops.NN}


relu = FUNCTIONS["relu"]
sigmoid = FUNCTIONS["sigmoid"]
softmax = FUNCTIONS["softmax"]
log_softmax = FUNCTIONS["log_softmax"]
cross_entropy = FUNCTIONS["cross_entropy"]
embedding = FUNCTIONS["embedding"]
conv2d = FUNCTIONS["conv2d"]
max_pool2d = FUNCTIONS["max_pool2d"]

__all__ = ["relu", "sigmoid", "softmax", "log_softmax", "cross_entropy", "embedding", "conv2d", "max_pool2d"]
