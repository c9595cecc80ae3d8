"""A helper module a training loop logs through (co-execution: a callee from another module
whose text of array values is made and logged in Python)."""

from __future__ import annotations

import logging

LOGGER = logging.getLogger("tests.training")


def record(step: int, **values: float) -> str:
    """Log ``values`` at ``step`` (sorted by name) and return the line."""
    text = " ".join(f"{name}={value:.4f}" for name, value in sorted(values.items()))
    LOGGER.info("step %d %s", step, text)
    return text
