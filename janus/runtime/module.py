"""Loading a compiled module and calling its functions from Python.

A call converts arguments with converters built once per function, reads the function's
heap inputs from live Python objects, invokes the VM function directly (cheaper than
``iree.runtime.FunctionInvoker``) and commits heap writes only after the call returned
and every result was converted: a failed guard or any other error commits nothing. Small
results come back through storage the call passes (``result_storage``); a call with
scalars only builds its own argument and result lists (no scratch, no turn to wait for).

A module loaded without an explicit driver on a target with a ``parallel_driver`` (the
CPU: local-sync, then local-task) is loaded on the second driver too once one of its
functions is slow enough to compare them; ``drivers.DriverChoice`` picks per call.
"""

from __future__ import annotations

import functools
import os
from time import perf_counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from iree import runtime as rt

from janus.runtime import drivers, fast_path, host_modules
from janus.runtime.artifact import Artifact, FunctionInfo
from janus.runtime.compiler import DEFAULT_FILENAME, ModuleLike, compile_module
from janus.passes.recursion.recursion_to_dispatch import HOST_SUFFIX
from janus.runtime.drivers import DriverChoice, median
from janus.runtime.entry_choice import EntryChoice
from janus.runtime.errors import GuardFailure
from janus.runtime.targets import get_target
from janus.runtime.values import (SCALAR_TYPES, IndexArrayType, Scratch, StoredResult, TensorType, Traffic, Transfer,
                                  Turn, UnsupportedType)

#: the drivers whose device memory is the host's: arrays are shared with compiled code, not copied
HOST_DRIVERS = frozenset({"local-sync", "local-task"})


@functools.cache
def device_config(driver: str) -> rt.Config:
    """One IREE device per driver per process (local-task starts a thread pool)."""
    available = rt.query_available_drivers()
    if driver not in available:
        raise ValueError(f"unknown IREE driver '{driver}'; available: {', '.join(available)}")
    # Under mpiexec IREE's HAL sees these, dlopens "libmpi.so" for its own collective
    # channels and fails the device when a pip-installed MPI is not on the library path.
    # Janus's collectives go through mpi4py (janus.distributed), so IREE need not see them.
    hidden = {name: os.environ.pop(name) for name in _MPI_JOB_VARIABLES if name in os.environ}
    try:
        return rt.Config(driver)
    finally:
        os.environ.update(hidden)


#: what IREE's HAL reads to detect an MPI job (iree/hal/utils/mpi_channel_provider.c)
_MPI_JOB_VARIABLES = ("PMI_SIZE", "OMPI_COMM_WORLD_SIZE")


@dataclass(frozen=True)
class Loaded:
    """The module loaded on one driver's device."""

    context: rt.SystemContext
    vm_module: rt.VmModule


class CompiledModule:
    """A loaded .vmfb; ``module[name](*args, objects=...)`` calls a function."""

    def __init__(self, artifact: Artifact, driver: str | None = None) -> None:
        """Load ``artifact`` on ``driver``; by default on its target's driver, each function
        timed against the target's ``parallel_driver`` (see ``drivers``) where it has one."""
        target = get_target(artifact.target)
        self.artifact = artifact
        self.driver = driver or target.driver
        #: the driver slow calls are compared with (None: every call runs on ``driver``)
        self.parallel_driver = target.parallel_driver if driver is None and not host_modules.serial_only() else None
        self._loaded: dict[str, Loaded] = {}
        self.on_driver(self.driver)
        self._functions: dict[str, CompiledFunction] = {}

    def on_driver(self, driver: str) -> Loaded:
        """The module on ``driver``'s device, loaded on first use (one context per driver)."""
        loaded = self._loaded.get(driver)
        if loaded is None:
            context = rt.SystemContext(config=device_config(driver))
            for host in host_modules.active():  # before the module that imports them
                context.add_vm_module(host.create(context.config.device))
            vm_module = rt.VmModule.copy_buffer(context.instance, self.artifact.vmfb)
            context.add_vm_module(vm_module)
            loaded = self._loaded[driver] = Loaded(context, vm_module)
        return loaded

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
        """Compile ``module`` in memory (``pipeline`` default: the target's) and load it; its
        small results come back through storage the calls pass (``result_storage``)."""
        return cls(compile_module(module, target, pipeline=pipeline, filename=filename, result_storage=True), driver)

    @classmethod
    def load(cls, path: str | Path, driver: str | None = None) -> "CompiledModule":
        """Load a .vmfb written by ``janus-compile`` (or ``Artifact.save``) with its sidecar."""
        return cls(Artifact.load(path), driver)

    @property
    def loaded_drivers(self) -> list[str]:
        """The drivers the module is loaded on so far."""
        return list(self._loaded)

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


