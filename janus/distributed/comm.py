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


def init(timeout: float | None = None, abort_on_exception: bool = True) -> None:
    """Start MPI. With ``abort_on_exception`` an uncaught exception on any rank prints its
    traceback and aborts the whole job (``MPI_Abort``): the other ranks would otherwise wait
    in their next collective forever. ``timeout``: seconds a collective may wait."""
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
    deadline = time.monotonic() + _state["timeout"]
    pause = 0.0
    while not request.Test():
        if time.monotonic() > deadline:
            comm = world()
            sys.stderr.write(f"janus.distributed: rank {comm.Get_rank()}: {what} waited {_state['timeout']:g} s "
                             "for the other ranks; aborting the job\n" + "".join(traceback.format_stack(limit=8)))
            sys.stderr.flush()
            comm.Abort(2)
        time.sleep(pause)
        pause = min(1e-3, pause + 1e-5)  # spin first: a step's collective is usually ready in µs
