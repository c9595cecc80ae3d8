"""``janus_mpi``: the VM module (hosted in Python) that compiled steps call to all-reduce.

A traced ``allreduce`` emits, per dtype buffer, ``hal.tensor.export`` → ``func.call
@janus_mpi.allreduce(%view, %spec, %group)`` → ``hal.tensor.import``: the collective runs
inside the compiled call, in program order with its guards, and its result feeds the
update that follows in the same graph. ``%spec`` indexes ``SPECS`` (this process's layouts
of traced all-reduces).
"""

from __future__ import annotations

import numpy as np
from iree import runtime as rt

from janus.distributed import comm
from janus.distributed.collectives import REPLAY, Spec
from janus.runtime import host_modules

NAME = "janus_mpi"
#: the imported function's declaration, added once to a module that calls it
DECLARATION = f"  func.func private @{NAME}.allreduce(!hal.buffer_view, i64, i64) -> !hal.buffer_view"
#: traced layouts; the compiled code passes an index into this list
SPECS: list[Spec] = []

_MEMORY = rt.MemoryType.DEVICE_LOCAL | rt.MemoryType.HOST_VISIBLE
_USAGE = rt.BufferUsage.DEFAULT | rt.BufferUsage.MAPPING


def spec_index(spec: Spec) -> int:
    if spec not in SPECS:
        SPECS.append(spec)
    return SPECS.index(spec)


class JanusMPI:
    """The host module: ``create`` gives each context its own VM module on its device."""

    name = NAME

    @property
    def serial_only(self) -> bool:
        return comm.size() > 1

    def create(self, device: rt.HalDevice) -> rt.VmModule:
        def allreduce(_: object, ref: rt.VmRef, spec: int, group: int) -> rt.VmRef:
            view = ref.deref(rt.HalBufferView)
            dtype, _ = SPECS[spec].groups[group]
            flat = np.frombuffer(view.map(), np.dtype(dtype))[: int(np.prod(view.shape))]
            result = REPLAY.compiled_group(SPECS[spec], group, flat)
            return device.allocator.allocate_buffer_copy(
                memory_type=_MEMORY, allowed_usage=_USAGE, device=device, buffer=result,
                element_type=view.element_type).ref

        interface = rt.PyModuleInterface(NAME, lambda iface: None)
        interface.export("allreduce", "0rII_r", allreduce)
        return interface.create()

    def begin_call(self) -> None:
        REPLAY.begin_call()

    def end_call(self, ok: bool) -> None:
        REPLAY.end_call(ok)


def register() -> None:
    host_modules.register(JanusMPI())
