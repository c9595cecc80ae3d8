"""One generated Python function per compiled function: its steady call with everything pre-bound.

``CompiledFunction.results`` is general (heap reads and writes, any argument, the parallel
driver, host modules, calls from several threads) and pays for it on every call: a
converter method per argument, lists of items compared, the driver timer, per-call
lookups. Most calls of a small function are the same call again: inputs that already
passed a version's entry guards (so each array has the input's exact dtype and shape,
heap reads included), on the first driver, from one thread. For those, ``caller`` writes
one function (as TorchDynamo generates its guard code and JAX keeps a C++ fast path):
small static arrays are copied into the function's stages with one assignment each (the
argument list, holding the stages' views, is built once), scalars pushed (ints into the
last call's list again when they are the same: making a list costs about 0.4 us), the VM
function invoked with the scratch's result list, stored results copied out, other results
pulled by their converters, and the call timed for the driver choice (while that choice is
quiet, one call in ``QUIET_SAMPLE``: a slow call still reaches it, ``DriverChoice.quiet``).
A version's fused call (``guards.EntryGuards.fuse``) inlines this code (``SteadyCall``).
A recursion entry with a host twin invokes the export its ``EntryChoice`` names, timed
(the choice sees a call when it asks for it or when the call was slow); settled on the
twin, one call in ``QUIET_SAMPLE`` is timed, as for a quiet driver choice. Anything else (a
busy scratch: another thread's or a reentrant call; a host module; the driver choice
comparing drivers) goes to ``run_inputs``, which does the same work slower. A function
that writes the heap gets no caller (its commit belongs to ``results``), but a version's
fused call may inline its steady call and store the written results itself.
"""

from __future__ import annotations

from time import perf_counter
from typing import TYPE_CHECKING, Any, Callable, Collection, Sequence

import numpy as np
from iree import runtime as rt

from janus.runtime import host_modules
from janus.runtime.drivers import MIN_SECONDS
from janus.runtime.entry_choice import HOST
from janus.runtime.errors import GuardFailure
from janus.runtime.values import SCALAR_TYPES, SHARE_MIN_BYTES, BoolType, FloatType, IntType, Stage, TensorType

if TYPE_CHECKING:
    from janus.runtime.module import CompiledFunction

I64_MIN, I64_MAX = -(1 << 63), (1 << 63) - 1
#: while the driver choice is quiet (its calls fast), one steady call in this many is timed: enough to
#: see calls turn slow (``DriverChoice`` compares drivers after ``WINDOW`` slow ones), two clock reads
#: saved on the others
QUIET_SAMPLE = 16
#: inputs (arguments, then heap reads) -> every result
Caller = Callable[[Sequence[Any]], list[Any]]


def caller(function: "CompiledFunction") -> Caller | None:
    """``function.run_inputs`` for inputs that passed a version's entry guards (exact dtypes
    and shapes), generated for ``function``; ``run_inputs`` itself when it takes an input the
    generated code does not stage (a large or relaxed array); None when it writes the heap."""
    steady = steady_call(function)
    return steady.build() if isinstance(steady, SteadyCall) else steady


def steady_call(function: "CompiledFunction", commits: bool = False) -> "SteadyCall | Caller | None":
    """The generated steady call of ``function`` as source a caller can inline (a version's
    fused call, ``guards.EntryGuards.fuse``: one Python frame for the entry checks and the
    call); ``run_inputs`` or None as ``caller`` says. ``commits``: the caller commits the
    heap writes itself (``SteadyCall.written``), so a function writing the heap gets its
    steady call too."""
    if function._heap is not None and function._heap.writes and not commits:
        return None
    runner = function._runners[0]
    if not all(_scalar(kind) or _staged(kind) and runner.host for kind in function._info.inputs):
        return function.run_inputs
    return SteadyCall(function, runner)


