"""A classifier written the way the "Neural Networks from Scratch" book writes NumPy networks
(``tests/helpers/peer_programs/nnfs_style.py``): layer and activation objects that keep their
inputs and outputs as attributes, a per-sample softmax Jacobian built with ``np.diagflat`` in a
loop over ``zip(self.output, dvalues)``, ``np.empty_like`` filled row by row, a mask assignment
in the ReLU's backward, ``np.eye(labels)[y_true]``, and an Adam optimizer that creates its
caches on the layers on first use (``hasattr``). Run unchanged with ``janus.jit`` added from
outside, in lockstep with Python: loss, accuracy, every layer's attributes."""

from __future__ import annotations

import numpy as np

from tests.helpers.peer_programs import nnfs_style
from tests.helpers.peer_state import assert_compiled, lockstep

RNG = np.random.default_rng(11)
X, Y = RNG.standard_normal((12, 2)), RNG.integers(0, 3, 12)


def test_nnfs_style_training_steps_match_python_and_compile():
    """The whole step compiles (``np.diagflat`` was missing, and the call ran in Python)."""
    train = lockstep(nnfs_style.Model.train_step, nnfs_style.Model, [(X, Y)] * 5)
    assert_compiled(train)
