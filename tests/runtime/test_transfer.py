"""Arguments and results without copies on the CPU drivers (``values.TensorType``): a
result is an array over its IREE buffer and passes back without a copy, a large aligned
array is imported in place; whatever IREE could misread (misaligned, read-only, strided,
byte-swapped) is copied or refused, and no array a caller holds ever changes under it."""

from __future__ import annotations

import gc
import threading

import numpy as np
import pytest
from tests.helpers.arrays import placed

from janus.runtime import CompiledModule
from janus.runtime.artifact import Artifact
from janus.runtime.values import SHARE_MIN_BYTES

N = SHARE_MIN_BYTES // 4  # float32 elements of an array large enough to import
MLIR = f"""
func.func @scale(%a: tensor<?xf32>, %s: f32) -> tensor<?xf32> {{
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %r = linalg.generic {{indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                        iterator_types = ["parallel"]}} ins(%a : tensor<?xf32>) outs(%e : tensor<?xf32>) {{
  ^bb0(%x: f32, %o: f32):
    %y = arith.mulf %x, %s : f32
    linalg.yield %y : f32
  }} -> tensor<?xf32>
  return %r : tensor<?xf32>
}}
func.func @same(%a: tensor<?xf32>) -> tensor<?xf32> {{ return %a : tensor<?xf32> }}
func.func @twice(%a: tensor<{N}xf32>) -> (tensor<{N}xf32>, tensor<{N}xf32>, tensor<{N}xf32>) {{
  %b = arith.addf %a, %a : tensor<{N}xf32>
  return %b, %b, %a : tensor<{N}xf32>, tensor<{N}xf32>, tensor<{N}xf32>
}}
"""


@pytest.fixture(scope="module")
def module() -> CompiledModule:
    return CompiledModule.from_mlir(MLIR, driver="local-sync")


def ramp(n: int = N) -> np.ndarray:
    return np.arange(n, dtype=np.float32)


def test_a_result_passed_back_is_shared_and_sees_in_place_changes(module: CompiledModule) -> None:
    scale = module["scale"]
    first = scale(ramp(), 2.0)
    before = (scale.traffic.copied, scale.traffic.shared)
    first += 1  # in place, between calls: the next call reads the buffer itself
    np.testing.assert_array_equal(scale(first, 3.0), (ramp() * 2 + 1) * 3)
    assert scale.traffic.copied == before[0]  # nothing copied either way
    assert scale.traffic.shared == before[1] + 2 * first.nbytes


@pytest.mark.parametrize("n", [4, N])
def test_a_kept_result_never_changes_under_its_holder(module: CompiledModule, n: int) -> None:
    scale = module["scale"]
    kept = scale(ramp(n), 2.0)
    later = [scale(kept, 1.0) for _ in range(5)]
    later[0][:] = -1
    np.testing.assert_array_equal(kept, ramp(n) * 2)
    assert not any(np.shares_memory(kept, other) for other in later)


@pytest.mark.parametrize("source", ["handed", "imported", "copied"])
def test_a_returned_argument_is_a_copy(module: CompiledModule, source: str) -> None:
    array = {"handed": lambda: module["scale"](ramp(), 1.0), "imported": lambda: placed(ramp(), 0),
             "copied": lambda: placed(ramp(), 4)}[source]()
    out = module["same"](array)
    assert not np.shares_memory(out, array)
    out[:] = 7
    np.testing.assert_array_equal(array, ramp())
    module["same"](placed(-ramp(), 4))  # the next call's argument goes where the last one was staged
    np.testing.assert_array_equal(out, 7)


def test_one_buffer_returned_twice_gives_two_arrays(module: CompiledModule) -> None:
    a = placed(ramp(), 0)
    b, c, same = module["twice"](a)
    assert not np.shares_memory(b, c) and not np.shares_memory(same, a)
    b[:] = 0
    np.testing.assert_array_equal(c, 2 * ramp())


def test_a_large_aligned_array_is_imported_without_a_copy(module: CompiledModule) -> None:
    scale, a = module["scale"], placed(ramp(), 0)
    copied = scale.traffic.copied
    out = scale(a, 2.0)
    assert scale.traffic.copied == copied
    a[:] = 0  # the caller's array after the call: the result is its own memory
    np.testing.assert_array_equal(out, 2 * ramp())


