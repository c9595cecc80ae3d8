"""REINFORCE on a NumPy cart-pole: an MLP policy (4-128-2) samples actions, episodes run
until the pole falls (so their lengths vary), and each episode makes one policy update."""

from __future__ import annotations

import numpy as np

import janus
from janus.models.nn import F32, init, softmax
from janus.models.workload import ModelSpec, Size, Workload

SIZES = {"full": (128, 200, 16), "quick": (16, 40, 8)}  # hidden, max episode length, episodes
GAMMA = 0.99


class CartPole:
    """The classic cart-pole dynamics (Barto, Sutton and Anderson 1983), Euler steps of 20 ms."""

    gravity, cart_mass, pole_mass, half_length, force, tau = 9.8, 1.0, 0.1, 0.5, 10.0, 0.02

    def __init__(self, rng: np.random.Generator, max_steps: int) -> None:
        self.rng, self.max_steps = rng, max_steps

    def reset(self) -> np.ndarray:
        self.state = self.rng.uniform(-0.05, 0.05, 4)
        self.steps = 0
        return self.state.astype(F32)

    def step(self, action: int) -> tuple[np.ndarray, bool]:
        x, x_dot, theta, theta_dot = self.state
        force = self.force if action == 1 else -self.force
        total = self.cart_mass + self.pole_mass
        cos, sin = np.cos(theta), np.sin(theta)
        temp = (force + self.pole_mass * self.half_length * theta_dot**2 * sin) / total
        theta_acc = (self.gravity * sin - cos * temp) / (
            self.half_length * (4.0 / 3.0 - self.pole_mass * cos**2 / total))
        x_acc = temp - self.pole_mass * self.half_length * theta_acc * cos / total
        self.state = np.array([x + self.tau * x_dot, x_dot + self.tau * x_acc,
                               theta + self.tau * theta_dot, theta_dot + self.tau * theta_acc])
        self.steps += 1
        done = abs(self.state[0]) > 2.4 or abs(self.state[2]) > 12 * np.pi / 180 or self.steps >= self.max_steps
        return self.state.astype(F32), done


class Policy:
    def __init__(self, hidden: int, seed: int = 0, lr: float = 0.01) -> None:
        rng = np.random.default_rng(seed)
        self.W1, self.b1 = init(rng, 4, hidden), np.zeros(hidden, F32)
        self.W2, self.b2 = init(rng, hidden, 2), np.zeros(2, F32)
        self.lr = lr

    @janus.jit
    def probabilities(self, obs: np.ndarray) -> np.ndarray:
        return softmax(np.tanh(obs @ self.W1 + self.b1) @ self.W2 + self.b2)

    @janus.jit
    def update(self, observations: np.ndarray, actions: np.ndarray, returns: np.ndarray) -> float:
        """One gradient step on -mean(return * log pi(action | observation)); returns that loss."""
        h = np.tanh(observations @ self.W1 + self.b1)
        p = softmax(h @ self.W2 + self.b2)
        rows = np.arange(len(actions))
        loss = -(returns * np.log(p[rows, actions])).mean()
        dlogits = p.copy()
        dlogits[rows, actions] -= 1.0
        dlogits *= returns[:, None] / len(actions)
        dh = (dlogits @ self.W2.T) * (1.0 - h * h)
        grads = (observations.T @ dh, dh.sum(axis=0), h.T @ dlogits, dlogits.sum(axis=0))
        for param, grad in zip((self.W1, self.b1, self.W2, self.b2), grads):
            param -= self.lr * grad
        return loss

    def parameters(self) -> dict[str, np.ndarray]:
        return {"W1": self.W1, "b1": self.b1, "W2": self.W2, "b2": self.b2}


def discounted(rewards: int) -> np.ndarray:
    """Normalized discounted returns of an episode with reward 1 per step."""
    returns = np.cumsum(GAMMA ** np.arange(rewards))[::-1].astype(F32)
    return (returns - returns.mean()) / (returns.std() + 1e-6)


