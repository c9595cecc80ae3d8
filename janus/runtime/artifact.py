"""A compiled module: the .vmfb bytes plus what the runtime must know to call it.

The .vmfb does not say which trailing arguments and results belong to the Python heap,
nor the exact MLIR types the runtime checks values against, so each artifact carries a
manifest. On disk the manifest is the JSON sidecar ``<file>.vmfb.json``; IREE's own
tools ignore it and run the .vmfb alone.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from janus.heap import HeapManifest
from janus.runtime.values import ALIGNMENT, ValueType, from_json, to_json

#: Bumped whenever the sidecar layout changes (2: signature types in their JSON form).
MANIFEST_VERSION = 3


@dataclass(frozen=True)
class FunctionInfo:
    """One public function: the types of all inputs and results (heap slots included), each
    as the converter of its values."""

    name: str
    inputs: tuple[ValueType, ...]
    results: tuple[ValueType, ...]
    heap: HeapManifest
    #: the compiled code may write an argument's buffer (IREE 3.13 runs ``iree_linalg_ext``
    #: scatters and sorts in place on an argument): arguments are then always copied
    writes_arguments: bool = True
    #: per trailing storage argument after ``inputs`` (``result_storage``): the result IREE writes into it
    storage: tuple[int, ...] = ()
    #: the module keeps state between calls (mutable ``util.global``s: a batched tree recursion's
    #: table): calls of it must not overlap
    stateful: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"inputs": [to_json(t) for t in self.inputs], "results": [to_json(t) for t in self.results],
                "heap": self.heap.to_json(), "writes_arguments": self.writes_arguments, "storage": list(self.storage),
                "stateful": self.stateful}

    @classmethod
    def from_json(cls, name: str, data: Mapping[str, Any]) -> "FunctionInfo":
        inputs = tuple(from_json(t) for t in data["inputs"])
        return cls(name, inputs, tuple(from_json(t) for t in data["results"]), HeapManifest.from_json(data["heap"]),
                   bool(data.get("writes_arguments", True)), tuple(int(i) for i in data.get("storage", ())),
                   bool(data.get("stateful", False)))


@dataclass(frozen=True)
class Artifact:
    vmfb: bytes
    #: Name of the target preset (``janus.runtime.targets``) it was compiled for.
    target: str
    functions: Mapping[str, FunctionInfo]
    #: the byte alignment its code assumes of argument buffers (``targets.import_alignment``;
    #: IREE's default where a sidecar does not say): arrays aligned so are imported in place
    alignment: int = ALIGNMENT

    def manifest(self) -> dict[str, Any]:
        """The JSON sidecar's content."""
        return {
            "janus_manifest": MANIFEST_VERSION,
            "target": self.target,
            "functions": {name: info.to_json() for name, info in self.functions.items()},
            "alignment": self.alignment,
        }

    def save(self, path: str | Path) -> None:
        """Write the .vmfb to ``path`` and its manifest to ``<path>.json``."""
        Path(path).write_bytes(self.vmfb)
        sidecar_path(path).write_text(json.dumps(self.manifest(), indent=2) + "\n", encoding="utf-8")

    @classmethod
    def load(cls, path: str | Path) -> "Artifact":
        """Read a .vmfb and its sidecar (``FileNotFoundError`` names a missing sidecar)."""
        sidecar = sidecar_path(path)
        if not sidecar.exists():
            raise FileNotFoundError(f"{sidecar}: no janus manifest beside {path} (janus-compile writes one)")
        manifest = json.loads(sidecar.read_text(encoding="utf-8"))
        try:
            return cls.from_manifest(Path(path).read_bytes(), manifest)
        except ValueError as e:
            raise ValueError(f"{sidecar}: {e}") from None

    @classmethod
    def from_manifest(cls, vmfb: bytes, manifest: Mapping[str, Any]) -> "Artifact":
        """The artifact of ``vmfb`` described by ``manifest`` (``ValueError`` when malformed)."""
        if manifest.get("janus_manifest") != MANIFEST_VERSION:
            raise ValueError(f"unsupported janus manifest version {manifest.get('janus_manifest')!r}")
        try:
            functions = {name: FunctionInfo.from_json(name, f) for name, f in manifest["functions"].items()}
            return cls(vmfb, manifest["target"], functions, int(manifest.get("alignment", ALIGNMENT)))
        except (KeyError, TypeError, ValueError) as e:
            raise ValueError(f"malformed janus manifest: {type(e).__name__}: {e}") from None


def sidecar_path(vmfb_path: str | Path) -> Path:
    """Where the manifest of ``vmfb_path`` lives."""
    return Path(f"{vmfb_path}.json")
