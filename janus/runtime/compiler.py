"""janus module -> upstream MLIR (janus passes) -> .vmfb (iree.compiler).

Every failure becomes a ``CompileError`` with located diagnostics. Before iree-compile is
called the call graph is checked whatever the pipeline was: iree-compile 3.13 never
returns on a cyclic call graph, and a clear error beats a hang.
"""

from __future__ import annotations

import os
import re
import subprocess
from typing import Sequence

from iree.compiler import tools
from iree.compiler.passmanager import PassManager
from iree.compiler.tools.core import CompilerOptions, build_compile_command_line
from iree.compiler.tools.debugging import TempFileSaver

from janus.ir import copy_module, ir, parse_module
from janus.passes import build_pass_manager
from janus.passes.callgraph import ready_for_iree_problems
from janus.runtime import cache
from janus.runtime.artifact import Artifact, FunctionInfo
from janus.runtime.errors import CompileError
from janus.heap import HeapManifest
from janus.runtime.contractions import wants_data_tiling
from janus.runtime.result_storage import add_result_storage, exported, storage_results
from janus.runtime.targets import Target, get_target, import_alignment
from janus.runtime.values import INDEX_ARRAY, UnsupportedType, ValueType, scalar_type, tensor_type
from janus.diagnostics import STRING_BUFFER, Diagnostic, from_mlir_error, located

#: The portable lowering (any target); each target preset names the one it compiles with.
DEFAULT_PIPELINE = "janus-to-iree"
#: Name diagnostics give the module when the caller names no file.
DEFAULT_FILENAME = "<input>"

ModuleLike = ir.Module | str
#: seconds one iree-compile run may take (``JANUS_COMPILE_TIMEOUT``; 0: no limit): a module
#: that compiles for minutes (a batch of trees unrolled took 559 s) fails with a clear error
#: (a jit function runs that call in Python) instead of holding the program
COMPILE_TIMEOUT_S = float(os.environ.get("JANUS_COMPILE_TIMEOUT", "600"))


def lower(module: ModuleLike, pipeline: str = DEFAULT_PIPELINE, *, filename: str = DEFAULT_FILENAME) -> ir.Module:
    """A new module: ``module`` after ``pipeline``. Text is parsed (the one parse of a
    compile); an ``ir.Module`` is copied in memory and left untouched."""
    try:
        if isinstance(module, str):
            lowered = parse_module(module)
        else:
            with module.context:
                lowered = copy_module(module)
        ctx = lowered.context
        pass_manager = _pass_manager(pipeline, ctx, filename)
        with ctx:
            pass_manager.run(lowered.operation)
    except ir.MLIRError as e:
        raise CompileError(from_mlir_error(e, filename)) from None
    return lowered


def _pass_manager(pipeline: str, ctx: ir.Context, filename: str) -> PassManager:
    try:
        return build_pass_manager(pipeline, ctx)
    except ValueError as e:  # an unknown pass name
        raise CompileError([Diagnostic("error", filename, 0, 0, f"invalid pass pipeline: {e}")]) from None


def compile_module(
    module: ModuleLike,
    target: str = "cpu",
    *,
    pipeline: str | None = None,
    filename: str = DEFAULT_FILENAME,
    extra_flags: Sequence[str] = (),
    result_storage: bool = False,
) -> Artifact:
    """Lower ``module`` with ``pipeline`` (default: the target's) and compile it for the
    ``target`` preset.

    ``extra_flags`` go to iree-compile and replace preset flags of the same name (and
    those chosen for the module: ``module_flags``). A module
    lowered to the same text and compiled with the same flags before (by any process)
    comes from the compile cache (``janus.runtime.cache``) without running iree-compile.
    ``result_storage``: small results are written into storage the runtime passes
    (``janus.runtime.result_storage``), where the target allows; artifacts for IREE's own
    tools (``janus-compile``, ``janus.aot``) keep the plain signature.
    """
    preset = get_target(target)
    lowered = lower(module, pipeline or preset.pipeline, filename=filename)
    problems = ready_for_iree_problems(lowered.operation)
    if problems:
        raise CompileError([located("error", loc, message, filename) for loc, message in problems])
    if result_storage and preset.result_storage:
        add_result_storage(lowered, value_type)
    chosen = module_flags(preset, lowered)
    flags = preset.compile_flags(extra_flags, chosen)
    text = lowered.operation.get_asm(enable_debug_info=True)
    return cache.cached(text, flags, target, lambda: Artifact(
        compile_tuned(text, preset, extra_flags, chosen, filename), target, public_functions(lowered),
        import_alignment(flags)))