def written(function: "CompiledFunction") -> list[tuple[Any, int]] | None:
    """Per heap location ``function`` writes (``AccessPath``), the index of the result
    holding its new value (an array or a VM scalar: what the runtime's commit stores there;
    a version's fused call may store it itself, a 0-d array as the NumPy scalar it holds,
    ``SteadyCall.zero_dim``, and a Python scalar of the traced code as its type); None when
    one is of another kind."""
    writes = function._heap.writes if function._heap is not None else ()
    returned = len(function._results) - len(writes)
    if not all(isinstance(kind, TensorType) or _scalar(kind) for kind in function._results[returned:]):
        return None
    return [(path, returned + j) for j, path in enumerate(writes)]


def _scalar(kind: Any) -> bool:
    return isinstance(kind, SCALAR_TYPES)


def _staged(kind: Any) -> bool:
    """An input the generated call copies into its stage: a small array of a static shape."""
    return isinstance(kind, TensorType) and None not in kind.shape and 0 < _nbytes(kind) < SHARE_MIN_BYTES


def _nbytes(kind: TensorType) -> int:
    return kind.dtype.itemsize * int(np.prod(kind.shape, dtype=np.int64))


def _invoke(export: str) -> list[str]:
    """The invoke of ``export``, a failed guard raised as ``GuardFailure``."""
    return ["try:", f"    invoke({export}, arguments, out)", "except RuntimeError as e:", "    failure = from_error(e, NAME)",
            "    if failure is None:", "        raise", "    raise failure from e"]


def _indent(lines: list[str], levels: int = 1) -> list[str]:
    return [" " * (4 * levels) + line for line in lines]


