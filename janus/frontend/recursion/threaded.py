"""Arrays updated in place inside recursion: a dict of local arrays passed down a recursive
call (``grads`` of a hand-written backward: ``grads["W"] += np.outer(x, dz)``).

NumPy updates the caller's arrays; the graph has values only. So a dict of arrays passed
to a ``janus.invoke`` is *threaded* through the generated function, as functional state:
its arrays are parameters, fresh inside the function (updated in place there like any
local array, in data-dependent branches too), and their final values are extra results;
after the call the caller's arrays are replaced by those results wherever the caller's
trace sees them (``mutation.replace``, with its checks: the caller's arrays must be fresh,
unaliased and without live views, as for an in-place update written in the caller).

Refused (``NotConvertible``): an array passed twice (in the dict or beside it), an item
rebound rather than updated in place (Python would give the caller the new object, not
update the old one), keys added or removed, a threaded array returned, or a dict holding
anything but arrays.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from janus.frontend.ops import mutation
from janus.frontend.values import NotConvertible, Tensor, Weak

if TYPE_CHECKING:
    from janus.frontend.emitter import Emitter
    from janus.frontend.trace.interpreter import Tracer

# ("threaded", keys, item kinds): the item kinds are ("tensor", dtype, shape) kinds of ``invoke``
Kind = tuple
WHAT = "an in-place update inside a recursive call"


def is_threaded(value: Any) -> bool:
    return type(value) is dict


def kind_of(value: dict, item_kind: Any) -> Kind:
    """The kind of a dict argument: its keys and the kinds of its arrays."""
    if not value or not all(isinstance(k, (str, int)) for k in value):
        raise NotConvertible("a dict argument of a recursive call needs str or int keys")
    if any(not isinstance(v, Tensor) or isinstance(v, Weak) or not v.shape for v in value.values()):
        raise NotConvertible("a dict argument of a recursive call holds other values than arrays")
    return ("threaded", tuple(value), tuple(item_kind(v) for v in value.values()))


def make_local(tracer: "Tracer", value: dict) -> None:
    """Arrays the trace made from static values (``np.zeros(n)``) become graph constants."""
    for key, item in list(value.items()):
        if isinstance(item, np.ndarray):
            mutation.as_graph_constant(tracer, item, f"passing {key!r} to a recursive call")


def check_distinct(values: list[Any], kinds: tuple) -> None:
    """No threaded array may be reachable twice among a call's arguments."""
    threaded = [t for v, k in zip(values, kinds) if k[0] == "threaded" for t in v.values()]
    others = [v for v, k in zip(values, kinds) if k[0] != "threaded"]
    for i, t in enumerate(threaded):
        if any(t is u for u in threaded[i + 1:]) or mutation.found_in(others, t):
            raise NotConvertible("an array passed twice to a recursive call that updates it in place")


def parameters(em: "Emitter", kind: Kind, names: list[str], value_of: Any) -> dict:
    """The dict a generated function sees: its parameters, fresh local arrays there."""
    items = {}
    for key, item_kind, name in zip(kind[1], kind[2], names):
        items[key] = value_of(em, name, item_kind)
        em.provenance[items[key]] = None
    return items


def finals(em: "Emitter", kind: Kind, params: dict, container: dict, returned: list[Tensor]) -> list[Tensor]:
    """The dict's arrays when the generated function returns: each its parameter or an
    in-place update of it."""
    if not isinstance(container, dict) or tuple(container) != kind[1]:
        raise NotConvertible("a recursive call adds or removes keys of a dict it is passed")
    values = []
    for key in kind[1]:
        value, param = container[key], params[key]
        if not isinstance(value, Tensor) or em.updated.get(value, value) is not param or value.type != param.type:
            raise NotConvertible(f"a recursive call rebinds item {key!r} of a dict it is passed "
                                 "(only in-place updates of its arrays compile)")
        if any(value is r for r in returned):
            raise NotConvertible(f"a recursive function returns item {key!r} of a dict it updates")
        values.append(value)
    return values


def commit(tracer: "Tracer", container: dict, new: list[Tensor], changed: set | None) -> None:
    """The caller's arrays replaced by the call's results (``changed``: the keys the callee
    updates, None while the callee is still being traced: all)."""
    for key, value in zip(list(container), new):
        if changed is None or key in changed:
            mutation.replace(tracer, container[key], value, WHAT)
