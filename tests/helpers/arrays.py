"""Arrays placed in memory on purpose: at an exact offset from IREE's 64-byte alignment,
read-only, strided or byte-swapped (what a zero-copy path must never read in place wrongly)."""

from __future__ import annotations

import numpy as np

from janus.runtime.values import ALIGNMENT, address


def placed(values: np.ndarray, offset: int) -> np.ndarray:
    """A C-contiguous writable copy of ``values`` whose first byte is ``offset`` bytes past a
    multiple of ``ALIGNMENT``."""
    raw = np.empty(values.nbytes + 2 * ALIGNMENT, np.uint8)
    start = (-address(raw)) % ALIGNMENT + offset
    array = raw[start:start + values.nbytes].view(values.dtype).reshape(values.shape)
    array[...] = values
    return array
