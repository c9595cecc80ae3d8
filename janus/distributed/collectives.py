"""The all-reduce protocol, the same whether Python or compiled code runs it.

One ``allreduce`` of a tree of arrays is, on every rank: an ``Allgather`` of a 16-byte
digest of its layout (shapes, dtypes, op) — ranks that disagree all raise the same
``ValueError``, naming each rank's layout, before any data moves — then one
``Allreduce`` per dtype over the leaves flattened into one buffer (few large messages
instead of one per parameter). Compiled steps run the same sequence through the
``janus_mpi`` host module (``host.py``), so compiled and imperative ranks interoperate.

Replay: a compiled call that reduced and then failed a guard is re-run in Python by
``janus.jit``; the other ranks have already taken part in that reduction, so the re-run
takes its results from ``REPLAY`` instead of communicating again (each collective
happens exactly once per rank and every rank sees the same sums). A layout error raised
inside a compiled call is replayed the same way: ``janus.jit`` re-runs the failed call in
Python, which raises it again without a second, unmatched layout check.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from janus.distributed import comm

OPS = ("sum", "mean")
#: dtypes a reduction accepts (the graph's numeric types)
DTYPES = ("float32", "float64", "int64")


@dataclass(frozen=True)
class Spec:
    """The layout of one all-reduce: each leaf's (shape, dtype), the op, and the leaves
    of each dtype (one buffer each, in order of first appearance)."""

    leaves: tuple[tuple[tuple[int, ...], str], ...]
    op: str

    @classmethod
    def of(cls, leaves: list[tuple[tuple[int, ...], Any]], op: str) -> "Spec":
        if op not in OPS:
            raise ValueError(f"allreduce op must be one of {', '.join(OPS)}, got {op!r}")
        layout = tuple((tuple(int(d) for d in shape), np.dtype(dtype).name) for shape, dtype in leaves)
        for _, dtype in layout:
            if dtype not in DTYPES:
                raise TypeError(f"allreduce of {dtype} arrays is not supported ({', '.join(DTYPES)})")
            if op == "mean" and dtype == "int64":
                raise TypeError("allreduce op 'mean' needs floating-point arrays (use op='sum' for integers)")
        return cls(layout, op)

    @property
    def groups(self) -> list[tuple[str, list[int]]]:
        """(dtype, leaf indices) per buffer."""
        found: dict[str, list[int]] = {}
        for i, (_, dtype) in enumerate(self.leaves):
            found.setdefault(dtype, []).append(i)
        return list(found.items())

    def describe(self) -> str:
        return f"{self.op} of " + ", ".join(f"{dtype}{list(shape)}" for shape, dtype in self.leaves)


class Timing:
    """Seconds spent in collectives of this process (``benchmarks/data_parallel_bench.py``)."""

    seconds = 0.0
    collectives = 0


def _timed(started: float) -> None:
    Timing.seconds += time.perf_counter() - started
    Timing.collectives += 1


def check_same(description: str, what: str) -> None:
    """Raise the same ``ValueError`` on every rank unless all ranks pass the same text."""
    world = comm.world()
    if world.Get_size() == 1:
        return
    started = time.perf_counter()
    mine = np.frombuffer(hashlib.blake2b(description.encode(), digest_size=16).digest(), np.uint8)
    every = np.empty((world.Get_size(), mine.size), np.uint8)
    comm.blocking(lambda: world.Allgather(mine, every), what)
    _timed(started)
    if (every == every[0]).all():
        return
    texts = comm.blocking(lambda: world.allgather(description), what)  # every rank saw the mismatch
    ranks = "; ".join(f"rank {r}: {t}" for r, t in enumerate(texts))
    raise ValueError(f"{what}: the ranks disagree ({ranks})")


def reduce_buffer(flat: np.ndarray, op: str) -> np.ndarray:
    """One reduction over all ranks of a contiguous 1-D buffer."""
    world = comm.world()
    if world.Get_size() == 1:
        return flat.copy()
    started = time.perf_counter()
    out = np.empty_like(flat)
    comm.blocking(lambda: world.Allreduce(flat, out, comm.mpi().SUM), f"allreduce ({flat.dtype}[{flat.size}])")
    _timed(started)
    if op == "mean":
        out /= world.Get_size()
    return out


class Replay:
    """Results of collectives made by a compiled call that then failed, for its re-run."""

    def __init__(self) -> None:
        #: (spec, one result per buffer, or the error it raised) of the collectives recorded
        #: during a compiled call, or awaiting replay after it failed
        self.recording: list[tuple[Spec, Any]] = []
        self.pending: list[tuple[Spec, Any]] = []
        #: the replayed buffers of the collective a compiled call is in, if replayed
        self.current: list[np.ndarray] | None = None
        self.depth = 0

    def take(self, spec: Spec) -> list[np.ndarray] | None:
        """The replayed buffers of the next collective, if a failed call made it."""
        if not self.pending:
            return None
        recorded, buffers = self.pending.pop(0)
        if isinstance(buffers, Exception):
            raise buffers
        if recorded != spec:  # the re-run left the path the failed call took: never guess
            raise RuntimeError(f"allreduce: the re-run of a failed compiled step asked for {spec.describe()}, "
                               f"but the step had reduced {recorded.describe()}")
        return buffers

    def compiled_group(self, spec: Spec, group: int, flat: np.ndarray) -> np.ndarray:
        """Buffer ``group`` of a collective made by compiled code (one host call per buffer,
        in order): checked and reduced, or replayed; recorded in case the call fails."""
        if group == 0:
            self.current = self.take(spec)
            self.recording.append((spec, []))
            if self.current is None:
                try:
                    check_same(spec.describe(), "allreduce")
                except ValueError as error:  # the re-run raises it again, without communicating
                    self.recording[-1] = (spec, error)
                    raise
        result = self.current[group] if self.current is not None else reduce_buffer(flat, spec.op)
        self.recording[-1][1].append(result)
        return result

    def begin_call(self) -> None:
        self.depth += 1
        if self.depth == 1:
            self.recording.clear()

    def end_call(self, ok: bool) -> None:
        self.depth -= 1
        if self.depth == 0:
            if not ok:
                self.pending = self.recording + self.pending
            self.recording = []


REPLAY = Replay()


def allreduce_buffers(spec: Spec, buffers: Callable[[int], np.ndarray]) -> list[np.ndarray]:
    """The reduced buffer of each group of ``spec``; ``buffers(g)`` flattens group ``g``."""
    replayed = REPLAY.take(spec)
    if replayed is not None:
        return replayed
    check_same(spec.describe(), "allreduce")
    return [reduce_buffer(buffers(g), spec.op) for g in range(len(spec.groups))]
