"""``janus-autodiff`` end to end: every ``janus.grad`` function of tests/modules/autodiff_*.mlir
goes through janus-autodiff and janus-to-iree, is compiled for the CPU, and its
``_grad`` is checked against central finite differences of the compiled forward function
in float64 (``<seed, f(x)>`` differentiated element by element)."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
import pytest

from janus.ir import ir, parse_module
from janus.passes import run_pipeline
from janus.passes.callgraph import functions
from janus.passes.autodiff.rules import VJP_RULES
from janus.runtime import CompiledModule, compile_module
from tests.helpers.trees import make_tree_arrays

from tests.helpers import MODULES
PIPELINE = "builtin.module(janus-autodiff,janus-to-iree)"
#: f64 tanh (and other libm calls) fail to link with IREE's embedded ELF linker (3.13).
LINK_FLAGS = ["--iree-llvmcpu-link-embedded=false"]
_TENSOR = re.compile(r"tensor<((?:\d+x)*)(f16|f32|f64|i1|i64)>")
_DTYPES = {"f16": np.float16, "f32": np.float32, "f64": np.float64}


@functools.cache
def compiled(module: str) -> CompiledModule:
    """One compile per module file, shared by all its cases."""
    text = (MODULES / f"{module}.mlir").read_text()
    return CompiledModule(compile_module(text, "cpu", pipeline=PIPELINE, extra_flags=LINK_FLAGS))


@functools.cache
def signatures(module: str) -> dict[str, tuple[list[str], list[str]]]:
    """Function name -> (argument types, result types) as text; only janus.grad functions."""
    parsed = parse_module((MODULES / f"{module}.mlir").read_text())
    out = {}
    for name, fn in functions(parsed.operation).items():
        if "janus.grad" in fn.attributes:
            ft = ir.FunctionType(ir.TypeAttr(fn.attributes["function_type"]).value)
            out[name] = ([str(t) for t in ft.inputs], [str(t) for t in ft.results])
    return out


def is_float(t: str) -> bool:
    return t in _DTYPES or bool(_TENSOR.fullmatch(t)) and _TENSOR.fullmatch(t).group(2) in _DTYPES


def random_value(t: str, rng: np.random.Generator, low: float, high: float) -> object:
    """A float scalar or array of type ``t`` with entries in [low, high)."""
    if t in _DTYPES:
        return float(rng.uniform(low, high))
    dims, element = _TENSOR.fullmatch(t).groups()
    shape = tuple(int(d) for d in dims.split("x") if d)
    return rng.uniform(low, high, shape).astype(_DTYPES[element])


@dataclass
class Case:
    """One gradient check: ``fixed`` gives non-float (or chosen) arguments by position."""

    module: str
    function: str
    fixed: dict[int, object] = field(default_factory=dict)
    low: float = 0.5
    high: float = 1.5
    eps: float = 1e-6
    rtol: float = 1e-6
    label: str = ""
    #: A NumPy forward as the oracle, where IREE miscompiles the forward function.
    reference: Callable[..., object] | None = None

    @property
    def id(self) -> str:
        return f"{self.module}:{self.function}{'-' + self.label if self.label else ''}"


def inner(a: object, b: object) -> float:
    return float(np.sum(np.asarray(a, dtype=np.float64) * np.asarray(b, dtype=np.float64)))


def as_tuple(x: object) -> tuple:
    return x if isinstance(x, tuple) else (x,)


def perturbed(args: list, i: int, j: int, delta: float) -> list:
    out = list(args)
    if isinstance(args[i], np.ndarray):
        out[i] = args[i].copy()
        out[i].flat[j] += delta
    else:
        out[i] = args[i] + delta
    return out


def check_gradient(case: Case) -> None:
    module = compiled(case.module)
    arg_types, result_types = signatures(case.module)[case.function]
    rng = np.random.default_rng(abs(hash(case.id)) % 2**32)
    args = [case.fixed[i] if i in case.fixed else random_value(t, rng, case.low, case.high) for i, t in enumerate(arg_types)]
    float_results = [i for i, t in enumerate(result_types) if is_float(t)]
    seeds = [random_value(result_types[i], rng, -1.0, 1.0) for i in float_results]
    forward = case.reference or module[case.function]

    def loss(values: list) -> float:
        out = as_tuple(forward(*values))
        return sum(inner(out[i], s) for i, s in zip(float_results, seeds))

    got = as_tuple(module[f"{case.function}_grad"](*args, *seeds))
    primal, grads = got[: len(result_types)], got[len(result_types) :]
    for p, q in zip(primal, as_tuple(module[case.function](*args))):
        np.testing.assert_array_equal(p, q)
    float_args = [i for i, t in enumerate(arg_types) if is_float(t)]
    assert len(grads) == len(float_args)
    for i, grad in zip(float_args, grads):
        size = np.size(args[i])
        fd = np.array(
            [(loss(perturbed(args, i, j, case.eps)) - loss(perturbed(args, i, j, -case.eps))) / (2 * case.eps) for j in range(size)]
        ).reshape(np.shape(args[i]))
        np.testing.assert_allclose(np.asarray(grad, dtype=np.float64), fd, rtol=case.rtol, atol=case.rtol, err_msg=f"argument {i}")


def np_tensor_insert(t: np.ndarray, s: float) -> np.ndarray:
    """tests/modules/autodiff_rules.mlir @tensor_insert (IREE 3.13 miscompiles its forward)."""
    out = t.copy()
    out[0, 1] = t[1, 0] * s
    return out


#: Cases beyond the defaults (every janus.grad function of autodiff_rules.mlir, inputs in [0.5, 1.5)).
SPECIAL = {
    ("autodiff_rules", "arith_casts"): dict(eps=1e-2, rtol=1e-3),
    ("autodiff_rules", "math_cbrt_f32"): dict(eps=1e-2, rtol=1e-3),
    ("autodiff_rules", "tensor_insert"): dict(reference=np_tensor_insert),
    ("autodiff_rules", "tensor_slices"): dict(fixed={2: 1}),
}

RULE_CASES = [Case("autodiff_rules", name, **SPECIAL.get(("autodiff_rules", name), {})) for name in signatures("autodiff_rules")]


@pytest.mark.parametrize("case", RULE_CASES, ids=lambda c: c.id)
def test_rule_gradient(case: Case) -> None:
    check_gradient(case)


CONTROL_CASES = [
    Case("autodiff_control", "branch", {0: 0.7}, label="then"),
    Case("autodiff_control", "branch", {0: -0.7}, label="else"),
    Case("autodiff_control", "for_loop", {2: 0}, label="0-iterations"),
    Case("autodiff_control", "for_loop", {2: 4}, label="4-iterations"),
    # w >= 1.2 so that v grows past the limit.
    Case("autodiff_control", "while_loop", {1: 1.2, 3: 6.0}, label="limit-6"),
    Case("autodiff_control", "while_loop", {0: 0.6, 1: 1.3, 3: 12.0}, eps=1e-8, rtol=1e-5, label="limit-12"),
    Case("autodiff_control", "while_loop", {0: 7.0, 1: 1.2, 3: 6.0}, label="0-iterations"),
    Case("autodiff_control", "calls"),
    Case("autodiff_control", "invokes"),
    # Recursion: the backward of @power is recursive at the same call position.
    Case("autodiff_recursive", "power", {1: 0}, label="depth-0"),
    Case("autodiff_recursive", "power", {1: 1}, label="depth-1"),
    Case("autodiff_recursive", "power", {1: 7}, label="depth-7"),
]


@pytest.mark.parametrize("case", CONTROL_CASES, ids=lambda c: c.id)
def test_control_gradient(case: Case) -> None:
    check_gradient(case)


@pytest.mark.parametrize("shape, leaves", [("balanced", 6), ("moderate", 5), ("linear", 4)])
def test_tree_rnn_gradient(shape: str, leaves: int) -> None:
    """Tensor-valued recursion over index arrays: d root / d (emb, W, b)."""
    root, children, is_leaf, word = make_tree_arrays(shape, leaves, np.random.default_rng(leaves))
    fixed = {0: root, 1: children, 2: is_leaf, 3: word}
    check_gradient(Case("autodiff_tree_rnn", "tree_rnn", fixed, low=-1.0, high=1.0, rtol=1e-6, label=shape))


def test_while_trip_count_depends_on_data() -> None:
    """The while_loop cases above really run different numbers of iterations."""
    forward = compiled("autodiff_control")["while_loop"]
    h = np.ones(2)
    counts = set()
    for x, limit in ((1.0, 6.0), (0.6, 12.0), (7.0, 6.0)):
        v, _ = forward(x, 1.2, h, limit)
        n, u = 0, x
        while u < limit:
            u, n = u * 1.2 + x, n + 1
        assert v == pytest.approx(u)
        counts.add(n)
    assert len(counts) == 3


def grad_module_ops() -> set[str]:
    """Op names in the autodiff test modules."""
    names: set[str] = set()
    for path in MODULES.glob("autodiff_*.mlir"):
        module = parse_module(path.read_text())

        def visit(op: ir.Operation) -> ir.WalkResult:
            names.add(op.name)
            return ir.WalkResult.ADVANCE

        module.operation.walk(visit)
    return names


def test_every_rule_is_checked() -> None:
    """Each table entry is used by some gradient-checked module."""
    assert set(VJP_RULES) - grad_module_ops() == set()


def test_missing_rule_names_the_op() -> None:
    module = parse_module(
        "func.func @f(%x: f64) -> f64 attributes {janus.grad} {\n"
        "  %y = math.erf %x : f64\n  return %y : f64\n}"
    )
    with pytest.raises(ir.MLIRError, match="no gradient rule for 'math.erf'"):
        run_pipeline(module, "builtin.module(janus-autodiff)")
