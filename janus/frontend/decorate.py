"""``janus.jit`` the decorator: its options, and which jit function they make."""

from __future__ import annotations

import functools
import types
from typing import Any, Callable, Sequence

from janus.frontend.jit import DEFAULT_WARMUP, JitFunction
from janus.frontend.speculation import Speculation
from janus.frontend.static import StaticArgs


def jit(fn: Callable | None = None, *, warmup: int = DEFAULT_WARMUP, speculate: bool = True, unroll: bool = True,
        specialize: bool = True, fallback: str = "warn", static_argnums: int | Sequence[int] = (),
        static_argnames: str | Sequence[str] = ()) -> Any:
    """Compile ``fn`` speculatively after ``warmup`` profiled imperative calls.

    Usable as ``@jit``, ``@jit(warmup=2)`` or ``jit(f)``, on functions and methods; a jit
    function (``janus.grad`` returns one) is returned as it is. ``jit(obj.method)`` compiles
    the method's function with ``obj`` bound first, as ``@jit`` on the method would (static
    argument numbers count from the argument after ``self``). ``speculate``, ``unroll``
    and ``specialize`` switch speculative optimizations off (see ``speculation``).
    ``fallback`` says what a call that runs in Python does besides: ``"warn"`` (a
    ``FallbackWarning`` once per reason), ``"error"`` (``ConversionError``, for tests) or
    ``"silent"``. Static arguments (as in ``jax.jit``) are keyed by value and never traced
    (see ``static``).
    """
    options = dict(warmup=warmup, speculate=speculate, unroll=unroll, specialize=specialize, fallback=fallback)
    if fn is None:
        return lambda f: jit(f, static_argnums=static_argnums, static_argnames=static_argnames, **options)
    if isinstance(fn, JitFunction) or _bound_jit_method(fn):
        return fn
    if isinstance(fn, types.MethodType):  # the method's code takes ``self``: trace it with the object
        numbers = (static_argnums,) if isinstance(static_argnums, int) else static_argnums
        inner = jit(fn.__func__, static_argnums=tuple(n + 1 for n in numbers), static_argnames=static_argnames, **options)
        return inner.__get__(fn.__self__)
    switches = Speculation(speculate, unroll, specialize)
    if static_argnums != () or static_argnames != ():
        return StaticArgs(fn, warmup, switches, fallback, static_argnums, static_argnames)
    return JitFunction(fn, warmup, switches, fallback)


def _bound_jit_method(fn: Any) -> bool:
    """``obj.method`` of a jit-decorated method (``JitFunction.__get__`` binds with a partial)."""
    return isinstance(fn, functools.partial) and isinstance(fn.func, JitFunction) and len(fn.args) == 1 and not fn.keywords
