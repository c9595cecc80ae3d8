"""A helper module as an RL program would have one: discounted, normalized returns (plain
Python over a list of rewards, so a jitted caller runs it in Python between segments)."""

from __future__ import annotations

import numpy as np


def discounted(rewards: list[float], gamma: float) -> np.ndarray:
    out, running = [], 0.0
    for r in reversed(rewards):
        running = r + gamma * running
        out.append(running)
    out.reverse()
    returns = np.array(out)
    return (returns - returns.mean()) / (returns.std() + 1e-8)
