"""Fixtures: the shared test modules (tests/modules/*.mlir) compiled.

Compiling takes 0.3-1 s per module, so each compiled module is built once per session.
"""

from __future__ import annotations

import pytest

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
