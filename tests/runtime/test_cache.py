"""The persistent compile cache: keys, atomic entries, LRU eviction, and a second process
that skips iree-compile."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from janus.runtime import Artifact, cache

#: A process compiling a tiny module, then printing its cache counters.
COMPILE_AND_REPORT = """
import json
from janus.runtime import cache, compile_module
compile_module('func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {\\n'
               '  %0 = arith.addf %a, %a : tensor<4xf32>\\n  return %0 : tensor<4xf32>\\n}\\n')
print(json.dumps(cache.stats()))
"""


def run_process(folder: Path) -> dict[str, int]:
    env = {**os.environ, "JANUS_CACHE_DIR": str(folder), "PYTHONPATH": str(Path(__file__).parents[2])}
    done = subprocess.run([sys.executable, "-c", COMPILE_AND_REPORT], env=env, capture_output=True, text=True,
                          check=True)
    return json.loads(done.stdout.splitlines()[-1])


def test_a_second_process_skips_iree_compile(tmp_path: Path) -> None:
    first = run_process(tmp_path)
    assert (first["hits"], first["misses"], first["writes"]) == (0, 1, 1)
    assert len(list(tmp_path.glob("*.entry"))) == 1
    second = run_process(tmp_path)
    assert (second["hits"], second["misses"], second["writes"]) == (1, 0, 0)


def artifact(size: int) -> Artifact:
    return Artifact(b"\x01" * size, "cpu", {})


def test_entries_round_trip_and_partial_files_are_misses(tmp_path: Path) -> None:
    cache.write(tmp_path, "k", artifact(10))
    assert cache.read(tmp_path, "k") == artifact(10)
    (tmp_path / "bad.entry").write_bytes(b"\x30\x00")
    assert cache.read(tmp_path, "bad") is None
    assert cache.read(tmp_path, "absent") is None
    assert not list(tmp_path.glob("*.tmp"))


def test_least_recently_used_entries_are_evicted_first(tmp_path: Path) -> None:
    for i, name in enumerate(["old", "used", "new"]):
        cache.write(tmp_path, name, artifact(1000))
        os.utime(tmp_path / f"{name}.entry", (i, i))
    cache.read(tmp_path, "old")  # reading makes it the most recently used
    assert cache.evict(tmp_path, 2500) == 1
    assert sorted(p.stem for p in tmp_path.glob("*.entry")) == ["new", "old"]


def test_key_covers_text_flags_and_target() -> None:
    base = cache.key("module", ["--a"], "cpu")
    assert base == cache.key("module", ["--a"], "cpu")
    assert len({base, cache.key("module2", ["--a"], "cpu"), cache.key("module", ["--b"], "cpu"),
                cache.key("module", ["--a"], "vulkan")}) == 4


def test_empty_directory_or_api_disables_the_cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("JANUS_CACHE_DIR", "")
    assert cache.directory() is None
    monkeypatch.setenv("JANUS_CACHE_DIR", str(tmp_path))
    assert cache.directory() == tmp_path
    cache.set_directory(None)
    try:
        assert cache.directory() is None
    finally:
        cache.set_directory()
    assert cache.directory() == tmp_path
