"""Tabular Q-learning on a small grid world, written the way reinforcement-learning notebooks
write it: the environment a class with ``reset``/``step`` returning ``(state, reward, done)``,
states as integers, an epsilon-greedy policy with ``rng.random() < epsilon`` and
``np.argmax(Q[s])``, the temporal-difference update ``Q[s, a] += alpha * (target - Q[s, a])``,
a ``while not done`` episode loop with a step cap, and epsilon decayed per episode."""

import numpy as np


class GridWorld:
    def __init__(self, size=4):
        self.size = size
        self.goal = size * size - 1
        self.moves = [(-1, 0), (1, 0), (0, -1), (0, 1)]
        self.state = 0

    def reset(self):
        self.state = 0
        return self.state

    def step(self, action):
        r, c = divmod(self.state, self.size)
        dr, dc = self.moves[action]
        r = min(max(r + dr, 0), self.size - 1)
        c = min(max(c + dc, 0), self.size - 1)
        self.state = r * self.size + c
        done = self.state == self.goal
        return self.state, (1.0 if done else -0.01), done


class QAgent:
    def __init__(self, n_states, n_actions, alpha=0.5, gamma=0.95, epsilon=1.0, seed=0):
        self.Q = np.zeros((n_states, n_actions))
        self.alpha, self.gamma, self.epsilon = alpha, gamma, epsilon
        self.n_actions = n_actions
        self.rng = np.random.default_rng(seed)

    def act(self, s):
        if self.rng.random() < self.epsilon:
            return int(self.rng.integers(self.n_actions))
        return int(np.argmax(self.Q[s]))

    def learn(self, s, a, r, s2, done):
        target = r if done else r + self.gamma * np.max(self.Q[s2])
        self.Q[s, a] += self.alpha * (target - self.Q[s, a])

    def run_episode(self, env, max_steps=50):
        s = env.reset()
        total, steps, done = 0.0, 0, False
        while not done and steps < max_steps:
            a = self.act(s)
            s2, r, done = env.step(a)
            self.learn(s, a, r, s2, done)
            s, total, steps = s2, total + r, steps + 1
        self.epsilon = max(0.05, self.epsilon * 0.9)
        return total, steps
