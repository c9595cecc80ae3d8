"""Ahead-of-time export: the specialized graph of a Python function, as a .vmfb that runs
without Python, plus what a caller needs to feed it.

``export(fn, *example_args)`` runs ``fn`` once imperatively under the profiler (branch
directions, as ``janus.jit`` would have seen them), generates its graph for exactly these
argument types and shapes (Python scalars become constants), compiles it for the target
and writes ``<path>`` and its manifest ``<path>.json``. The manifest's ``export`` section
lists the inputs in order (name, shape, dtype, MLIR type), the constants baked in, the
outputs, the speculative guards (a failed one stops the call with FAILED_PRECONDITION) and
an ``iree-run-module`` command line. Arguments named in ``params`` (trained weights) are
saved as .npy files beside the .vmfb, so a caller only brings the other inputs.

A bound method (``model.infer``) or a function taking objects exports too: the values its
graph reads from them (``self.W``) are the trailing inputs the heap manifest lists (see
``janus.heap``), captured at export time into .npy files like ``params``.
"""

from __future__ import annotations

import inspect
import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable

import numpy as np

from janus.frontend.generate import Graph, generate
from janus.frontend.heap.rules import is_heap_object
from janus.frontend.profiler import Profile, run_profiled
from janus.frontend.trace.versions import supported, unsupported_message
from janus.frontend.signature import STATIC_TYPES
from janus.frontend.recursion.trees import is_tree
from janus.frontend.values import NotConvertible

if TYPE_CHECKING:
    from janus.runtime.values import ValueType


@dataclass(frozen=True)
class Exported:
    """What ``export`` wrote: the .vmfb, its manifest, and the manifest's export section."""

    vmfb: Path
    manifest: Path
    info: dict[str, Any]

    @property
    def command(self) -> list[str]:
        """The ``iree-run-module`` command line, to run in the .vmfb's folder (the other
        inputs are read from ``<name>.npy`` files there)."""
        return self.info["iree_run_module"]


def _leaves(name: str, value: Any, arrays: list[tuple[str, np.ndarray]], constants: dict[str, Any]) -> None:
    """Arrays in graph-argument order (as ``janus.frontend.signature`` walks arguments) and
    the static values the graph bakes in, named by parameter and position."""
    if is_heap_object(value) and not is_tree(value):
        return  # its reads are the trailing inputs (``_heap_inputs``)
    if type(value) is np.ndarray or isinstance(value, np.generic):
        arrays.append((name, np.asarray(value)))
    elif type(value) in STATIC_TYPES:
        constants[name] = value
    elif type(value) in (list, tuple):
        for i, item in enumerate(value):
            _leaves(f"{name}[{i}]", item, arrays, constants)
    else:
        raise NotConvertible(f"argument {name} of type {type(value).__name__} cannot be exported")


def _describe(kind: "ValueType") -> dict[str, Any]:
    """An input's entry for a ``janus.runtime.values`` converter."""
    from janus.runtime.values import TensorType

    if isinstance(kind, TensorType):
        return {"mlir": kind.text, "shape": list(kind.shape), "dtype": kind.dtype.name}
    return {"mlir": kind.text, "shape": [], "dtype": kind.text}


def _heap_inputs(graph: Graph, function: Any, args: tuple, arrays: list[np.ndarray]) -> list[tuple[str, Any]]:
    """(label, value) of each heap read, in the order of the trailing function inputs."""
    if function.heap.writes:
        raise NotConvertible("the graph writes Python objects; an export cannot commit them")
    if not function.heap.reads:
        return []
    objects = graph.heap.objects(args)
    labels = graph.heap.labels
    return [(labels.get(path, path.describe()), np.asarray(value))
            for path, value in zip(function.heap.reads, function.heap.read_inputs(objects))]


def export(fn: Callable, *example_args: Any, path: str | Path, target: str = "cpu", params: Iterable[str] = (),
           extra_flags: Iterable[str] = ()) -> Exported:
    """Compile ``fn`` specialized to ``example_args`` into ``path`` (a .vmfb) and its manifest.

    Raises ``NotConvertible`` (with the reason) when the function has no graph, and
    ``janus.runtime.CompileError`` when IREE rejects it.
    """
    from janus.runtime import compile_module, get_target  # IREE loads on first use, not on ``import janus``

    if not supported():
        raise NotConvertible(f"{unsupported_message()}: janus.export cannot compile {fn.__qualname__}")
    path = Path(path)
    if inspect.ismethod(fn):  # the graph of the function, its object the first argument
        fn, example_args = fn.__func__, (fn.__self__, *example_args)
    names = list(inspect.signature(fn).parameters)
    params = list(params)
    unknown = [p for p in params if p not in names]
    if unknown or len(example_args) != len(names):
        raise ValueError(f"{fn.__qualname__}({', '.join(names)}) called with {len(example_args)} example arguments"
                         + (f"; unknown params {unknown}" if unknown else ""))
    arrays: list[tuple[str, np.ndarray]] = []
    constants: dict[str, Any] = {}
    for name, value in zip(names, example_args):
        _leaves(name, value, arrays, constants)
    profile = Profile()
    run_profiled(fn, example_args, {}, profile)
    graph = generate(fn, tuple(example_args), profile)
    artifact = compile_module(graph.text, target, pipeline=graph.pipeline(get_target(target).pipeline),
                              extra_flags=list(extra_flags))
    function = artifact.functions[graph.func_name]
    heap = _heap_inputs(graph, function, tuple(example_args), [a for _, a in arrays])
    artifact.save(path)
    folder = path.with_name(f"{path.stem}.params")
    inputs, command = [], ["iree-run-module", f"--device={get_target(target).driver}", f"--module={path.name}",
                           f"--function={graph.func_name}"]
    for i, ((name, value), kind) in enumerate(zip(arrays + heap, function.inputs)):
        entry = {"name": name, **_describe(kind)}
        if name.split("[")[0] in params or i >= len(arrays):
            folder.mkdir(exist_ok=True)
            file = folder / f"{name}.npy"
            np.save(file, value)
            entry["file"] = str(file.relative_to(path.parent))
        inputs.append(entry)
        command.append(f"--input=@{entry.get('file', f'{name}.npy')}")
    info = {
        "source": f"{fn.__module__}:{fn.__qualname__}",
        "function": graph.func_name,
        "inputs": inputs,
        "constants": constants,
        "outputs": [_describe(t) for t in function.results],
        "guards": [{"id": gid, "kind": kind, "source": source} for gid, kind, source in graph.guards],
        "iree_run_module": command,
    }
    manifest_path = Path(f"{path}.json")
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    manifest["export"] = info
    manifest_path.write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    return Exported(path, manifest_path, info)
