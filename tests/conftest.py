"""Shared test modules (tests/modules/*.mlir) and their compiled forms.

Compiling takes 0.3-1 s per module, so each compiled module is built once per session.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from janus.runtime import Artifact, CompiledModule, compile_module

MODULES = Path(__file__).parent / "modules"

#: Passes that suffice for modules without heap access or calls.
GUARD_PIPELINE = "janus-verify,janus-lower-guards,canonicalize,cse,janus-check-iree-ready"


def module_path(name: str) -> Path:
    return MODULES / f"{name}.mlir"


def compile_test_module(name: str, target: str = "cpu", pipeline: str = GUARD_PIPELINE) -> Artifact:
    path = module_path(name)
    return compile_module(path.read_text(encoding="utf-8"), target, pipeline=pipeline, filename=str(path))


@pytest.fixture(scope="session")
def guards_artifact() -> Artifact:
    return compile_test_module("guards")


@pytest.fixture(scope="session")
def guards(guards_artifact: Artifact) -> CompiledModule:
    return CompiledModule(guards_artifact)


@pytest.fixture(scope="session")
def scalars() -> CompiledModule:
    return CompiledModule(compile_test_module("scalars"))
