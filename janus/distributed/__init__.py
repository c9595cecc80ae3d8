"""``janus.distributed``: data-parallel training over MPI (``pip install 'janus[distributed]'``).

Each rank (``mpiexec -n N python train.py``) trains a replica on its shard of the batch;
``allreduce`` averages the gradients so every replica takes the same step. Called from
Python every function here is NumPy + ``mpi4py``; ``allreduce`` traced inside a
``janus.jit`` step runs inside the compiled call (the ``janus_mpi`` host module), between
the gradient and the update, like JANUS did with Horovod. See ``collectives`` for the
protocol (layout check, fused buffers, replay after a failed guard).
"""

from janus.distributed.broadcast import broadcast, broadcast_parameters
from janus.distributed.comm import init, rank, size
from janus.distributed.reduce import allreduce

__all__ = ["allreduce", "broadcast", "broadcast_parameters", "init", "rank", "size"]
