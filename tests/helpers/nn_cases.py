"""``janus.nn`` cases shared by the op tests (compiled) and the gradient tests (tape)."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from janus import nn
from tests.helpers import rand

RNG = np.random.default_rng(7)
logits = rand(4, 5)
labels = np.array([0, 3, 4, 1])
table, ids = rand(6, 3), np.array([[0, 5], [2, 2]])
images, filters, bias = rand(2, 3, 7, 6), rand(4, 3, 3, 2), rand(4)


#: compiled (float32) == eager, through the expected linalg op (the marker)
COMPILED: dict[str, tuple[Callable[..., Any], list[Any], str]] = {
    "relu": (lambda x: nn.relu(x) * 2.0, [logits], "arith.maximumf"),
    "sigmoid": (lambda x: nn.sigmoid(x), [logits], "math.exp"),
    "softmax": (lambda x: nn.softmax(x, axis=0), [logits], "arith.maximumf"),
    "log_softmax": (lambda x: nn.log_softmax(x), [logits], "math.log"),
    "cross_entropy": (lambda x, t: nn.cross_entropy(x, t), [logits, labels], "linalg.index"),
    "embedding": (lambda t, i: nn.embedding(t, i), [table, ids], "tensor.extract"),
    "conv2d": (lambda x, w, b: nn.conv2d(x, w, b, stride=2, padding=1), [images, filters, bias], "linalg.conv_2d_nchw_fchw"),
    "max_pool2d": (lambda x: nn.max_pool2d(x, (2, 3), stride=1), [images], "linalg.pooling_nchw_max"),
}


# ---- gradients: cases of tests/helpers/grad_cases.py ------------------------------------------
def _signed(*shape: int) -> np.ndarray:
    return RNG.uniform(0.5, 1.5, shape) * RNG.choice([-1.0, 1.0], shape)


TAPE_CASES: dict[str, tuple[Callable[..., Any], list[np.ndarray]]] = {
    "relu": (nn.relu, [_signed(3, 4)]),
    "sigmoid": (nn.sigmoid, [_signed(3, 4)]),
    "softmax": (lambda x: nn.softmax(x, axis=0), [_signed(3, 4)]),
    "log_softmax": (nn.log_softmax, [_signed(3, 4)]),
    "cross_entropy": (lambda x: nn.cross_entropy(x, np.array([2, 0, 3])), [_signed(3, 4)]),
    "embedding": (lambda t: nn.embedding(t, np.array([[1, 0], [1, 3]])), [_signed(4, 3)]),
    "conv2d": (lambda x, w, b: nn.conv2d(x, w, b, stride=2, padding=1), [_signed(2, 2, 5, 4), _signed(3, 2, 3, 2), _signed(3)]),
    "max_pool2d": (lambda x: nn.max_pool2d(x, (2, 3)), [_signed(1, 2, 4, 6)]),
}
#: argument forms the tape differentiates and janus-autodiff rejects (``Op.mlir_vjp_limit``)
LIMIT_CASES: dict[str, tuple[Callable[..., Any], list[np.ndarray]]] = {
    "max_pool2d": (lambda x: nn.max_pool2d(x, 2, stride=1), [_signed(1, 2, 4, 5)]),
}


