"""``allreduce``: NumPy + MPI when called, an in-graph collective when traced by ``janus.jit``."""

from __future__ import annotations

from typing import Any

import numpy as np

from janus.distributed import host
from janus.distributed.collectives import Spec, allreduce_buffers
from janus.distributed.tree import flatten
from janus.frontend.values import NotConvertible, Tensor, tensor_type


def _is_array(value: Any) -> bool:
    return isinstance(value, (np.ndarray, np.generic, float, int)) and not isinstance(value, bool)


def _bind(args: list[Any] | tuple, kwargs: dict[str, Any]) -> tuple[Any, str]:
    if len(args) > 2 or set(kwargs) - {"x", "op"}:
        raise TypeError("allreduce(x, op='mean') takes an array or a dict/list/tuple of arrays, and an op")
    x = args[0] if args else kwargs["x"]
    op = args[1] if len(args) > 1 else kwargs.get("op", "mean")
    return x, op


class AllReduce:
    """``allreduce(x, op="mean"|"sum")``: ``x`` (an array, or a dict/list/tuple of arrays)
    summed or averaged over all ranks, on every rank. Traced inside a ``janus.jit`` step it
    becomes part of the compiled call (see ``host``)."""

    __name__ = __qualname__ = "allreduce"
    __module__ = "janus.distributed"

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        x, op = _bind(args, kwargs)
        leaves, build = flatten(x, _is_array)
        arrays = [np.asarray(leaf) for leaf in leaves]
        spec = Spec.of([(a.shape, a.dtype) for a in arrays], op)
        groups = spec.groups

        def buffer(g: int) -> np.ndarray:
            dtype, members = groups[g]
            return np.concatenate([arrays[i].ravel() for i in members]).astype(dtype, copy=False)

        reduced = allreduce_buffers(spec, buffer)
        out: list[Any] = [None] * len(arrays)
        for (_, members), flat in zip(groups, reduced):
            start = 0
            for i in members:
                out[i] = flat[start : start + arrays[i].size].reshape(arrays[i].shape)
                start += arrays[i].size
        return build(out)

    def janus_trace(self, tracer: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
        x, op = _bind(args, kwargs)
        if not isinstance(op, str):
            raise NotConvertible("allreduce's op must be a constant string")
        leaves, build = flatten(x, lambda v: isinstance(v, Tensor) or _is_array(v))
        em = tracer.em
        tensors = [leaf if isinstance(leaf, Tensor) else em.literal(np.asarray(leaf)) for leaf in leaves]
        if any(isinstance(d, str) for t in tensors for d in t.shape):
            raise NotConvertible("allreduce of an array with a dynamic (?) dimension")
        spec = Spec.of([(t.shape, t.dtype) for t in tensors], op)
        host.register()
        if host.DECLARATION not in tracer.functions:
            tracer.functions.append(host.DECLARATION)
        index = host.spec_index(spec)
        out: list[Any] = [None] * len(tensors)
        for g, (dtype, members) in enumerate(spec.groups):
            sizes = [int(np.prod(tensors[i].shape)) for i in members]
            flat = em.concat([em.reshape(tensors[i], (n,)) for i, n in zip(members, sizes)], 0, (sum(sizes),))
            reduced = _host_call(em, flat, index, g)
            start = 0
            for i, n in zip(members, sizes):
                piece = em.extract_slice(reduced, [start], [n], [1], (n,)) if len(members) > 1 else reduced
                out[i] = em.reshape(piece, tensors[i].shape)
                start += n
        return build(out)

    def __repr__(self) -> str:
        return "<janus.distributed.allreduce>"


def _host_call(em: Any, flat: Tensor, spec: int, group: int) -> Tensor:
    """``flat`` through ``@janus_mpi.allreduce``: exported as a buffer view, imported back."""
    ttype = tensor_type(flat.shape, flat.dtype)
    view, spec_value, group_value, result = em.fresh(), em.fresh(), em.fresh(), em.fresh()
    em.lines += [
        f"{view} = hal.tensor.export {flat.name} : {ttype} -> !hal.buffer_view",
        f"{spec_value} = arith.constant {spec} : i64",
        f"{group_value} = arith.constant {group} : i64",
        f"{result} = func.call @{host.NAME}.allreduce({view}, {spec_value}, {group_value}) : "
        "(!hal.buffer_view, i64, i64) -> !hal.buffer_view",
    ]
    return em.emit(f"hal.tensor.import {result} : !hal.buffer_view -> {ttype}", flat.shape, flat.dtype)


allreduce = AllReduce()
