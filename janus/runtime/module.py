"""Loading a compiled module and calling its functions from Python.

A call converts arguments with converters built once per function, reads the function's
heap inputs from live Python objects, invokes the VM function directly (cheaper than
``iree.runtime.FunctionInvoker``) and commits heap writes only after the call returned
and every result was converted: a failed guard or any other error commits nothing.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any, Sequence

from iree import runtime as rt

from janus.runtime.artifact import Artifact, FunctionInfo
from janus.runtime.compiler import DEFAULT_FILENAME, ModuleLike, compile_module
from janus.runtime.errors import GuardFailure
from janus.runtime.targets import get_target
from janus.runtime.values import parse_type


@functools.cache
def device_config(driver: str) -> rt.Config:
    """One IREE device per driver per process (local-task starts a thread pool)."""
    available = rt.query_available_drivers()
    if driver not in available:
        raise ValueError(f"unknown IREE driver '{driver}'; available: {', '.join(available)}")
    return rt.Config(driver)


class CompiledModule:
    """A loaded .vmfb; ``module[name](*args, objects=...)`` calls a function."""

    def __init__(self, artifact: Artifact, driver: str | None = None) -> None:
        """Load ``artifact`` on ``driver`` (default: its target's driver)."""
        self.artifact = artifact
        self.driver = driver or get_target(artifact.target).driver
        self._context = rt.SystemContext(config=device_config(self.driver))
        self._vm_module = rt.VmModule.copy_buffer(self._context.instance, artifact.vmfb)
        self._context.add_vm_module(self._vm_module)
        self._functions: dict[str, CompiledFunction] = {}

    @classmethod
    def from_mlir(
        cls,
        module: ModuleLike,
        target: str = "cpu",
        driver: str | None = None,
        *,
        pipeline: str | None = None,
        filename: str = DEFAULT_FILENAME,
    ) -> "CompiledModule":
        """Compile ``module`` in memory (``pipeline`` default: the target's) and load it."""
        return cls(compile_module(module, target, pipeline=pipeline, filename=filename), driver)

    @classmethod
    def load(cls, path: str | Path, driver: str | None = None) -> "CompiledModule":
        """Load a .vmfb written by ``janus-compile`` (or ``Artifact.save``) with its sidecar."""
        return cls(Artifact.load(path), driver)

    @property
    def function_names(self) -> list[str]:
        return list(self.artifact.functions)

    def __getitem__(self, name: str) -> "CompiledFunction":
        function = self._functions.get(name)
        if function is None:
            info = self.artifact.functions.get(name)
            if info is None:
                raise KeyError(f"no function @{name}; the module exports {', '.join(self.function_names) or 'none'}")
            function = self._functions[name] = CompiledFunction(self, info)
        return function

    def call(self, name: str, *args: Any, objects: Sequence[object] = ()) -> Any:
        return self[name](*args, objects=objects)


class CompiledFunction:
    """One exported function, with its converters and heap manifest ready for calls."""

    def __init__(self, module: CompiledModule, info: FunctionInfo) -> None:
        self.name = info.name
        self._invoke = module._context.vm_context.invoke
        self._vm_function = module._vm_module.lookup_function(info.name)
        self._device = module._context.config.device
        self._inputs = [parse_type(t) for t in info.inputs]
        self._results = [parse_type(t) for t in info.results]
        self._heap = info.heap if info.heap.reads or info.heap.writes else None
        self._info = info
        self._arity = len(info.inputs) - len(info.heap.reads)
        self._returned = len(info.results) - len(info.heap.writes)

    def __call__(self, *args: Any, objects: Sequence[object] = ()) -> Any:
        """Results as NumPy arrays or Python scalars: one value, a tuple, or None."""
        results = self.results(args, objects)
        if len(results) == 1:
            return results[0]
        return tuple(results) if results else None

    def results(self, args: Sequence[Any], objects: Sequence[object] = ()) -> list[Any]:
        """The call as a list of results (the per-call path of ``janus.jit``)."""
        if len(args) != self._arity:
            raise TypeError(f"@{self.name} takes {self._arity} arguments, got {len(args)}")
        heap = self._heap
        if heap is not None:
            args = (*args, *heap.read_inputs(objects))
        device = self._device
        arg_list = rt.VmVariantList(len(args))
        for i, (kind, value) in enumerate(zip(self._inputs, args)):
            try:
                kind.push(arg_list, value, device)
            except (TypeError, OverflowError) as e:
                raise type(e)(f"{self._input_name(i)}: {e}") from None
        result_list = rt.VmVariantList(len(self._results))
        try:
            self._invoke(self._vm_function, arg_list, result_list)
        except RuntimeError as e:
            failure = GuardFailure.from_error(e, self.name)
            if failure is None:
                raise
            raise failure from e
        results = [kind.pull(result_list, i, device) for i, kind in enumerate(self._results)]
        if heap is not None:
            heap.commit(objects, results[self._returned :])
            del results[self._returned :]
        return results

    def _input_name(self, index: int) -> str:
        if index < self._arity:
            return f"argument {index} of @{self.name} ({self._info.inputs[index]})"
        return f"heap input {self._info.heap.reads[index - self._arity]} of @{self.name}"

    def __repr__(self) -> str:
        inputs = ", ".join(self._info.inputs[: self._arity])
        results = ", ".join(self._info.results[: self._returned])
        return f"<CompiledFunction @{self.name}({inputs}) -> ({results})>"
