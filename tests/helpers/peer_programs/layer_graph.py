"""A two-layer net the way "from scratch" textbooks write it: layer objects in an
``OrderedDict`` on the model, a ``params`` dict whose arrays the layers hold too (two
paths to one array), backward through ``list(self.layers.values())`` reversed, masks set
by item assignment, a loss layer that keeps its inputs, an optimizer class walking
``params.keys()``; and a mini framework whose SGD updates only the layers that
``hasattr(layer, "W")``."""

from collections import OrderedDict

import numpy as np


def softmax(x):
    x = x - np.max(x, axis=-1, keepdims=True)
    return np.exp(x) / np.sum(np.exp(x), axis=-1, keepdims=True)


def cross_entropy_error(y, t):
    if y.ndim == 1:
        t = t.reshape(1, t.size)
        y = y.reshape(1, y.size)
    if t.size == y.size:  # one-hot labels
        t = t.argmax(axis=1)
    batch_size = y.shape[0]
    return -np.sum(np.log(y[np.arange(batch_size), t] + 1e-7)) / batch_size


class Relu:
    def __init__(self):
        self.mask = None

    def forward(self, x):
        self.mask = x <= 0
        out = x.copy()
        out[self.mask] = 0
        return out

    def backward(self, dout):
        dout[self.mask] = 0
        return dout


class Affine:
    def __init__(self, W, b):
        self.W, self.b = W, b
        self.x = self.dW = self.db = None

    def forward(self, x):
        self.x = x
        return np.dot(x, self.W) + self.b

    def backward(self, dout):
        dx = np.dot(dout, self.W.T)
        self.dW = np.dot(self.x.T, dout)
        self.db = np.sum(dout, axis=0)
        return dx


class SoftmaxWithLoss:
    def __init__(self):
        self.loss = self.y = self.t = None

    def forward(self, x, t):
        self.t = t
        self.y = softmax(x)
        self.loss = cross_entropy_error(self.y, self.t)
        return self.loss

    def backward(self, dout=1):
        batch_size = self.t.shape[0]
        if self.t.size == self.y.size:
            return (self.y - self.t) / batch_size
        dx = self.y.copy()
        dx[np.arange(batch_size), self.t] -= 1
        return dx / batch_size


class TwoLayerNet:
    def __init__(self, input_size, hidden_size, output_size, weight_init_std=0.01, seed=0):
        r = np.random.RandomState(seed)
        self.params = {}
        self.params["W1"] = weight_init_std * r.randn(input_size, hidden_size)
        self.params["b1"] = np.zeros(hidden_size)
        self.params["W2"] = weight_init_std * r.randn(hidden_size, output_size)
        self.params["b2"] = np.zeros(output_size)
        self.layers = OrderedDict()
        self.layers["Affine1"] = Affine(self.params["W1"], self.params["b1"])
        self.layers["Relu1"] = Relu()
        self.layers["Affine2"] = Affine(self.params["W2"], self.params["b2"])
        self.lastLayer = SoftmaxWithLoss()

    def predict(self, x):
        for layer in self.layers.values():
            x = layer.forward(x)
        return x

    def loss(self, x, t):
        return self.lastLayer.forward(self.predict(x), t)

    def accuracy(self, x, t):
        y = np.argmax(self.predict(x), axis=1)
        if t.ndim != 1:
            t = np.argmax(t, axis=1)
        return np.sum(y == t) / float(x.shape[0])

    def gradient(self, x, t):
        self.loss(x, t)
        dout = self.lastLayer.backward(1)
        layers = list(self.layers.values())
        layers.reverse()
        for layer in layers:
            dout = layer.backward(dout)
        grads = {}
        grads["W1"], grads["b1"] = self.layers["Affine1"].dW, self.layers["Affine1"].db
        grads["W2"], grads["b2"] = self.layers["Affine2"].dW, self.layers["Affine2"].db
        return grads


class Momentum:
    def __init__(self, lr=0.1, momentum=0.9):
        self.lr, self.momentum, self.v = lr, momentum, None

    def update(self, params, grads):
        if self.v is None:
            self.v = {key: np.zeros_like(val) for key, val in params.items()}
        for key in params.keys():
            self.v[key] = self.momentum * self.v[key] - self.lr * grads[key]
            params[key] += self.v[key]


def train_step(net, optimizer, x_batch, t_batch):
    grads = net.gradient(x_batch, t_batch)
    optimizer.update(net.params, grads)
    return net.loss(x_batch, t_batch)


# ---- a mini framework: layers with forward/backward, SGD over the layers that have weights
class Linear:
    def __init__(self, n_in, n_out, rng):
        self.W = rng.normal(0, np.sqrt(2.0 / n_in), size=(n_in, n_out))
        self.b = np.zeros((1, n_out))

    def forward(self, x):
        self.x = x
        return x @ self.W + self.b

    def backward(self, g):
        self.dW = self.x.T @ g
        self.db = g.sum(axis=0, keepdims=True)
        return g @ self.W.T


class ReLU:
    def forward(self, x):
        self.mask = x > 0
        return x * self.mask

    def backward(self, g):
        return g * self.mask


class Sequential:
    def __init__(self, *layers):
        self.layers = list(layers)

    def forward(self, x):
        for layer in self.layers:
            x = layer.forward(x)
        return x

    def backward(self, g):
        for layer in reversed(self.layers):
            g = layer.backward(g)
        return g


class SoftmaxCE:
    def __call__(self, logits, y):
        z = logits - logits.max(axis=1, keepdims=True)
        p = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
        self.p, self.y = p, y
        return -np.log(p[np.arange(len(y)), y] + 1e-12).mean()

    def grad(self):
        g = self.p.copy()
        g[np.arange(len(self.y)), self.y] -= 1
        return g / len(self.y)


def sgd(model, lr):
    for layer in model.layers:
        if hasattr(layer, "W"):
            layer.W -= lr * layer.dW
            layer.b -= lr * layer.db


def fit_batch(model, loss_fn, x, y, lr=0.1):
    logits = model.forward(x)
    loss = loss_fn(logits, y)
    model.backward(loss_fn.grad())
    sgd(model, lr)
    return loss, float((logits.argmax(axis=1) == y).mean())


def make_sequential(seed=1):
    rng = np.random.default_rng(seed)
    return Sequential(Linear(20, 32, rng), ReLU(), Linear(32, 32, rng), ReLU(), Linear(32, 4, rng)), SoftmaxCE()
