"""Fixtures: the shared test modules (tests/modules/*.mlir) compiled; a per-session compile cache.

Compiling takes 0.3-1 s per module, so each compiled module is built once per session.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from typing import Iterator

import pytest

# Compiled modules are cached for this test session only, never shared with the user's
# cache (~/.cache/janus) or an earlier run: every run compiles what it tests.
os.environ["JANUS_CACHE_DIR"] = _CACHE = tempfile.mkdtemp(prefix="janus-test-cache-")
atexit.register(shutil.rmtree, _CACHE, ignore_errors=True)

from janus.runtime import Artifact, CompiledModule
from tests.helpers import compile_test_module


@pytest.fixture(scope="session")
def guards_artifact() -> Artifact:
    return compile_test_module("guards")


@pytest.fixture(scope="session")
def guards(guards_artifact: Artifact) -> CompiledModule:
    return CompiledModule(guards_artifact)


@pytest.fixture(scope="session")
def scalars() -> CompiledModule:
    return CompiledModule(compile_test_module("scalars"))


@pytest.fixture(autouse=True, scope="session")
def _compiled_versions_stay() -> Iterator[None]:
    """Compiled versions stay compiled under test, those compiled by module-scoped fixtures
    included: the cost rule of compiled versions times real calls
    (tests/frontend/test_jit_compiled_cost.py turns it on with a patched clock)."""
    from janus.frontend.jit import JitFunction

    JitFunction.COMPILED_COST = False
    yield
    JitFunction.COMPILED_COST = True
