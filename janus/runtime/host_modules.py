"""Python-hosted VM modules that compiled code may import (e.g. ``janus_mpi``).

A higher layer (``janus.distributed``) registers a ``HostModule``; every context loaded
afterwards gets it before the compiled module, so a ``func.func private @name.fn`` the
module imports resolves to the Python function. ``begin_call``/``end_call`` bracket each
compiled call (``end_call(ok=False)`` when it raised, a failed guard included): how a host
module tells the effects of a failed call (to be replayed by the imperative re-run) from
those of a finished one.
"""

from __future__ import annotations

from typing import Protocol

from iree import runtime as rt


class HostModule(Protocol):
    name: str
    #: the process shares the machine's cores with its peers (MPI ranks): calls run on the
    #: target's serial driver, and drivers are not timed against each other (a call's time
    #: would include waiting for the peers)
    serial_only: bool

    def create(self, device: rt.HalDevice) -> rt.VmModule:
        """A fresh VM module for one context on ``device``."""

    def begin_call(self) -> None: ...

    def end_call(self, ok: bool) -> None: ...


_REGISTERED: dict[str, HostModule] = {}
#: ``_REGISTERED``'s modules, one list updated in place (generated calls test its truth
#: value, without a call)
ACTIVE: list[HostModule] = []


def register(module: HostModule) -> None:
    """Make ``module`` available to contexts loaded from now on (idempotent per name)."""
    _REGISTERED.setdefault(module.name, module)
    ACTIVE[:] = _REGISTERED.values()


def active() -> list[HostModule]:
    return ACTIVE


def serial_only() -> bool:
    return any(module.serial_only for module in _REGISTERED.values())