@pytest.mark.parametrize("offset", [16, 32, 48])
def test_an_array_at_numpy_s_alignment_is_imported_without_a_copy(module: CompiledModule, offset: int) -> None:
    """The CPU preset's code assumes 16-byte aligned buffers (``targets.import_alignment``),
    as NumPy's own arrays are: imported in place, and what the caller changes in place
    between calls is what the next call reads."""
    assert module.artifact.alignment == 16
    scale, a = module["scale"], placed(ramp(), offset)
    copied = scale.traffic.copied
    np.testing.assert_array_equal(scale(a, 2.0), 2 * ramp())
    a += 1
    np.testing.assert_array_equal(scale(a, 2.0), 2 * (ramp() + 1))
    np.copyto(a[: N // 2], 0)
    np.negative(a, out=a)
    np.testing.assert_array_equal(scale(a, 1.0), -np.where(np.arange(N) < N // 2, 0, ramp() + 1))
    assert scale.traffic.copied == copied


def test_code_assuming_iree_s_alignment_gets_a_copy(module: CompiledModule) -> None:
    """A module whose manifest does not say its alignment (an older sidecar) assumes IREE's
    64 bytes: a 16-byte aligned array is copied for it, not imported (the dispatch would crash)."""
    older = CompiledModule(Artifact.from_manifest(module.artifact.vmfb, {
        key: value for key, value in module.artifact.manifest().items() if key != "alignment"}), driver="local-sync")
    assert older.artifact.alignment == 64
    scale = older["scale"]
    np.testing.assert_array_equal(scale(placed(ramp(), 16), 2.0), 2 * ramp())
    assert scale.traffic.copied == ramp().nbytes


@pytest.mark.parametrize("make", [
    lambda: placed(ramp(), 4),  # misaligned: imported, the dispatch would crash
    lambda: placed(ramp(), 40),
    lambda: np.repeat(ramp(), 2)[::2],  # strided
    lambda: _read_only(placed(ramp(), 0)),
], ids=["misaligned-4", "misaligned-40", "strided", "read-only"])
def test_arrays_iree_cannot_read_in_place_are_copied(module: CompiledModule, make) -> None:
    scale = module["scale"]
    copied = scale.traffic.copied
    np.testing.assert_array_equal(scale(make(), 2.0), 2 * ramp())
    assert scale.traffic.copied == copied + ramp().nbytes


def _read_only(array: np.ndarray) -> np.ndarray:
    array.flags.writeable = False
    return array


def test_a_byte_swapped_array_is_refused_not_misread(module: CompiledModule) -> None:
    with pytest.raises(TypeError, match="dtype"):
        module["scale"](ramp(4).astype(">f4"), 2.0)


def test_a_result_reshaped_or_retyped_in_place_is_checked_again(module: CompiledModule) -> None:
    out = module["scale"](ramp(), 1.0)
    out.shape = (2, N // 2)
    with pytest.raises(TypeError, match="shape"):
        module["scale"](out, 1.0)
    out.shape = (N,)
    out.dtype = np.int32
    with pytest.raises(TypeError, match="dtype"):
        module["scale"](out, 1.0)


def test_calls_from_two_threads(module: CompiledModule) -> None:
    scale, errors = module["scale"], []

    def run(factor: float, n: int) -> None:
        state = ramp(n)
        for _ in range(200):
            state = scale(state, factor)
            state = scale(state, 1 / factor)
        if not np.allclose(state, ramp(n)):
            errors.append((factor, n))

    threads = [threading.Thread(target=run, args=(f, n)) for f in (2.0, 0.5) for n in (4, N)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors


@pytest.mark.parametrize("n", [4, N])
def test_arrays_outlive_the_module_that_returned_them(n: int) -> None:
    module = CompiledModule.from_mlir(MLIR, driver="local-sync")
    kept = module["scale"](ramp(n), 2.0)
    del module
    gc.collect()
    np.testing.assert_array_equal(kept, 2 * ramp(n))
    other = CompiledModule.from_mlir(MLIR, driver="local-sync")
    np.testing.assert_array_equal(other["scale"](kept, 0.5), ramp(n))  # passed into another module's call
    kept[:] = 1  # still the array's own, writable memory
    np.testing.assert_array_equal(other["scale"](kept, 3.0), np.full(n, 3, np.float32))


def test_a_call_pushing_the_same_items_reuses_its_argument_list_and_sees_new_contents(module: CompiledModule) -> None:
    scale, small = module["scale"], ramp(4)
    for factor in (2.0, 2.0, 3.0, 3.0):  # the scalar changes the list; the same stage and scalar reuse it
        small[0] = factor
        np.testing.assert_array_equal(scale(small, factor), small * factor)


class Layer:
    """A parameter the compiled call reads from the heap (as RNTN's ``V``), at ``offset``
    bytes past a multiple of 64."""

    def __init__(self, offset: int) -> None:
        rng = np.random.default_rng(4)
        self.W = placed(rng.standard_normal((64, 96)).astype(np.float32), offset)

    def forward(self, x: np.ndarray) -> np.ndarray:
        return np.tanh(x @ self.W)


@pytest.mark.parametrize("offset", [16, 4])
def test_a_heap_parameter_changed_between_calls_is_seen(offset: int) -> None:
    """Imported in place (16 bytes past 64) or copied (4): each call reads the parameter as
    the caller left it, changed in place, through a view, by ``np.copyto`` or ``out=``,
    as plain Python does."""
    import janus

    jitted, plain = Layer(offset), Layer(offset)
    forward = janus.jit(Layer.forward, warmup=1)
    x = np.random.default_rng(5).standard_normal((8, 64)).astype(np.float32)
    changes = [lambda W: None, lambda W: W.__imul__(0.5), lambda W: W[:, 10:20].__iadd__(1.0),
               lambda W: np.copyto(W[3], 2.0), lambda W: np.subtract(W, 0.25, out=W), lambda W: None]
    for change in changes:
        change(jitted.W)
        change(plain.W)
        np.testing.assert_allclose(forward(jitted, x), plain.forward(x), rtol=1e-5, atol=1e-6)
    (version,) = forward.versions.values()
    traffic = version.call.__self__.traffic
    assert traffic.calls == len(changes) - 1
    assert (traffic.shared >= jitted.W.nbytes * traffic.calls) == (offset == 16)