def module_flags(preset: Target, lowered: ir.Module) -> tuple[str, ...]:
    """Flags ``preset`` takes for this module: data tiling when its matmuls are large."""
    return preset.data_tiling_flags if preset.data_tiling_flags and wants_data_tiling(lowered) else ()


def compile_tuned(text: str, preset: Target, extra: Sequence[str], chosen: Sequence[str], filename: str) -> bytes:
    """The .vmfb of ``text`` with the flags ``chosen`` for it; without them when that fails.

    They are an optimization and must never fail a compile that works without them: with
    data tiling, llvm-cpu refuses some fused dispatches of the LSTM LM ("One or more
    operations with large vector sizes"); lifting that check
    (``--iree-llvmcpu-fail-on-large-vector=false``) compiles them, but their stack frames
    overflow local-task's 128 KiB worker stacks (a segfault in an ``iree-worker`` thread).
    """
    if chosen:
        try:
            return iree_compile(text, preset.compile_flags(extra, chosen), preset.libm_flags, filename)
        except CompileError:
            pass
    return iree_compile(text, preset.compile_flags(extra), preset.libm_flags, filename)


#: What iree-lld says when a dispatch calls a libm function the embedded ELF lacks.
_UNDEFINED_SYMBOL = "iree-lld: error: undefined symbol:"


def iree_compile(text: str, flags: list[str], libm_flags: tuple[str, ...], filename: str) -> bytes:
    """The .vmfb of ``text``. When linking fails on a libm symbol (llvm-cpu calls libm for
    f64 tanh, sin, cos, atan, ...: its polynomial approximations are f32-only, and the
    embedded ELF links no libm), compile again with ``libm_flags``; a failure raises the
    first attempt's diagnostics, the linker's own message included."""
    try:
        return _compile_str(text, flags, filename)
    except tools.CompilerToolError as e:
        first = str(e)
    if libm_flags and _UNDEFINED_SYMBOL in first:
        try:
            return _compile_str(text, [*flags, *libm_flags], filename)
        except tools.CompilerToolError as e:
            diagnostics = iree_diagnostics(first, filename)
            retry = iree_diagnostics(str(e), filename)[0]
            diagnostics[0].notes.append(Diagnostic("note", retry.file, retry.line, retry.col,
                                                   f"with {' '.join(libm_flags)}: {retry.message}"))
            raise CompileError(diagnostics) from None
    raise CompileError(iree_diagnostics(first, filename))


def _compile_str(text: str, flags: list[str], filename: str) -> bytes:
    """``tools.compile_str`` (its command line and temp-file saving), within ``COMPILE_TIMEOUT_S``."""
    with TempFileSaver.implicit() as saver:
        command = build_compile_command_line("-", saver, CompilerOptions(extra_args=flags))
    try:
        done = subprocess.run(command, input=text.encode(), capture_output=True, timeout=COMPILE_TIMEOUT_S or None)
    except subprocess.TimeoutExpired:
        raise CompileError([Diagnostic("error", filename, 0, 0, f"iree-compile did not finish within "
                                       f"{COMPILE_TIMEOUT_S:g} s (JANUS_COMPILE_TIMEOUT sets the limit)")]) from None
    if done.returncode != 0:
        raise tools.CompilerToolError(done)
    return done.stdout


