"""``janus-compile file.py:function``: load the function and build its example arguments.

Example arguments come from an ``.npz`` (arrays keyed by parameter name: trained weights
and a sample input, as ``np.savez`` writes them) and from ``--arg-shape NAME=64x784xf32``
(zeros of that shape; enough for functions whose branches do not depend on values).
Parameters with defaults may be left out.
"""

from __future__ import annotations

import importlib.util
import inspect
import sys
from pathlib import Path
from typing import Any, Callable

import numpy as np

DTYPES = {"f32": np.float32, "f64": np.float64, "i64": np.int64, "i1": np.bool_}


def is_python_target(text: str) -> bool:
    file, _, name = text.rpartition(":")
    return file.endswith(".py") and bool(name)


def load_function(text: str) -> Callable:
    """``path/to/file.py:name`` (``name`` may be dotted, e.g. ``Model.predict``)."""
    file, _, name = text.rpartition(":")
    path = Path(file).resolve()
    if not path.exists():
        raise FileNotFoundError(2, "No such file or directory", file)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(path.stem, module)
    spec.loader.exec_module(module)
    target: Any = module
    for part in name.split("."):
        target = getattr(target, part, None)
        if target is None:
            raise ValueError(f"{file} defines no {name}")
    return getattr(target, "fn", target)  # a janus.jit function exports its Python function


def parse_shape(text: str) -> np.ndarray:
    """``64x784xf32`` -> zeros((64, 784), float32); ``f32`` -> a 0-d array."""
    *dims, element = text.split("x")
    if element not in DTYPES or not all(d.isdigit() for d in dims):
        raise ValueError(f"bad shape {text!r}: expected e.g. 64x784xf32 (element types: {', '.join(DTYPES)})")
    return np.zeros(tuple(int(d) for d in dims), DTYPES[element])


def example_args(fn: Callable, npz: str | None, shapes: list[str]) -> tuple:
    given: dict[str, Any] = dict(np.load(npz)) if npz else {}
    for spec in shapes:
        name, _, shape = spec.partition("=")
        given[name] = parse_shape(shape)
    args = []
    for name, p in inspect.signature(fn).parameters.items():
        if name in given:
            args.append(given.pop(name))
        elif p.default is not p.empty:
            args.append(p.default)
        else:
            raise ValueError(f"no example value for parameter {name!r} (give it in --example-args or --arg-shape)")
    if given:
        raise ValueError(f"{fn.__qualname__} has no parameter(s) {', '.join(given)}")
    return tuple(args)


def leaf(args: dict[str, Any], name: str) -> Any:
    """The argument an export input name denotes: ``x``, or ``xs[0][1]`` inside lists."""
    base, _, rest = name.partition("[")
    value = args[base]
    for index in filter(None, rest.rstrip("]").split("][")):
        value = value[int(index)]
    return value
