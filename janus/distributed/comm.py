"""The MPI world this process belongs to: ``mpi4py`` imported on first use, and the
abort-on-uncaught-exception hook that keeps one failing rank from hanging the others."""

from __future__ import annotations

import os
import sys
import time
import traceback
from types import ModuleType, TracebackType
from typing import Any

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


def wait(request: Any, what: str) -> None:
    """Complete a nonblocking collective, aborting the job when the other ranks do not take
    part within the timeout (a rank stuck or gone without MPI noticing): never a hang."""
    if request.Test():
        return
    started = time.monotonic()
    deadline = started + _state["timeout"]
    while not request.Test():
        if time.monotonic() > deadline:
            comm = world()
            sys.stderr.write(f"janus.distributed: rank {comm.Get_rank()}: {what} waited {_state['timeout']:g} s "
                             "for the other ranks; aborting the job\n" + "".join(traceback.format_stack(limit=8)))
            sys.stderr.flush()
            comm.Abort(2)
        # spin for 10 ms (a step's collective completes in µs; even time.sleep(0) costs
        # ~0.5 ms per round trip here), then poll every ms, e.g. while a peer compiles
        if time.monotonic() - started > 0.01:
            time.sleep(1e-3)