class SteadyCall:
    """The generated call's source and the names it uses (``scope``), for one function on its
    first runner: ``lines(inputs)`` sets ``results`` from the input expressions ``inputs``
    (its own function, ``build``, or inlined in a version's fused call). Its local names
    (``x``, ``n`` and ``s`` with a number, ``out``, ``values``, ``started``, ``elapsed``,
    ``path``, ``failure``, ``e``) and its scope's names are its own."""

    def __init__(self, function: "CompiledFunction", runner: Any) -> None:
        self.function, self.runner = function, runner
        scratch = runner.scratch
        self.scope: dict[str, Any] = {
            "slow": function.run_inputs, "HOSTS": host_modules.ACTIVE, "invoke": runner.invoke,
            "function": runner.function, "from_error": GuardFailure.from_error, "NAME": function.name,
            "List": rt.VmVariantList, "traffic": function.traffic, "transfer": scratch.transfer,
            "choice": function.choice, "perf_counter": perf_counter, "MIN": MIN_SECONDS,
            "acquire": runner.turn.lock.acquire, "release": runner.turn.lock.release, "take": runner.turn.tokens.pop,
            "give": runner.turn.tokens.append, "scratch_results": scratch.results,
            "paths": function.entry_choice, "exports": (runner.function, runner.host_twin),
        }
        inputs = function._info.inputs
        self.staged = [i for i, kind in enumerate(inputs) if not _scalar(kind)]
        self.scalars = [i for i, kind in enumerate(inputs) if _scalar(kind)]
        #: bytes every call copies: its staged arguments and its stored results
        self.copied = sum(_nbytes(inputs[i]) for i in self.staged) + sum(_nbytes(k) for k in function._outputs)

    def python_type(self, index: int) -> type | None:
        """The Python type result ``index`` has as the call gives it (an ``int``, ``float`` or
        ``bool`` scalar result), or None for an array."""
        kind = self.function._results[index]
        if index in self.function._info.storage or not _scalar(kind):
            return None
        return bool if isinstance(kind, BoolType) else float if isinstance(kind, FloatType) else int

    def array_result(self, index: int) -> bool:
        """Whether result ``index`` is an array of one dimension or more as the call gives it
        (its caller returns it without NumPy's 0-d-to-scalar test)."""
        kind = self.function._results[index]
        return isinstance(kind, TensorType) and bool(kind.shape)

    def zero_dim(self, index: int) -> bool:
        """Whether result ``index`` is a 0-d array as the call gives it."""
        kind = self.function._results[index]
        return isinstance(kind, TensorType) and not kind.shape

    def build(self) -> Caller:
        """The call as a function of the list of inputs."""
        n = len(self.function._info.inputs)
        names = [f"x{i}" for i in range(n)]
        body = [f"if len(inputs) != {n}:", "    return slow(inputs)"]
        body += [f"{''.join(f'{x}, ' for x in names)}= inputs"] if n else []
        body += self.lines(names) + ["return results"]
        source = "def call(inputs):\n" + "".join(f"    {line}\n" for line in body)
        namespace: dict[str, Any] = {}
        exec(compile(source, f"<janus call: @{self.function.name}>", "exec"), self.scope, namespace)
        return namespace["call"]

    def lines(self, inputs: list[str], ints: Collection[int] = ()) -> list[str]:
        """Lines setting ``results`` to the call's results for the input expressions
        ``inputs``: handed to ``run_inputs`` unless it is a steady call (no host module, the
        driver choice not comparing, the scratch free, every scalar converts). ``ints``: the
        positions of inputs the caller checked already to be ``int``s in the i64 range."""
        names = [x if x.isidentifier() else f"x{i}" for i, x in enumerate(inputs)]
        body = [f"{name} = {x}" for name, x in zip(names, inputs) if name != x]
        slow = [f"results = slow([{', '.join(names)}])"]
        held = [*_indent(self.locked(names)), *_indent(self.accounting()), "    results = values"]
        if self.runner.turn.waits:  # the scratch: one call at a time (``values.Turn``)
            steady = ["if not acquire(False):", *_indent(slow), "else:", *held]
        else:
            steady = ["try:", "    take()", "except IndexError:", *_indent(slow), "else:", *held]
        converted = self.conversions(names, frozenset(ints), slow, steady)
        if self.function.choice is not None:
            return body + ["if HOSTS or choice.compared:", *_indent(slow), "else:", *_indent(converted)]
        return body + ["if HOSTS:", *_indent(slow), "else:", *_indent(converted)]

    def locked(self, names: list[str]) -> list[str]:
        """Stage, invoke and pull, the scratch held."""
        body = [f"s{i}[...] = {names[i]}" for i in self.staged]
        body += self.argument_list() + ["out = scratch_results"] + self.call()
        return ["try:", *_indent(body), "finally:", "    release()" if self.runner.turn.waits else "    give(True)"]

    def accounting(self) -> list[str]:
        """The byte counts."""
        return ["traffic.calls += 1"] + ([f"traffic.copied += {self.copied}"] if self.copied else [])

    def conversions(self, names: list[str], ints: frozenset[int], slow: list[str], steady: list[str]) -> list[str]:
        """Each scalar input converted (an int in range as it is; one of ``ints``, checked
        by the caller, without a test), then ``steady``; or the call handed to
        ``run_inputs``, which names the input it refuses."""
        if not self.scalars:
            return steady
        lines, exact = [], []
        for i in self.scalars:
            kind, x = self.function._info.inputs[i], names[i]
            self.scope[f"arg{i}"] = kind.arg
            if i in ints and isinstance(kind, IntType) and kind.low <= I64_MIN and kind.high >= I64_MAX:
                exact.append(f"n{i} = {x}")  # the value is the argument
            elif isinstance(kind, IntType):  # without the converter's call
                lines.append(f"n{i} = {x} if type({x}) is int and {kind.low} <= {x} <= {kind.high} "
                             f"else arg{i}({x}, None, 0)")
            else:
                lines.append(f"n{i} = arg{i}({x}, None, 0)")
        if not lines:
            return exact + steady
        return [*exact, "try:", *_indent(lines), "except (TypeError, OverflowError):", *_indent(slow), "else:",
                *_indent(steady)]

    def argument_list(self) -> list[str]:
        """``arguments``: built here once when every item is a stage's view (or there are
        none); else built per call with the scalars pushed, or, when the scalars are all
        ints (a ``VmVariantList`` costs about 0.4 us to make), the last call's list again
        for the same ints (floats are not compared: ``-0.0 == 0.0``)."""
        function, scope = self.function, self.scope
        inputs = function._info.inputs
        transfer = self.runner.scratch.transfer
        for i in self.staged:
            stage = transfer.stages[i]
            if stage is None or stage.shape != inputs[i].shape:
                stage = transfer.stages[i] = Stage(self.runner.device, inputs[i].shape, inputs[i])
            scope[f"s{i}"], scope[f"view{i}"] = stage.array, stage.view
        for k, stage in enumerate(transfer.outputs):
            scope[f"o{k}"], scope[f"out_view{k}"] = stage.array, stage.view
        total = len(inputs) + len(transfer.outputs)
        if not self.scalars:
            arguments = rt.VmVariantList(total)
            for i in self.staged:
                arguments.push_ref(scope[f"view{i}"])
            for stage in transfer.outputs:
                arguments.push_ref(stage.view)
            scope["arguments"] = arguments
            return []
        build = [f"arguments = List({total})"]
        for i, kind in enumerate(inputs):
            if i in self.staged:
                build.append(f"arguments.push_ref(view{i})")
            else:
                build.append(f"arguments.push_{'float' if isinstance(kind, FloatType) else 'int'}(n{i})")
        build.extend(f"arguments.push_ref(out_view{k})" for k in range(len(transfer.outputs)))
        if any(isinstance(inputs[i], FloatType) for i in self.scalars):
            return build
        scope["last"] = [None, None]  # the last call's ints and argument list
        ints = f"({''.join(f'n{i}, ' for i in self.scalars)})"
        return [f"if {ints} == last[0]:", "    arguments = last[1]", "else:", *(f"    {line}" for line in build),
                f"    last[0], last[1] = {ints}, arguments"]

    def call(self) -> list[str]:
        """The invoke (timed when the driver choice is open; a failed guard as ``GuardFailure``)
        and the results."""
        twin, driver = self.runner.host_twin is not None, self.function.choice is not None
        invoke = _invoke("exports[path]" if twin else "function")
        timed = ["started = perf_counter()", *invoke, "elapsed = perf_counter() - started"]
        record = ["if elapsed >= MIN or not choice.quiet:", "    choice.record(0, elapsed)"] if driver else []
        if twin:  # settled on the twin (and the driver choice quiet): one call in QUIET_SAMPLE timed
            self.scope.update(untimed=[0], SAMPLE=QUIET_SAMPLE - 1, HOST=HOST)
            quiet = "paths.quiet and choice.quiet and untimed[0]" if driver else "paths.quiet and untimed[0]"
            timed = ["path = paths.path", *timed, "paths.left -= 1", "if paths.left <= 0 or elapsed > paths.limit:",
                     "    paths.record(path, elapsed)", *record]
            lines = [f"if {quiet}:", "    untimed[0] -= 1", *_indent(_invoke("exports[HOST]")), "else:",
                     "    untimed[0] = SAMPLE", *_indent(timed)]
        elif driver:  # quiet: one call in QUIET_SAMPLE timed, for a slow one
            self.scope.update(untimed=[0], SAMPLE=QUIET_SAMPLE - 1)
            lines = ["if choice.quiet and untimed[0]:", "    untimed[0] -= 1", *_indent(invoke), "else:",
                     "    untimed[0] = SAMPLE", *_indent(timed + record)]
        else:
            lines = invoke
        if any(isinstance(k, TensorType) and i not in self.function._info.storage
               for i, k in enumerate(self.function._results)):
            lines.insert(0, "transfer.pinned.clear()")
        stored = {index: position for position, index in enumerate(self.function._info.storage)}
        values = []
        for i, kind in enumerate(self.function._results):
            if i in stored:
                values.append(f"o{stored[i]}.copy()")
            elif isinstance(kind, BoolType):
                values.append(f"bool(out.get_variant({i}))")
            elif isinstance(kind, FloatType):
                values.append(f"float(out.get_variant({i}))")
            elif _scalar(kind):
                values.append(f"out.get_variant({i})")
            else:
                self.scope[f"pull{i}"] = kind.pull
                values.append(f"pull{i}(out, {i}, transfer)")
        return lines + [f"values = [{', '.join(values)}]"]
