"""Layers in the style of numpy-ml: a ``LayerBase`` with ``parameters``, ``gradients`` and
``derived_variables`` dicts, ``forward(X, retain_derived=True)`` keeping its inputs in lists
of the derived-variables dict, activations as small classes with ``fn``/``grad`` and a
``__str__``, ``backward(dLdy)`` accumulating into ``self.gradients``, ``flush_gradients`` and an
``update`` that walks the parameter dict; a ``Sequential`` model chains them."""

import numpy as np


class ActivationBase:
    def __call__(self, z):
        if z.ndim == 1:
            z = z.reshape(1, -1)
        return self.fn(z)


class ReLU(ActivationBase):
    def __str__(self):
        return "ReLU"

    def fn(self, z):
        return np.clip(z, 0, np.inf)

    def grad(self, x):
        return (x > 0).astype(int)


class Tanh(ActivationBase):
    def __str__(self):
        return "Tanh"

    def fn(self, z):
        return np.tanh(z)

    def grad(self, x):
        return 1 - np.tanh(x) ** 2


class LayerBase:
    def __init__(self):
        self.X = []
        self.trainable = True
        self.parameters = {}
        self.gradients = {}
        self.derived_variables = {}

    def flush_gradients(self):
        self.X = []
        for k, v in self.derived_variables.items():
            self.derived_variables[k] = []
        for k, v in self.gradients.items():
            self.gradients[k] = np.zeros_like(v)

    def update(self, lr):
        for k, v in self.gradients.items():
            if k in self.parameters:
                self.parameters[k] -= lr * v
        self.flush_gradients()


class FullyConnected(LayerBase):
    def __init__(self, n_in, n_out, act_fn, rng):
        super().__init__()
        self.act_fn = act_fn
        W = rng.standard_normal((n_in, n_out)) * np.sqrt(2.0 / n_in)
        b = np.zeros((1, n_out))
        self.parameters = {"W": W, "b": b}
        self.gradients = {"W": np.zeros_like(W), "b": np.zeros_like(b)}
        self.derived_variables = {"Z": []}

    def forward(self, X, retain_derived=True):
        W, b = self.parameters["W"], self.parameters["b"]
        Z = X @ W + b
        Y = self.act_fn(Z)
        if retain_derived:
            self.X.append(X)
            self.derived_variables["Z"].append(Z)
        return Y

    def backward(self, dLdy):
        X = self.X[-1]
        Z = self.derived_variables["Z"][-1]
        dZ = dLdy * self.act_fn.grad(Z)
        dW = X.T @ dZ
        dB = dZ.sum(axis=0, keepdims=True)
        dX = dZ @ self.parameters["W"].T
        self.gradients["W"] += dW
        self.gradients["b"] += dB
        return dX


class Sequential:
    def __init__(self, sizes, seed=0):
        rng = np.random.default_rng(seed)
        acts = [ReLU() for _ in sizes[:-2]] + [Tanh()]
        self.layers = [FullyConnected(a, b, act, rng) for a, b, act in zip(sizes[:-1], sizes[1:], acts)]

    def forward(self, X):
        for layer in self.layers:
            X = layer.forward(X)
        return X

    def train_step(self, X, y, lr=0.05):
        """Squared error against ``y``; one update of every layer; the loss as a Python float."""
        out = self.forward(X)
        loss = 0.5 * np.mean((out - y) ** 2)
        grad = (out - y) / out.size
        for layer in reversed(self.layers):
            grad = layer.backward(grad)
        for layer in self.layers:
            layer.update(lr)
        return float(loss)

    def summary(self):
        return [f"{type(l).__name__}({l.parameters['W'].shape}, {l.act_fn})" for l in self.layers]
