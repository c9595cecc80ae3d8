"""Static arguments of ``janus.jit`` (``static_argnums``/``static_argnames``, as in ``jax.jit``).

A static argument is a configuration value (a mode string, a layer count, a tuple of
sizes, any hashable object) that the graph should treat as a constant and never relax or
trace. Each distinct tuple of static values (keyed by value and hash) gets its own jit
function of a small generated function that takes the other arguments and calls the
original with the static values baked in as globals of its own, so the graph generator
sees constants and the entry guards only the traced arguments.
"""

from __future__ import annotations

import re
from typing import Any, Callable, Hashable, Sequence

from janus.frontend.jit import JitFunction, Lowered
from janus.frontend.speculation import Speculation

FN_GLOBAL = "__janus_static_fn__"


def specialize(fn: Callable, names: list[str], static: dict[int, Any]) -> Callable:
    """A function of the non-static parameters of ``fn`` calling it with ``static`` (position -> value)."""
    values = {f"__janus_static_{i}__": v for i, v in static.items()}
    namespace: dict[str, Any] = {FN_GLOBAL: fn, **values}
    traced = ", ".join(n for i, n in enumerate(names) if i not in static)
    call = ", ".join(f"__janus_static_{i}__" if i in static else n for i, n in enumerate(names))
    name = re.sub(r"\W", "_", getattr(fn, "__name__", "f"))
    exec(f"def {name}({traced}):\n    return {FN_GLOBAL}({call})\n", namespace)
    return namespace[name]


class StaticArgs(JitFunction):
    """A jit function with static arguments: one inner jit function per tuple of static values."""

    def __init__(self, fn: Callable, warmup: int, switches: Speculation, fallback: str,
                 static_argnums: int | Sequence[int], static_argnames: str | Sequence[str]) -> None:
        super().__init__(fn, warmup, switches, fallback)
        names = list(self.signature.parameters)
        if any(p.kind is not p.POSITIONAL_OR_KEYWORD for p in self.signature.parameters.values()):
            raise TypeError("janus.jit: static arguments need a function of positional-or-keyword parameters only")
        numbers = {static_argnums} if isinstance(static_argnums, int) else set(static_argnums)
        by_name = {static_argnames} if isinstance(static_argnames, str) else set(static_argnames)
        unknown = by_name - set(names) or {n for n in numbers if not 0 <= n < len(names)}
        if unknown:
            raise ValueError(f"janus.jit: static argument(s) {sorted(map(str, unknown))} are not parameters of {fn.__qualname__}")
        self.static = tuple(sorted(numbers | {names.index(n) for n in by_name}))
        self.specializations: dict[Hashable, JitFunction] = {}

    def clear_cache(self) -> None:
        super().clear_cache()
        self.specializations = {}

    def _specialization(self, args: tuple, kwargs: dict) -> tuple[JitFunction, tuple]:
        """The inner jit function for these static values, and the traced arguments."""
        bound = self.signature.bind(*args, **kwargs)
        bound.apply_defaults()
        positional = bound.args
        values = tuple(positional[i] for i in self.static)
        try:
            inner = self.specializations.get(values)
        except TypeError:
            raise ValueError(f"janus.jit {self.__qualname__}: static arguments must be hashable, not {values!r}") from None
        if inner is None:
            names = list(self.signature.parameters)
            inner = JitFunction(specialize(self.fn, names, dict(zip(self.static, values))), self.warmup, self.switches,
                                self.fallback)
            described = ", ".join(f"{names[i]}={v!r}" for i, v in zip(self.static, values))
            inner.__qualname__ = f"{self.__qualname__}[{described}]"
            self.specializations[values] = inner
        return inner, tuple(a for i, a in enumerate(positional) if i not in self.static)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        inner, traced = self._specialization(args, kwargs)
        return inner(*traced)

    def lower(self, *args: Any, **kwargs: Any) -> Lowered:
        inner, traced = self._specialization(args, kwargs)
        return inner.lower(*traced)

    def report(self, globals: bool = False) -> list[str]:
        lines = [f"janus.jit {self.__qualname__}: static {', '.join(list(self.signature.parameters)[i] for i in self.static)}; "
                 f"{len(self.specializations)} set(s) of static values"]
        return lines + [line for inner in self.specializations.values() for line in inner.report(globals)]