def episode(policy: Policy, env: CartPole, rng: np.random.Generator) -> tuple[int, float]:
    """Run one episode with actions sampled from the policy, then update it once."""
    obs, done = env.reset(), False
    observations, actions = [], []
    while not done:
        action = int(rng.random() < policy.probabilities(obs)[1])
        observations.append(obs)
        actions.append(action)
        obs, done = env.step(action)
    loss = policy.update(np.stack(observations), np.array(actions), discounted(len(actions)))
    return len(actions), loss


def workload(size: Size) -> Workload:
    hidden, max_steps, episodes = SIZES[size]
    policy = Policy(hidden)
    env, rng = CartPole(np.random.default_rng(1), max_steps), np.random.default_rng(2)
    lengths: list[int] = []

    def step(i: int) -> tuple[int, float]:
        length, loss = episode(policy, env, rng)
        lengths.append(length)
        return length, loss

    # per time step: the forward pass for the action, then forward + backward in the update
    per_time_step = 4 * 2 * (4 * hidden + hidden * 2)
    return Workload(step, policy.parameters, episodes, 4, "episodes", 1, lambda: per_time_step * sum(lengths) / len(lengths))


class Agent:
    """The same REINFORCE written the ordinary way (co-execution, issue #14): the sampling
    Generator in an attribute, the trajectory in lists on the agent, the returns from a
    helper; ``act`` and ``finish`` are jitted whole, and what cannot be compiled in them
    (the draw, the list appends, ``np.stack`` of the list) runs in Python between compiled
    segments."""

    def __init__(self, hidden: int, lr: float = 0.01) -> None:
        init_rng = np.random.default_rng(0)
        self.W1, self.b1 = init(init_rng, 4, hidden), np.zeros(hidden, F32)
        self.W2, self.b2 = init(init_rng, hidden, 2), np.zeros(2, F32)
        self.lr = lr
        self.rng = np.random.default_rng(2)
        self.observations: list[np.ndarray] = []
        self.actions: list[int] = []

    @janus.jit
    def act(self, obs: np.ndarray) -> int:
        p = softmax(np.tanh(obs @ self.W1 + self.b1) @ self.W2 + self.b2)
        action = int(self.rng.random() < p[1])
        self.observations.append(obs)
        self.actions.append(action)
        return action

    @janus.jit
    def finish(self) -> float:
        """One gradient step on the episode's trajectory; the lists are emptied."""
        observations, actions = np.stack(self.observations), np.array(self.actions)
        returns = discounted(len(self.actions))
        h = np.tanh(observations @ self.W1 + self.b1)
        p = softmax(h @ self.W2 + self.b2)
        taken = np.eye(2, dtype=F32)[actions]
        loss = -(returns * np.log((p * taken).sum(axis=1))).mean()
        dlogits = (p - taken) * (returns[:, None] / len(actions))
        dh = (dlogits @ self.W2.T) * (1.0 - h * h)
        self.W1 -= self.lr * (observations.T @ dh)
        self.b1 -= self.lr * dh.sum(axis=0)
        self.W2 -= self.lr * (h.T @ dlogits)
        self.b2 -= self.lr * dlogits.sum(axis=0)
        self.observations.clear()
        self.actions.clear()
        return loss

    def parameters(self) -> dict[str, np.ndarray]:
        return {"W1": self.W1, "b1": self.b1, "W2": self.W2, "b2": self.b2}


def agent_workload(size: Size) -> Workload:
    hidden, max_steps, episodes = SIZES[size]
    agent, env = Agent(hidden), CartPole(np.random.default_rng(1), max_steps)
    lengths: list[int] = []

    def step(i: int) -> tuple[int, float]:
        obs, done = env.reset(), False
        while not done:
            obs, done = env.step(agent.act(obs))
        lengths.append(len(agent.actions))
        return lengths[-1], float(agent.finish())

    per_time_step = 4 * 2 * (4 * hidden + hidden * 2)
    return Workload(step, agent.parameters, episodes, 4, "episodes", 1, lambda: per_time_step * sum(lengths) / len(lengths))


SPECS = [ModelSpec("reinforce", "REINFORCE on a NumPy cart-pole, one update per episode", "overhead", workload,
                   (__name__,)),
         ModelSpec("reinforce-agent", "the same REINFORCE written the ordinary way: Generator and trajectory lists "
                   "on the agent, jitted whole (co-execution)", "overhead", agent_workload, (__name__,))]
