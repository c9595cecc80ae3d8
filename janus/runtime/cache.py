"""A persistent, cross-process cache of iree-compile results.

iree-compile takes 0.3 s to seconds per module and a program's first call pays it for
every version it builds; a second process compiling the same lowered module gets the same
.vmfb. Entries are keyed by everything that decides the bytes: the lowered MLIR text (with
its locations), the flags (target included), and the Janus and IREE compiler versions.

Each entry is one file (``<key>.entry``: manifest JSON length, manifest, .vmfb), written to a
temporary file and moved in place with ``os.replace``, so a reader never sees a partial
entry and two processes writing the same key both leave a whole one. Reading an entry
touches it; when the folder outgrows its bound the least recently used entries go first.

``JANUS_CACHE_DIR`` names the folder (default ``~/.cache/janus``; empty: no cache),
``JANUS_CACHE_MAX_BYTES`` its bound (default 1 GiB); ``set_directory`` overrides both from
code. Debug lines go to the ``janus.runtime.cache`` logger.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

from janus.runtime.artifact import Artifact
from janus.runtime.versions import describe

log = logging.getLogger(__name__)

DEFAULT_MAX_BYTES = 1 << 30
_SUFFIX = ".entry"
#: Sentinel: the folder comes from the environment.
_FROM_ENV = object()
_override: Any = _FROM_ENV


@dataclass
class Stats:
    """What this process's cache lookups did (``stats()``)."""

    hits: int = 0
    misses: int = 0
    writes: int = 0
    evictions: int = 0


_stats = Stats()


def stats() -> dict[str, int]:
    """Counters since the process started."""
    return asdict(_stats)


def set_directory(directory: str | Path | None | object = _FROM_ENV) -> None:
    """Use ``directory`` (None: no cache) instead of ``JANUS_CACHE_DIR``; no argument
    restores the environment's choice."""
    global _override
    _override = directory


def directory() -> Path | None:
    """The cache folder in use, or None when caching is off."""
    if _override is not _FROM_ENV:
        return None if _override is None else Path(_override)
    env = os.environ.get("JANUS_CACHE_DIR")
    if env is None:
        return Path.home() / ".cache" / "janus"
    return Path(env) if env else None


def max_bytes() -> int:
    return int(os.environ.get("JANUS_CACHE_MAX_BYTES", DEFAULT_MAX_BYTES))


def key(mlir: str, flags: Sequence[str], target: str) -> str:
    """The entry name of a compile: a hash of everything that decides its bytes."""
    h = hashlib.sha256()
    for part in (describe(), target, "\0".join(flags), mlir):
        h.update(part.encode())
        h.update(b"\0\1")
    return h.hexdigest()


def read(folder: Path, name: str) -> Artifact | None:
    """The entry ``name``, touched as just used; None when absent or unreadable."""
    path = folder / (name + _SUFFIX)
    try:
        data = path.read_bytes()
        length = int.from_bytes(data[:8], "little")
        artifact = Artifact.from_manifest(data[8 + length:], json.loads(data[8:8 + length]))
        os.utime(path)
    except (OSError, ValueError, KeyError):
        return None
    return artifact


def write(folder: Path, name: str, artifact: Artifact) -> None:
    """Store ``artifact`` under ``name`` atomically, then evict down to the bound. A cache
    that cannot be written is skipped, never an error."""
    manifest = json.dumps(artifact.manifest()).encode()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=name[:16], suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(len(manifest).to_bytes(8, "little") + manifest + artifact.vmfb)
            os.replace(tmp, folder / (name + _SUFFIX))
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except OSError as e:
        log.debug("compile cache: cannot write %s: %s", folder, e)
        return
    _stats.writes += 1
    evict(folder, max_bytes())


def evict(folder: Path, bound: int) -> int:
    """Delete the least recently used entries until the folder holds at most ``bound``
    bytes; how many went."""
    entries = []
    for path in folder.glob("*" + _SUFFIX):
        try:
            st = path.stat()
        except OSError:  # another process evicted it
            continue
        entries.append((st.st_mtime, st.st_size, path))
    total = sum(size for _, size, _ in entries)
    gone = 0
    for _, size, path in sorted(entries):
        if total <= bound:
            break
        path.unlink(missing_ok=True)
        total -= size
        gone += 1
    _stats.evictions += gone
    return gone


def cached(mlir: str, flags: Sequence[str], target: str, compile: Callable[[], Artifact]) -> Artifact:
    """The artifact of ``mlir`` compiled with ``flags``: from the cache, or ``compile()``d
    and stored."""
    folder = directory()
    if folder is None:
        return compile()
    name = key(mlir, flags, target)
    artifact = read(folder, name)
    if artifact is not None:
        _stats.hits += 1
        log.debug("compile cache hit %s in %s", name[:12], folder)
        return artifact
    _stats.misses += 1
    log.debug("compile cache miss %s in %s", name[:12], folder)
    artifact = compile()
    write(folder, name, artifact)
    return artifact
