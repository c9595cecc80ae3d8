"""The versions that decide what a compile produces: Janus's and the IREE packages'."""

from __future__ import annotations

from functools import cache
from importlib import metadata

PACKAGES = ("janus", "iree-base-compiler", "iree-base-runtime")


@cache
def versions() -> dict[str, str]:
    """Installed version of each of ``PACKAGES`` ("unknown" when not installed as a package)."""
    out = {}
    for name in PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "unknown"
    return out


def describe() -> str:
    """One line, e.g. ``janus 0.1.0, iree-base-compiler 3.13.0, iree-base-runtime 3.13.0``."""
    return ", ".join(f"{name} {version}" for name, version in versions().items())