@dataclass(frozen=True)
class Runner:
    """What calling one function on one driver needs."""

    driver: str
    invoke: Any
    function: rt.VmFunction
    device: rt.HalDevice
    #: device memory is host memory (``HOST_DRIVERS``)
    host: bool
    #: the stages, transfer and lists calls reuse, one call at a time (whoever holds ``turn``)
    scratch: Scratch
    turn: Turn
    #: the function's twin calling the host machines instead of dispatches (``entry_choice``), or None
    host_twin: rt.VmFunction | None

    @classmethod
    def of(cls, function: "CompiledFunction", driver: str) -> "Runner":
        loaded = function._module.on_driver(driver)
        host = driver in HOST_DRIVERS
        device = loaded.context.config.device
        scratch = Scratch(device, host, function.traffic, len(function._inputs), len(function._results),
                          not function._info.writes_arguments, function._outputs, function._module.artifact.alignment)
        twin = loaded.vm_module.lookup_function(function.name + HOST_SUFFIX) if function.entry_choice else None
        return cls(driver, loaded.context.vm_context.invoke, loaded.vm_module.lookup_function(function.name),
                   device, host, scratch, Turn(function._info.stateful), twin)


class CompiledFunction:
    """One exported function, with its converters and heap manifest ready for calls."""

    def __init__(self, module: CompiledModule, info: FunctionInfo) -> None:
        self.name = info.name
        self._module = module
        unsupported = [t for t in (*info.inputs, *info.results) if isinstance(t, UnsupportedType)]
        if unsupported:
            raise TypeError(unsupported[0].problem())
        self._inputs = info.inputs
        #: per input slot: its index, its converter's ``arg`` and ``push``
        self._slots = range(len(info.inputs))
        self._args = tuple(kind.arg for kind in info.inputs)
        self._pushes = tuple(kind.push for kind in info.inputs)
        self._returned = len(info.results) - len(info.heap.writes)
        self._results = info.results
        #: the results IREE writes into storage the call passes (``result_storage``), in argument order
        self._outputs = tuple(info.results[i] for i in info.storage)
        stored = {index: StoredResult(position) for position, index in enumerate(info.storage)}
        #: per result: its index and its converter's ``pull``
        self._indexed_pulls = tuple((i, (stored.get(i) or kind).pull) for i, kind in enumerate(self._results))
        self._heap = info.heap if info.heap.reads or info.heap.writes else None
        self._info = info
        self._arity = len(info.inputs) - len(info.heap.reads)
        #: scalars in and out: a call builds its own lists (cheaper than the scratch and its lock)
        self._scalars_only = all(isinstance(kind, SCALAR_TYPES) for kind in (*info.inputs, *info.results))
        #: bytes copied and shared over the calls (``janus.explain``, benchmarks)
        self.traffic = Traffic()
        #: the timed choice between this function and its host twin (``entry_choice``), when it has one;
        #: the steady calls of ``fast_path`` make it, the general path takes the dispatch export
        twin = module.artifact.functions.get(info.name + HOST_SUFFIX)
        self.entry_choice = EntryChoice() if self._scalars_only and twin and twin.inputs == info.inputs else None
        self._runners = [Runner.of(self, module.driver)]
        #: the running choice of driver, when the module has a second one to compare with
        self.choice = DriverChoice() if module.parallel_driver else None
        #: the inputs whose size may differ between calls (a relaxed dim, a tree's index array): a call's work
        self._sized = tuple(i for i, kind in enumerate(info.inputs) if _varies(kind))

    def __call__(self, *args: Any, objects: Sequence[object] = ()) -> Any:
        """Results as NumPy arrays or Python scalars: one value, a tuple, or None."""
        results = self.results(args, objects)
        if len(results) == 1:
            return results[0]
        return tuple(results) if results else None

    @property
    def heap_reads(self) -> tuple:
        """The heap locations whose values follow the arguments, in order (``AccessPath``s)."""
        return self._info.heap.reads

    def caller(self) -> fast_path.Caller | None:
        """``run_inputs`` for inputs that passed a version's entry guards (each array of its
        input's exact dtype and shape; heap reads after the arguments), generated for this
        function (``fast_path``); None for a function that writes the heap."""
        return fast_path.caller(self)

    def steady_call(self, commits: bool = False) -> "fast_path.SteadyCall | fast_path.Caller | None":
        """``caller``'s generated call as source a version's fused call inlines
        (``fast_path.SteadyCall``), or what ``caller`` gives when it generates none;
        ``commits``: the fused call stores the heap writes itself (``fast_path.steady_call``)."""
        return fast_path.steady_call(self, commits)

    def written(self) -> list[tuple[Any, int]] | None:
        """Each heap location written and the result index of its new value, when every one
        is an array of one or more dims (``fast_path.written``)."""
        return fast_path.written(self)

    def results(self, args: Sequence[Any], objects: Sequence[object] = ()) -> list[Any]:
        """The call as a list of results (the per-call path of ``janus.jit``)."""
        if len(args) != self._arity:
            raise TypeError(f"@{self.name} takes {self._arity} arguments, got {len(args)}")
        heap = self._heap
        if heap is not None:
            args = (*args, *heap.read_inputs(objects))
        results = self.run_inputs(args)
        if heap is not None and heap.writes:
            heap.commit(objects, results[self._returned :])
            del results[self._returned :]
        return results

    def run_inputs(self, inputs: Sequence[Any]) -> list[Any]:
        """Every result of a call given every input (heap reads included), on the driver the
        choice says; nothing committed."""
        choice = self.choice
        if choice is None:
            return self._run(self._runners[0], inputs)
        driver = choice.next() if choice.compared else 0  # what ``next`` says, without the call
        runner = self._runners[0] if driver == 0 else self._runner(driver)
        started = perf_counter()
        results = self._run(runner, inputs)
        choice.record(driver, perf_counter() - started, self._work(inputs) if self._sized else 1.0)
        return results

    def _work(self, inputs: Sequence[Any]) -> float:
        """The call's size for the driver choice: the elements of the inputs whose size
        varies (a tree's node arrays, a sequence's steps), at least 1 (inputs the call
        converted: each is an array)."""
        return float(max(1, sum(inputs[i].size for i in self._sized)))

    def _run(self, runner: Runner, args: Sequence[Any]) -> list[Any]:
        """Push ``args`` to ``runner``'s device, invoke, pull every result; with the
        runner's scratch (stages, lists) unless another call (another thread, or a
        reentrant one) holds it."""
        if self._scalars_only:  # IREE only reads an argument list: without arguments, the scratch's empty one
            arguments = self._scalar_arguments(args) if args else runner.scratch.arguments
            return self._call(runner, arguments, rt.VmVariantList(len(self._results)), None)
        turn = runner.turn
        if turn.try_take():  # held until the results are out; a stateful module's calls wait
            try:
                scratch = runner.scratch
                transfer = scratch.transfer
                transfer.pinned.clear()
                items = self._items(args, transfer)
                if items != scratch.items or 0.0 in items:  # the same stages, views and scalars: the same list
                    # (a zero is pushed again: -0.0 == 0.0)
                    scratch.arguments, scratch.items = self._arguments(items, transfer), items
                return self._call(runner, scratch.arguments, scratch.results, transfer)
            finally:
                turn.give()
        transfer = Transfer(runner.device, runner.host, self.traffic, share=not self._info.writes_arguments,
                            outputs=self._outputs, alignment=self._module.artifact.alignment)
        return self._call(runner, self._arguments(self._items(args, transfer), transfer),
                          rt.VmVariantList(len(self._results)), transfer)

    def _items(self, args: Sequence[Any], transfer: Transfer) -> list[Any]:
        """What each argument passes to IREE: scalars, buffer views."""
        items: list[Any] = []
        append = items.append
        try:
            for slot, arg, value in zip(self._slots, self._args, args):
                append(arg(value, transfer, slot))
        except (TypeError, OverflowError) as e:
            raise type(e)(f"{self._input_name(len(items))}: {e}") from None
        return items

    def _scalar_arguments(self, args: Sequence[Any]) -> rt.VmVariantList:
        """The argument list of a call whose inputs are all scalars."""
        arguments = rt.VmVariantList(len(args))
        try:
            for push, arg, value in zip(self._pushes, self._args, args):
                push(arguments, arg(value, None, 0))
        except (TypeError, OverflowError) as e:
            raise type(e)(f"{self._input_name(len(arguments))}: {e}") from None
        return arguments

    def _arguments(self, items: list[Any], transfer: Transfer) -> rt.VmVariantList:
        """The argument list: the items, then the storage of the results IREE writes in place."""
        arguments = rt.VmVariantList(len(items) + len(transfer.outputs))
        for push, item in zip(self._pushes, items):
            push(arguments, item)
        for stage in transfer.outputs:
            arguments.push_ref(stage.view)
        return arguments

    def _call(self, runner: Runner, arguments: rt.VmVariantList, results: rt.VmVariantList,
              transfer: Transfer | None) -> list[Any]:
        """The call's results; ``GuardFailure`` for a failed guard (host modules told either way)."""
        hosts = host_modules.active()
        for host in hosts:
            host.begin_call()
        try:
            runner.invoke(runner.function, arguments, results)
        except BaseException as e:
            for host in hosts:
                host.end_call(False)
            failure = GuardFailure.from_error(e, self.name) if isinstance(e, RuntimeError) else None
            if failure is None:
                raise
            raise failure from e
        for host in hosts:
            host.end_call(True)
        self.traffic.calls += 1
        return [pull(results, i, transfer) for i, pull in self._indexed_pulls]

    def _runner(self, driver: int) -> Runner:
        if driver == len(self._runners):  # the parallel driver's first call
            self._runners.append(Runner.of(self, self._module.parallel_driver))
        return self._runners[driver]

    @property
    def driver(self) -> str:
        """The driver most calls run on now."""
        return self._runners[self.choice.current if self.choice else 0].driver

    def describe_driver(self) -> str:
        """Where the calls run and why, and the bytes they move, for ``janus.explain``."""
        recursion = f"; {self.entry_choice.describe()}" if self.entry_choice else ""
        return f"{self._where()}{recursion}; {self.traffic.describe()}"

    def _where(self) -> str:
        choice = self.choice
        if choice is None or not choice.compared:
            return f"runs on {self.driver}" + (f" (calls under {drivers.MIN_SECONDS * 1e3:g} ms)" if choice else "")
        timed = [f"{r.driver} {1e3 * median(t):.3g} ms" for r, t in zip(self._runners, choice.times) if t]
        per = " per element of the inputs whose size varies" if self._sized else ""
        ratio = (f"; {self._runners[1].driver}/{self._runners[0].driver} over consecutive calls{per} "
                 f"{median(choice.ratios):.2f}" if choice.ratios else "")
        return f"runs on {self.driver} (median call: {', '.join(timed)}{ratio})"

    def _input_name(self, index: int) -> str:
        if index < self._arity:
            return f"argument {index} of @{self.name} ({self._info.inputs[index].text})"
        return f"heap input {self._info.heap.reads[index - self._arity]} of @{self.name}"

    def __repr__(self) -> str:
        inputs = ", ".join(t.text for t in self._info.inputs[: self._arity])
        results = ", ".join(t.text for t in self._info.results[: self._returned])
        return f"<CompiledFunction @{self.name}({inputs}) -> ({results})>"


def _varies(kind: Any) -> bool:
    """Whether an input of this type may have another size at the next call."""
    return isinstance(kind, IndexArrayType) or isinstance(kind, TensorType) and None in kind.shape