def public_functions(module: ir.Module) -> dict[str, FunctionInfo]:
    """What the runtime needs to call each exported function of ``module``."""
    out = {}
    stateful = any(op.operation.name == "util.global" and "is_mutable" in op.operation.attributes
                   for op in module.body.operations)
    for op in module.body.operations:
        if not exported(op):
            continue
        attrs = op.operation.attributes
        ftype = attrs["function_type"].value
        name = attrs["sym_name"].value
        storage, arity = storage_results(op.operation)
        out[name] = FunctionInfo(
            name,
            tuple(value_type(t) for t in ftype.inputs[:arity]),
            tuple(value_type(t) for t in ftype.results),
            HeapManifest.from_function(op.operation),
            writes_arguments(op.operation),
            storage,
            stateful,
        )
    return out


#: ops IREE 3.13 may run in place on the buffer of their ``outs`` operand even when that is
#: a function argument (seen: a scatter into ``x * 1.0`` wrote the caller's ``x``)
IN_PLACE_OPS = ("iree_linalg_ext.scatter", "iree_linalg_ext.sort")


def writes_arguments(function: ir.Operation) -> bool:
    """Whether ``function``'s compiled code may write the buffer of an argument."""
    text = function.get_asm(large_elements_limit=1)
    return any(name in text for name in IN_PLACE_OPS)


#: The opaque type ``janus-host-index-arrays`` passes index arrays as.
_UTIL_BUFFER = "!util.buffer"


def value_type(t: ir.Type) -> ValueType:
    """The runtime's converter for values of the signature type ``t``."""
    if isinstance(t, ir.RankedTensorType):
        shape = tuple(None if t.is_dynamic_dim(d) else size for d, size in enumerate(t.shape))
        return tensor_type(shape, str(t.element_type))
    if isinstance(t, (ir.IntegerType, ir.IndexType, ir.F32Type, ir.F64Type)):
        return scalar_type(str(t))
    return INDEX_ARRAY if str(t) == _UTIL_BUFFER else UnsupportedType(str(t))


_IREE_DIAGNOSTIC = re.compile(r"^(.+?):(\d+):(\d+): (error|warning|note|remark): (.*)$", re.MULTILINE)
#: An unlocated error of a tool iree-compile runs (``iree-lld: error: undefined symbol: tanh``).
_TOOL_ERROR = re.compile(r"^([\w.-]+): error: (.*)$", re.MULTILINE)
_CHECK_ABOVE = "(check above for more specific error messages)"


def iree_diagnostics(message: str, filename: str) -> list[Diagnostic]:
    """The diagnostics in a ``CompilerToolError`` message (notes attached to their error,
    linker errors in the first message).

    iree-compile reads the module from stdin, so its buffer is named like MLIR's string
    buffer and its locations are the input's (the module is printed with debug info).
    """
    stderr = message.split("Diagnostics:\n", 1)[-1].split("\n\nInvoked with:", 1)[0]
    out: list[Diagnostic] = []
    for m in _IREE_DIAGNOSTIC.finditer(stderr):
        file = filename if m.group(1) == STRING_BUFFER else m.group(1)
        diag = Diagnostic(m.group(4), file, int(m.group(2)), int(m.group(3)), m.group(5))
        if diag.severity == "note" and out:
            out[-1].notes.append(diag)
        else:
            out.append(diag)
    if not out:
        return [Diagnostic("error", filename, 0, 0, f"iree-compile failed:\n{stderr.strip()}")]
    # what "check above" refers to: the linker's errors, which name no location, go into the
    # first message (callers that show one line, such as janus.explain, show the cause)
    tool_errors = [f"{m.group(1)}: {m.group(2)}" for m in _TOOL_ERROR.finditer(stderr)]
    if tool_errors:
        out[0].message = f"{out[0].message.replace(_CHECK_ABOVE, '').rstrip()}: {'; '.join(tool_errors)}"
    return out
