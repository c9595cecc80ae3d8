"""Target presets, and the test modules compiled for the GPU targets (compile only: the
executable format inside each .vmfb shows which backend produced it)."""

from __future__ import annotations

import pytest
from tests.helpers import GUARD_PIPELINE, compile_test_module

from janus.runtime import DEFAULT_PIPELINE, get_target
from janus.runtime.targets import import_alignment

#: Executable format IREE embeds in a .vmfb, per target preset.
EXECUTABLE_FORMATS = {"cpu": b"embedded-elf-", "vulkan": b"vulkan-spirv-fb", "cuda": b"cuda-nvptx-fb"}

#: Each test module: the pipeline it needs, the functions it exports, and whether it has
#: tensor work for the device (scalar-only modules run wholly in the host VM, so their
#: .vmfb embeds no device executable).
MODULES = {
    "guards": (GUARD_PIPELINE, {"scale", "next_below"}, True),
    "scalars": (GUARD_PIPELINE, {"mix", "double", "invert", "nothing"}, True),
    "heap_state": (DEFAULT_PIPELINE, {"step"}, True),
    "fib": (DEFAULT_PIPELINE, {"fib"}, False),
    "ackermann": (DEFAULT_PIPELINE, {"ackermann"}, False),
    "tak": (DEFAULT_PIPELINE, {"tak"}, False),
    "even_odd": (DEFAULT_PIPELINE, {"is_even", "is_odd"}, False),
    "tree_rnn": (DEFAULT_PIPELINE, {"tree_rnn"}, True),
}


def test_presets() -> None:
    cpu, vulkan, cuda = get_target("cpu"), get_target("vulkan"), get_target("cuda")
    assert cpu.compile_flags() == [
        "--iree-input-demote-f64-to-f32=false",
        "--iree-hal-target-device=local",
        "--iree-hal-local-target-device-backends=llvm-cpu",
        "--iree-llvmcpu-target-cpu=host",
        "--iree-stream-resource-min-offset-alignment=16",
    ]
    assert "--iree-hal-target-device=vulkan" in vulkan.compile_flags()
    assert "--iree-vulkan-target=vp_android_baseline_2022" in vulkan.compile_flags()
    assert "--iree-vulkan-target-features=spirv:v1.3,cap:Shader,cap:Float64,cap:Int64" in vulkan.compile_flags()
    assert "--iree-cuda-target=sm_80" in cuda.compile_flags()
    assert (cpu.driver, vulkan.driver, cuda.driver) == ("local-sync", "vulkan", "cuda")
    assert (cpu.pipeline, vulkan.pipeline, cuda.pipeline) == ("janus-to-iree-cpu", "janus-to-iree", "janus-to-iree")


def test_extra_flags_replace_the_preset_flags_they_name_or_refine() -> None:
    vulkan = get_target("vulkan")
    flags = vulkan.compile_flags(["--iree-vulkan-target=rdna3", "--iree-opt-level=O3"])
    assert [f for f in flags if f.startswith("--iree-vulkan-target")] == ["--iree-vulkan-target=rdna3"]
    assert flags[-2:] == ["--iree-vulkan-target=rdna3", "--iree-opt-level=O3"]
    features = vulkan.compile_flags(["--iree-vulkan-target-features=spirv:v1.6,cap:Shader"])
    assert "--iree-vulkan-target=vp_android_baseline_2022" in features
    assert [f for f in features if f.startswith("--iree-vulkan-target-features")] == [
        "--iree-vulkan-target-features=spirv:v1.6,cap:Shader"
    ]


def test_the_import_alignment_is_the_last_flag_s_or_iree_s_default() -> None:
    assert import_alignment(get_target("cpu").compile_flags()) == 16
    assert import_alignment(get_target("cpu").compile_flags(["--iree-stream-resource-min-offset-alignment=64"])) == 64
    assert import_alignment(get_target("cuda").compile_flags()) == 64


def test_unknown_target() -> None:
    with pytest.raises(ValueError, match="unknown target 'metal'; known targets: cpu, cuda, vulkan"):
        get_target("metal")


@pytest.mark.parametrize("target", ["vulkan", "cuda"])
@pytest.mark.parametrize("name", sorted(MODULES))
def test_modules_compile_for_gpu_targets(name: str, target: str) -> None:
    pipeline, functions, dispatches = MODULES[name]
    artifact = compile_test_module(name, target, pipeline)
    assert artifact.target == target
    assert set(artifact.functions) == functions
    assert (EXECUTABLE_FORMATS[target] in artifact.vmfb) == dispatches
    assert not any(fmt in artifact.vmfb for t, fmt in EXECUTABLE_FORMATS.items() if t != target)


def test_flags_chosen_for_a_module_sit_between_preset_and_extra_flags() -> None:
    cpu = get_target("cpu")
    chosen = cpu.data_tiling_flags
    assert "--iree-dispatch-creation-data-tiling" in chosen
    flags = cpu.compile_flags((), chosen)
    assert flags[-len(chosen):] == list(chosen)
    # the user's flag wins over the module's choice: each option given once
    off = cpu.compile_flags(["--iree-dispatch-creation-data-tiling=false"], chosen)
    assert [f for f in off if f.startswith("--iree-dispatch-creation-data-tiling")] == [
        "--iree-dispatch-creation-data-tiling=false"]
    assert get_target("vulkan").data_tiling_flags == ()
