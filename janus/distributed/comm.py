"""The MPI world this process belongs to: ``mpi4py`` imported on first use, the
abort-on-uncaught-exception hook that keeps one failing rank from hanging the others, and
a watchdog bounding how long any collective may wait for them."""

from __future__ import annotations

import os
import sys
import threading
import time
from types import ModuleType, TracebackType
from typing import Any, Callable, TypeVar

T = TypeVar("T")

#: seconds a collective waits for the other ranks before aborting the job
DEFAULT_TIMEOUT = float(os.environ.get("JANUS_MPI_TIMEOUT", "300"))

_state: dict[str, Any] = {"timeout": DEFAULT_TIMEOUT}


def mpi() -> ModuleType:
    """``mpi4py.MPI`` (initializes MPI), or an ImportError naming the extra to install."""
    try:
        from mpi4py import MPI
    except ImportError as e:  # pragma: no cover - depends on the install
        raise ImportError("janus.distributed needs mpi4py and an MPI: pip install 'janus[distributed]'") from e
    return MPI


def world() -> Any:
    return mpi().COMM_WORLD


def start(timeout: float | None, abort_on_exception: bool) -> None:
    """Start MPI; with ``abort_on_exception`` (and several ranks) an uncaught exception
    prints its traceback and aborts the whole job (``MPI_Abort``)."""
    if timeout is not None:
        _state["timeout"] = timeout
    comm = world()
    if abort_on_exception and comm.Get_size() > 1 and not _state.get("hooked"):
        _state["hooked"] = True
        previous = sys.excepthook

        def abort(kind: type[BaseException], value: BaseException, tb: TracebackType | None) -> None:
            sys.stderr.write(f"janus.distributed: uncaught exception on rank {comm.Get_rank()}, aborting all "
                             f"{comm.Get_size()} ranks\n")
            previous(kind, value, tb)
            sys.stderr.flush()
            comm.Abort(1)

        sys.excepthook = abort


def rank() -> int:
    return world().Get_rank()


def size() -> int:
    return world().Get_size()


def blocking(call: Callable[[], T], what: str) -> T:
    """Run the blocking collective ``call`` (mpi4py releases the GIL inside), aborting the
    job when the other ranks do not take part within the timeout (a rank stuck, or gone
    without MPI noticing): never a hang. Blocking calls, not polled nonblocking ones: on
    this 2-core machine MPICH's own wait is several times faster than a Python loop of
    ``Test`` (37 µs against 70–420 µs for a 20 KB all-reduce)."""
    _watchdog.arm(what)
    try:
        return call()
    finally:
        _watchdog.deadline = None


class _Watchdog:
    """A daemon thread that aborts the job when a collective outlives its deadline."""

    def __init__(self) -> None:
        self.deadline: float | None = None
        self.what = ""
        self.thread: threading.Thread | None = None

    def arm(self, what: str) -> None:
        self.deadline, self.what = time.monotonic() + _state["timeout"], what
        if self.thread is None:
            self.thread = threading.Thread(target=self._watch, name="janus.distributed watchdog", daemon=True)
            self.thread.start()

    def _watch(self) -> None:
        while True:
            time.sleep(min(1.0, _state["timeout"] / 4))
            deadline = self.deadline
            if deadline is not None and time.monotonic() > deadline:
                comm = world()
                sys.stderr.write(f"janus.distributed: rank {comm.Get_rank()}: {self.what} waited "
                                 f"{_state['timeout']:g} s for the other ranks; aborting the job\n")
                sys.stderr.flush()
                comm.Abort(2)


_watchdog = _Watchdog()
