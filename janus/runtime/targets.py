"""Compilation targets: a preset name -> iree-compile flags and the runtime driver to use.

Flags follow the measured facts for iree-base-compiler 3.13 in DESIGN.md: llvm-cpu
for the host, Vulkan with a portable baseline profile, CUDA for sm_80 (sm_90 fails with
"missing GPU target" in 3.13).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from janus.runtime.values import ALIGNMENT

#: the flag that says at what byte alignment compiled code may assume its buffers and offsets
ALIGNMENT_FLAG = "--iree-stream-resource-min-offset-alignment"

#: For every target. NumPy computes in float64; IREE's default demotion to f32 would
#: change both the answers and the function signatures the runtime checks against.
COMMON_FLAGS = ("--iree-input-demote-f64-to-f32=false",)


@dataclass(frozen=True)
class Target:
    name: str
    summary: str
    flags: tuple[str, ...]
    #: Runtime driver a module compiled for this target runs on unless the user overrides it.
    driver: str
    #: janus-opt pipeline that lowers a janus module for this target unless the user names one.
    pipeline: str = "janus-to-iree"
    #: A second driver each function's slow calls are timed on too, the faster one kept
    #: (``janus.runtime.drivers``); None, or a driver given explicitly, runs every call on one.
    parallel_driver: str | None = None
    #: Flags that link a module whose dispatches call libm (f64 transcendentals) when the
    #: default link cannot: iree-compile is run again with them (``compiler.iree_compile``).
    libm_flags: tuple[str, ...] = ()
    #: Flags for a module whose matmuls are large (``janus.runtime.contractions``): data-tiled GEMMs
    #: (dropped when iree-compile fails with them: ``compiler.compile_tuned``).
    data_tiling_flags: tuple[str, ...] = ()
    #: small static results are written into storage the runtime passes (``result_storage``):
    #: for targets whose device memory is the host's
    result_storage: bool = False

    def compile_flags(self, extra: Sequence[str] = (), chosen: Sequence[str] = ()) -> list[str]:
        """The iree-compile flags: the preset's, then ``chosen`` for this module, ``extra``
        last. A later flag replaces the earlier flags it names or refines
        (``--iree-vulkan-target`` also drops the preset's ``--iree-vulkan-target-features``):
        LLVM options reject being given twice, and features chosen for one target are
        wrong for another."""
        return _without(_without([*COMMON_FLAGS, *self.flags], chosen) + list(chosen), extra) + list(extra)


def _without(flags: Sequence[str], later: Sequence[str]) -> list[str]:
    """``flags`` less those a flag in ``later`` names or refines."""
    names = [_flag_name(f) for f in later]
    return [f for f in flags if not any(_flag_name(f) == n or _flag_name(f).startswith(n + "-") for n in names)]


def _flag_name(flag: str) -> str:
    return flag.split("=", 1)[0]


def import_alignment(flags: Sequence[str]) -> int:
    """The byte alignment code compiled with ``flags`` assumes of its argument buffers (the
    last ``ALIGNMENT_FLAG``; IREE's default, 64, without one): an array aligned so can be
    imported in place on a CPU driver, one that is not would crash the dispatch."""
    given = [int(f.split("=", 1)[1]) for f in flags if _flag_name(f) == ALIGNMENT_FLAG and "=" in f]
    return given[-1] if given else ALIGNMENT


TARGETS: dict[str, Target] = {
    t.name: t
    for t in (
        Target(
            "cpu",
            "the host CPU through llvm-cpu; small graphs run on the single-threaded local-sync driver, "
            "graphs whose calls take 1 ms or more on local-task (a thread pool) when timing says it is faster",
            (
                "--iree-hal-target-device=local",
                "--iree-hal-local-target-device-backends=llvm-cpu",
                "--iree-llvmcpu-target-cpu=host",
                # NumPy's arrays start at multiples of 16 bytes (malloc's), not of IREE's 64:
                # code that assumes 16 takes a parameter in place (RNTN's 32 MB V: 7 ms of copying
                # a call otherwise), where 64 would crash the dispatch
                f"{ALIGNMENT_FLAG}=16",
            ),
            # local-sync costs about 8-12 us per call, local-task (thread pool) 75-90 us but
            # spreads large dispatches over the cores: calls of 1 ms or more try both.
            "local-sync",
            pipeline="janus-to-iree-cpu",  # scalar recursion as native code (janus-recursion-to-dispatch)
            parallel_driver="local-task",
            # a shared library linked by the system linker against the host's libm, instead
            # of the embedded ELF (which has no libm)
            libm_flags=("--iree-llvmcpu-link-embedded=false",),
            # operands packed in the inner kernel's tile layout (``janus.runtime.contractions``);
            # with aggressive fusion, which puts more of the elementwise work around the GEMMs
            # into their dispatches (a replayed call on local-sync, idle-ish machine: the LSTM
            # LM's step 36.8 -> 26.6 ms, 701 -> 542 dispatch runs; the GAN's 1.07 -> 1.10 ms)
            data_tiling_flags=("--iree-dispatch-creation-data-tiling", "--iree-dispatch-creation-enable-aggressive-fusion"),
            result_storage=True,
        ),
        Target(
            "vulkan",
            "any Vulkan GPU with 64-bit floats and ints (desktop GPUs): the portable baseline "
            "profile plus the Float64/Int64 capabilities NumPy code needs; pass "
            "--iree-vulkan-target=<arch> (rdna3, ampere, ...) to specialize",
            (
                "--iree-hal-target-device=vulkan",
                "--iree-vulkan-target=vp_android_baseline_2022",
                "--iree-vulkan-target-features=spirv:v1.3,cap:Shader,cap:Float64,cap:Int64",
            ),
            "vulkan",
        ),
        Target(
            "cuda",
            "NVIDIA GPUs from Ampere (sm_80) on",
            ("--iree-hal-target-device=cuda", "--iree-cuda-target=sm_80"),
            "cuda",
        ),
    )
}


def get_target(name: str) -> Target:
    """The preset ``name``; ``ValueError`` naming the known presets otherwise."""
    try:
        return TARGETS[name]
    except KeyError:
        raise ValueError(f"unknown target '{name}'; known targets: {', '.join(sorted(TARGETS))}") from None
