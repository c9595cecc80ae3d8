"""Every NumPy entry of the op table against NumPy (tests/helpers/conformance.py): values
and dtypes, compiled (the version's call count rises), forms batched per dtype group.
Forms the generator refuses are gaps with a reason; an entry with no compiled form fails."""

from __future__ import annotations

import numpy as np
import pytest

import janus
from tests.helpers import conformance

TRACED, GAPS = conformance.plan()
#: NumPy's own signed-zero result of these differs with the array's length (SIMD paths) or,
#: for clip, between scalar and array bounds
ANY_ZERO_SIGN = {"fmax", "fmin", "maximum", "minimum", "clip"}
BATCHES = [(group, batch) for group, forms in TRACED.items() for batch in conformance.batches(forms)]


def assert_conforms(form: conformance.Form, got: object, want: object) -> None:
    got, want = np.asarray(got), np.asarray(want)
    where = f"{form.op}: {form.source} on {form.group}"
    assert got.dtype == want.dtype and got.shape == want.shape, (where, got.dtype, want.dtype, got.shape, want.shape)
    rtol = 1e-5 if want.dtype == np.float32 else 2e-6
    np.testing.assert_allclose(got, want, rtol=rtol, atol=1e-6, equal_nan=True, err_msg=where)
    if want.dtype.kind == "f" and form.op not in ANY_ZERO_SIGN:
        assert np.array_equal(np.signbit(got[got == 0]), np.signbit(want[want == 0])), where


@pytest.mark.parametrize("group, batch", BATCHES, ids=[f"{g}-{i}" for i, (g, _) in enumerate(BATCHES)])
def test_forms_match_numpy_compiled(group: str, batch: list[conformance.Form]) -> None:
    inputs = conformance.GROUPS[group]
    fn = conformance.function([f.source for f in batch])
    jf = janus.jit(fn, warmup=1)
    with np.errstate(all="ignore"):
        want = fn(inputs["x"], inputs["y"])
        jf(inputs["x"], inputs["y"])
        assert jf.versions, janus.explain(jf)
        (version,) = jf.versions.values()
        calls = version.calls
        got = jf(inputs["x"], inputs["y"])
    assert version.calls == calls + 1
    got, want = conformance.flat(got), conformance.flat(want)
    assert len(got) == len(want) == len(batch)
    for form, g, w in zip(batch, got, want):
        assert_conforms(form, g, w)


def test_every_numpy_entry_compiles_in_some_form() -> None:
    compiled = {f.op for forms in TRACED.values() for f in forms}
    missing = {op.name for op in conformance.numpy_ops()} - compiled
    assert not missing, {name: [r for f, r in GAPS if f.op == name] for name in missing}
