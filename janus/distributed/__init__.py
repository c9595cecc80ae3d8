"""``janus.distributed``: data-parallel training over MPI (``pip install 'janus[distributed]'``).

Each rank (``mpiexec -n N python train.py``) trains a replica on its shard of the batch;
``allreduce`` averages the gradients so every replica takes the same step. Called from
Python every function here is NumPy + ``mpi4py``; ``allreduce`` traced inside a
``janus.jit`` step runs inside the compiled call (the ``janus_mpi`` host module), between
the gradient and the update, like JANUS did with Horovod. See ``collectives`` for the
protocol (layout check, fused buffers, replay after a failed guard).
"""

from janus.distributed import comm, host
from janus.distributed.broadcast import broadcast, broadcast_parameters
from janus.distributed.comm import rank, size
from janus.distributed.reduce import allreduce


def init(timeout: float | None = None, abort_on_exception: bool = True) -> None:
    """Start MPI and register the ``janus_mpi`` host module (before the first compile, so
    every module loads with it and, with several ranks, on the serial driver: the ranks
    already share the cores). ``abort_on_exception``: an uncaught exception on any rank
    aborts all of them (``MPI_Abort``) instead of leaving them waiting in a collective.
    ``timeout``: seconds a collective waits for the others before aborting the job."""
    comm.start(timeout, abort_on_exception)
    host.register()


__all__ = ["allreduce", "broadcast", "broadcast_parameters", "init", "rank", "size"]
