"""An MLP built from a config list of ``(n_in, n_out, activation name)``: activations and their
derivatives looked up in dicts of functions and kept on each layer as attributes, a free
``dense`` function with an activation parameter (default ``np.tanh``), softmax cross-entropy,
backprop through the cached inputs, plain SGD on the layers' arrays in place."""

import numpy as np


def relu(z):
    return np.maximum(z, 0.0)


def relu_grad(z):
    return (z > 0).astype(z.dtype)


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def sigmoid_grad(z):
    s = sigmoid(z)
    return s * (1.0 - s)


def identity(z):
    return z


def identity_grad(z):
    return np.ones_like(z)


def tanh_grad(z):
    return 1.0 - np.tanh(z) ** 2


ACTIVATIONS = {"relu": relu, "sigmoid": sigmoid, "tanh": np.tanh, "linear": identity}
DERIVATIVES = {"relu": relu_grad, "sigmoid": sigmoid_grad, "tanh": tanh_grad, "linear": identity_grad}

CONFIG = [(6, 16, "relu"), (16, 12, "tanh"), (12, 4, "linear")]


def dense(x, W, b, activation=np.tanh):
    """One layer as a free function: the activation is a parameter."""
    return activation(x @ W + b)


class Layer:
    def __init__(self, n_in, n_out, activation, rng):
        scale = np.sqrt(2.0 / n_in) if activation == "relu" else np.sqrt(1.0 / n_in)
        self.W = rng.normal(0.0, scale, size=(n_in, n_out))
        self.b = np.zeros(n_out)
        self.act = ACTIVATIONS[activation]
        self.act_grad = DERIVATIVES[activation]
        self.x = None
        self.z = None

    def forward(self, x):
        self.x = x
        self.z = x @ self.W + self.b
        return self.act(self.z)

    def backward(self, grad_out, lr):
        dz = grad_out * self.act_grad(self.z)
        dW = self.x.T @ dz
        db = dz.sum(axis=0)
        dx = dz @ self.W.T
        self.W -= lr * dW
        self.b -= lr * db
        return dx


class Network:
    def __init__(self, config=CONFIG, seed=0):
        rng = np.random.default_rng(seed)
        self.layers = [Layer(n_in, n_out, act, rng) for n_in, n_out, act in config]

    def predict(self, x):
        for layer in self.layers:
            x = layer.forward(x)
        return x

    def train_step(self, x, y, lr=0.05):
        logits = self.predict(x)
        shifted = logits - logits.max(axis=1, keepdims=True)
        probs = np.exp(shifted)
        probs /= probs.sum(axis=1, keepdims=True)
        n = x.shape[0]
        loss = -np.log(probs[np.arange(n), y] + 1e-12).mean()
        grad = probs.copy()
        grad[np.arange(n), y] -= 1.0
        grad /= n
        for layer in reversed(self.layers):
            grad = layer.backward(grad, lr)
        return loss
