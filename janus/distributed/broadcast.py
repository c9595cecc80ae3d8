"""``broadcast`` and ``broadcast_parameters``: the root rank's values on every rank
(start all replicas from the same parameters). Imperative only: called inside a
``janus.jit`` step they make it run in Python, with the reason in ``janus.explain``."""

from __future__ import annotations

import types
from typing import Any, Iterator

import numpy as np

from janus.distributed import comm
from janus.distributed.collectives import check_same
from janus.frontend.values import NotConvertible


def _broadcast_array(array: np.ndarray, root: int) -> np.ndarray:
    world = comm.world()
    out = np.ascontiguousarray(array).copy() if world.Get_rank() == root else np.empty(array.shape, array.dtype)
    comm.blocking(lambda: world.Bcast(out, root), f"broadcast ({array.dtype}{list(array.shape)})")
    return out


class Broadcast:
    """``broadcast(value, root=0)``: an array (same shape and dtype on every rank, checked)
    or any picklable object, as ``root`` has it."""

    __name__ = __qualname__ = "broadcast"
    __module__ = "janus.distributed"

    def __call__(self, value: Any, root: int = 0) -> Any:
        world = comm.world()
        if world.Get_size() == 1:
            return value
        if isinstance(value, np.ndarray):
            check_same(f"{value.dtype}{list(value.shape)} from rank {root}", "broadcast")
            return _broadcast_array(value, root)
        check_same(f"an object from rank {root}", "broadcast")
        return comm.blocking(lambda: world.bcast(value, root), "broadcast")

    def janus_trace(self, tracer: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
        raise NotConvertible("janus.distributed.broadcast runs imperatively: call it outside the jitted step")


#: objects with a ``__dict__`` that hold code, not a model's state
_NOT_STATE = (type, types.ModuleType, types.FunctionType, types.MethodType, types.BuiltinFunctionType)


def _arrays(value: Any, path: str, seen: set[int]) -> Iterator[tuple[str, Any, Any]]:
    """(path, container, key) of each ndarray reachable from ``value``'s attributes, dicts and lists."""
    if id(value) in seen:
        return
    seen.add(id(value))
    if isinstance(value, dict):
        items = list(value.items())
    elif isinstance(value, list):
        items = list(enumerate(value))
    elif hasattr(value, "__dict__") and not isinstance(value, _NOT_STATE) and not hasattr(value, "janus_trace"):
        items = list(vars(value).items())
    else:
        return
    for key, item in items:
        where = f"{path}[{key!r}]" if isinstance(value, (dict, list)) else f"{path}.{key}"
        if isinstance(item, np.ndarray):
            yield where, value, key
        else:
            yield from _arrays(item, where, seen)


def broadcast_parameters(obj: Any, root: int = 0) -> None:
    """Replace every ndarray reachable from ``obj`` (attributes, dicts, lists, nested
    objects; not inside tuples, which cannot change in place) by ``root``'s. Every rank must
    hold the same layout (checked first: a clear error on all ranks, nothing replaced);
    arrays are replaced only after all of them arrived."""
    found = list(_arrays(obj, "obj", set()))
    layout = "; ".join(f"{path}: {_array(c, k).dtype}{list(_array(c, k).shape)}" for path, c, k in found)
    check_same(layout, "broadcast_parameters")
    if comm.size() == 1:
        return
    new = [_broadcast_array(_array(c, k), root) for _, c, k in found]
    for (_, container, key), array in zip(found, new):  # all received: only now replace
        if isinstance(container, (dict, list)):
            container[key] = array
        else:
            setattr(container, key, array)


def _array(container: Any, key: Any) -> np.ndarray:
    return container[key] if isinstance(container, (dict, list)) else getattr(container, key)


broadcast = Broadcast()
