"""What ``janus.jit`` tells its user: warnings, errors, the ``janus`` loggers, the global switch.

A call that runs in Python is slow for a reason the user can often remove, so it is
reported once per function and reason (``FallbackWarning``, or ``ConversionError`` with
``fallback="error"``). Everything else is opt-in logging, in the spirit of ``TORCH_LOGS``:
``JANUS_LOGS=fallbacks,recompiles,compile_time,guards,graph`` (or ``all``) at import, or
``janus.set_logs(...)``, enables the child loggers of ``logging.getLogger("janus")``.
``JANUS_DISABLE=1`` or ``janus.disable()`` makes every jitted call plain Python.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import warnings
from typing import Iterable, Iterator

#: the log channels, each a child of the ``janus`` logger
CHANNELS = ("fallbacks", "recompiles", "compile_time", "guards", "graph")

LOG = logging.getLogger("janus")
fallbacks, recompiles, compile_time, guards, graph = (LOG.getChild(name) for name in CHANNELS)


class JanusWarning(UserWarning):
    """The base of every warning Janus gives (filter them all with this class)."""


class FallbackWarning(JanusWarning):
    """A jitted call runs in plain Python; ``janus.explain`` says why in full."""


class SplitWarning(JanusWarning):
    """A jitted call runs partly in Python, between compiled segments; ``janus.explain`` lists them."""


class ConversionError(RuntimeError):
    """``fallback="error"``: a jitted call could not be compiled (the message names the reason)."""


_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def warn(message: str, category: type[Warning] = FallbackWarning) -> None:
    """``warnings.warn`` attributed to the first caller outside the ``janus`` package (the user's call)."""
    frame, level = sys._getframe(1), 2
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, category, stacklevel=level)


def set_logs(channels: str | Iterable[str] = "") -> None:
    """Enable the named channels (a comma-separated string or names; ``"all"``) at INFO on
    stderr, and turn the others back to inheriting from ``janus``; ``""`` turns all off."""
    names = [c.strip() for c in channels.split(",")] if isinstance(channels, str) else list(channels)
    names = list(CHANNELS) if "all" in names else [n for n in names if n]
    unknown = set(names) - set(CHANNELS)
    if unknown:
        raise ValueError(f"unknown janus log channel(s) {sorted(unknown)}; known: {', '.join(CHANNELS)}")
    for name in CHANNELS:
        LOG.getChild(name).setLevel(logging.INFO if name in names else logging.NOTSET)
    if names and not LOG.handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("[%(name)s] %(message)s"))
        LOG.addHandler(handler)


class _Switch:
    """Whether ``janus.jit`` compiles at all (one attribute read on each call)."""

    enabled = os.environ.get("JANUS_DISABLE", "") in ("", "0")


SWITCH = _Switch()


def disable() -> None:
    """Every jitted call runs the plain Python function, unprofiled, until ``enable()``."""
    SWITCH.enabled = False


def enable() -> None:
    SWITCH.enabled = True


@contextlib.contextmanager
def disabled() -> Iterator[None]:
    """``with janus.disabled():`` plain Python inside, the previous state after."""
    before = SWITCH.enabled
    SWITCH.enabled = False
    try:
        yield
    finally:
        SWITCH.enabled = before


set_logs(os.environ.get("JANUS_LOGS", ""))
