"""A two-layer graph convolutional network (Kipf and Welling) the way from-scratch notebooks
write it: the adjacency made dense with self-loops, ``D_inv_sqrt = np.diag(1 / np.sqrt(deg))``,
weights in a dict, a forward pass that keeps its intermediates in a ``cache`` dict, softmax
cross-entropy over the labelled nodes with ``np.log(probs[range(n), labels])``, backprop by
hand and plain gradient descent with weight decay over ``for k in self.params``."""

import numpy as np


def normalize_adjacency(A):
    A_hat = A + np.eye(A.shape[0])
    deg = A_hat.sum(axis=1)
    D_inv_sqrt = np.diag(1 / np.sqrt(deg))
    return D_inv_sqrt @ A_hat @ D_inv_sqrt


def relu(x):
    return np.maximum(0, x)


def softmax(z):
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


class GCN:
    def __init__(self, n_features, n_hidden, n_classes, seed=0):
        rng = np.random.default_rng(seed)
        lim1 = np.sqrt(6 / (n_features + n_hidden))
        lim2 = np.sqrt(6 / (n_hidden + n_classes))
        self.params = {
            "W1": rng.uniform(-lim1, lim1, (n_features, n_hidden)),
            "W2": rng.uniform(-lim2, lim2, (n_hidden, n_classes)),
        }
        self.weight_decay = 5e-4
        self.cache = {}

    def forward(self, A_norm, X):
        AX = A_norm @ X
        Z1 = AX @ self.params["W1"]
        H1 = relu(Z1)
        AH = A_norm @ H1
        Z2 = AH @ self.params["W2"]
        probs = softmax(Z2)
        self.cache = {"AX": AX, "Z1": Z1, "H1": H1, "AH": AH, "probs": probs}
        return probs

    def loss(self, probs, labels, idx):
        n = len(idx)
        log_likelihood = -np.log(probs[idx][range(n), labels[idx]] + 1e-12)
        data_loss = np.sum(log_likelihood) / n
        reg = 0.5 * self.weight_decay * np.sum(self.params["W1"] ** 2)
        return data_loss + reg

    def backward(self, A_norm, labels, idx):
        probs = self.cache["probs"]
        n = len(idx)
        dZ2 = np.zeros_like(probs)
        dZ2[idx] = probs[idx]
        dZ2[idx, labels[idx]] -= 1
        dZ2 /= n
        grads = {}
        grads["W2"] = self.cache["AH"].T @ dZ2
        dH1 = A_norm.T @ (dZ2 @ self.params["W2"].T)
        dZ1 = dH1 * (self.cache["Z1"] > 0)
        grads["W1"] = self.cache["AX"].T @ dZ1 + self.weight_decay * self.params["W1"]
        return grads

    def train_step(self, A_norm, X, labels, idx, lr=0.2):
        probs = self.forward(A_norm, X)
        loss = self.loss(probs, labels, idx)
        grads = self.backward(A_norm, labels, idx)
        for k in self.params:
            self.params[k] -= lr * grads[k]
        return loss

    def accuracy(self, A_norm, X, labels, idx):
        preds = np.argmax(self.forward(A_norm, X), axis=1)
        return np.mean(preds[idx] == labels[idx])
