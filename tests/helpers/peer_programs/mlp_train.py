"""The training script of the ``mlp_nets`` pair: SGD with weight decay over the tuple of
parameters, a new tuple returned each step, mini-batches sliced from a shuffled order and a
progress line printed with ``%`` formatting."""

import numpy as np

from tests.helpers.peer_programs import mlp_nets as nets


def sgd_step(params, X, y, lr=0.1, weight_decay=1e-4):
    logits, cache = nets.forward(params, X)
    loss, dlogits = nets.softmax_cross_entropy(logits, y)
    grads = nets.backward(params, cache, dlogits)
    new_params = tuple(p - lr * (g + weight_decay * p) for p, g in zip(params, grads))
    return new_params, loss


def train_epoch(params, X, y, order, batch_size=8, verbose=False):
    losses = []
    for i in range(0, len(order), batch_size):
        idx = order[i:i + batch_size]
        params, loss = sgd_step(params, X[idx], y[idx])
        losses.append(loss)
    if verbose:
        print("epoch loss %.4f acc %.3f" % (np.mean(losses), nets.accuracy(nets.forward(params, X)[0], y)))
    return params, np.array(losses)
