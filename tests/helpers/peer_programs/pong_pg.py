"""A policy-gradient (REINFORCE) agent in the style of small public Atari scripts: the
model a dict of two weight matrices, gradients and RMSProp caches built with dict
comprehensions and ``dict(...)``, rewards discounted backwards with ``reversed(range(...))``
and episode records stacked with ``np.vstack``."""

import numpy as np

H = 10
D = 16
gamma = 0.99
decay_rate = 0.99
learning_rate = 1e-3

_init = np.random.RandomState(7)
model = {}
model["W1"] = _init.randn(H, D) / np.sqrt(D)
model["W2"] = _init.randn(H) / np.sqrt(H)
grad_buffer = {k: np.zeros_like(v) for k, v in model.items()}
rmsprop_cache = dict((k, np.zeros_like(v)) for k, v in model.items())


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def discount_rewards(r):
    """Discounted returns, the running sum reset where a point was scored."""
    discounted_r = np.zeros_like(r)
    running_add = 0
    for t in reversed(range(0, r.size)):
        if r[t] != 0:
            running_add = 0
        running_add = running_add * gamma + r[t]
        discounted_r[t] = running_add
    return discounted_r


def policy_forward(x):
    h = np.dot(model["W1"], x)
    h[h < 0] = 0
    logp = np.dot(model["W2"], h)
    p = sigmoid(logp)
    return p, h


def policy_backward(eph, epx, epdlogp):
    dW2 = np.dot(eph.T, epdlogp).ravel()
    dh = np.outer(epdlogp, model["W2"])
    dh[eph <= 0] = 0
    dW1 = np.dot(dh.T, epx)
    return {"W1": dW1, "W2": dW2}


def act(x):
    """Pick an action from the policy with the legacy global RNG; record what backprop needs."""
    aprob, h = policy_forward(x)
    action = 2 if np.random.uniform() < aprob else 3
    y = 1 if action == 2 else 0
    return action, h, y - aprob


def finish_episode(xs, hs, dlogps, drs):
    """Stack the episode, weight the log-prob gradients by normalized returns, accumulate."""
    epx = np.vstack(xs)
    eph = np.vstack(hs)
    epdlogp = np.vstack(dlogps)
    epr = np.vstack(drs)
    discounted_epr = discount_rewards(epr)
    discounted_epr -= np.mean(discounted_epr)
    discounted_epr /= np.std(discounted_epr)
    epdlogp *= discounted_epr
    grad = policy_backward(eph, epx, epdlogp)
    for k in model:
        grad_buffer[k] += grad[k]
    return float(np.sum(epr))


def rmsprop_update():
    for k, v in model.items():
        g = grad_buffer[k]
        rmsprop_cache[k] = decay_rate * rmsprop_cache[k] + (1 - decay_rate) * g ** 2
        model[k] += learning_rate * g / (np.sqrt(rmsprop_cache[k]) + 1e-5)
        grad_buffer[k] = np.zeros_like(v)
