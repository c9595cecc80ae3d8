"""REINFORCE bookkeeping as policy-gradient scripts write it: discounted returns filled
backwards into ``np.zeros_like`` with a running sum, normalized, and a softmax policy whose
log-probability gradient is built from one-hot rows of ``np.eye``; the episode buffers are
Python lists on the agent."""

import numpy as np


def discount(rewards, gamma=0.99):
    out = np.zeros_like(rewards)
    running = 0.0
    for t in reversed(range(len(rewards))):
        running = rewards[t] + gamma * running
        out[t] = running
    return out


def normalize(x, eps=1e-8):
    return (x - x.mean()) / (x.std() + eps)


def softmax(logits):
    z = logits - np.max(logits, axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


class Agent:
    def __init__(self, n_obs, n_actions, lr=0.01, gamma=0.95):
        rng = np.random.default_rng(4)
        self.theta = rng.standard_normal((n_obs, n_actions)) * 0.1
        self.n_actions = n_actions
        self.lr = lr
        self.gamma = gamma
        self.updates = 0

    def policy(self, obs):
        return softmax(obs @ self.theta)

    def update(self, states, actions, rewards):
        """One REINFORCE step over an episode: states (T, n_obs), actions (T,), rewards (T,)."""
        G = normalize(discount(rewards, self.gamma))
        probs = self.policy(states)
        onehot = np.eye(self.n_actions)[actions]
        grad = states.T @ ((onehot - probs) * G[:, None])
        self.theta += self.lr * grad / states.shape[0]
        self.updates += 1
        return -np.sum(np.log(probs[np.arange(len(actions)), actions]) * G)
