"""Zero-argument ``super()`` in traced methods: resolved statically to the parent's
function, checked on every call. Plain Python is the oracle."""

from __future__ import annotations

import numpy as np
import pytest

import janus
from janus.frontend import explain


class Base:
    def __init__(self):
        self.E = np.arange(6, dtype=np.float32).reshape(2, 3)

    def parameters(self):
        return {"E": self.E}

    def scale(self, x):
        return x * 2.0


class Child(Base):
    def __init__(self):
        super().__init__()
        self.W = np.ones((3, 3), np.float32)

    def parameters(self):
        return {**super().parameters(), "W": self.W}

    def scale(self, x):
        return super().scale(x) + 1.0

    @janus.jit
    def total(self, x):
        total = x
        for name, value in self.parameters().items():
            total = total + self.scale(value.sum())
        return total


def plain_total(model, x):
    return Child.total.fn(model, x)


@pytest.fixture()
def model():
    return Child()


def test_super_methods_compile_and_match_python(model):
    x = np.float32(0.5)
    for _ in range(4):
        np.testing.assert_allclose(model.total(x), plain_total(model, x), rtol=1e-6)
    (version,) = Child.total.versions.values()
    assert version.calls >= 1, explain(Child.total)


def test_rebinding_the_parent_method_is_noticed(model, monkeypatch):
    x = np.float32(1.5)
    for _ in range(4):
        model.total(x)
    monkeypatch.setattr(Base, "scale", lambda self, x: x * 3.0)
    np.testing.assert_allclose(model.total(x), plain_total(model, x), rtol=1e-6)
    monkeypatch.undo()
    np.testing.assert_allclose(model.total(x), plain_total(model, x), rtol=1e-6)
