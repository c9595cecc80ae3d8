"""The model zoo: imperative NumPy models, each with ``janus.jit`` as its only Janus line.

``MODELS`` maps a benchmark name to its ``ModelSpec`` (see ``workload``); ``janus-bench``
runs them. Each module holds one model and lists its benchmarks in ``SPECS``.
"""

from __future__ import annotations

from janus.models import gan, lenet, lstm, recursion, reinforce, rntn, treelstm, treernn
from janus.models.workload import ModelSpec, Size, Workload

MODELS: dict[str, ModelSpec] = {
    spec.name: spec
    for module in (lstm, treernn, rntn, treelstm, lenet, reinforce, gan, recursion)
    for spec in module.SPECS
}

__all__ = ["MODELS", "ModelSpec", "Size", "Workload"]
