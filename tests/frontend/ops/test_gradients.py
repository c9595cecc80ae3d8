"""One gradient story per op: every record's declarations (``registry.Op``: ``vjp``,
``no_grad``, ``no_tape_vjp``, ``no_mlir_vjp``, ``mlir_vjp_limit``) hold on its case in
tests/helpers/grad_cases.py. The tape side is run on the eager tape; the compiled side is
``janus.grad`` of a weighted sum of the case traced and run through ``janus-autodiff`` (no
IREE). A side without a gradient must say why, and a reason that no longer holds fails.
Every differentiable op's gradient, on the tape and compiled, is compared in float64 with
central finite differences (a float64 form IREE cannot lower is a listed gap), and on a
representative subset the compiled float32 gradient with the tape's.
The docs/autodiff.md table must be the generated one."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import numpy as np
import pytest
from iree.compiler import ir

import janus
from janus.frontend.generate import generate
from janus.frontend.grad import GradSpec, trampoline
from janus.frontend.ops import gradients, registry
from janus.frontend.ops.registry import OPS, Op
from janus.frontend.profiler import Profile
from janus.frontend.tape import Tape, TapeError
from janus.ir import parse_module
from janus.passes import run_pipeline
from tests.helpers.grad_cases import CASES, LIMIT_CASES, Case, central_differences

AUTODIFF_DOC = Path(__file__).resolve().parents[3] / "docs" / "autodiff.md"
RNG = np.random.default_rng(5)
#: ops whose compiled gradient is compared with the tape's: each kind of lowering once
COMPARED = ("divide", "max", "where", "matmul", "getitem", "concatenate", "pad", "softmax", "cross_entropy", "conv2d",
            "max_pool2d", "einsum", "arctan2", "fmod", "arcsin", "copysign", "fmax")
#: every op with a tape VJP: its gradient in float64 against central finite differences
DIFFERENTIABLE = sorted(name for name, op in OPS.items() if op.vjp is not None)
#: ops whose compiled float64 gradient is a listed gap (the call runs on the tape), with the reason
FLOAT64_GAPS = {"cbrt": "IREE 3.13's CPU backend cannot lower a float64 `math.cbrt`"}
#: the compiled side, several ops to one compiled gradient (a compile per op would cost a minute)
PER_GRADIENT = 12
COMPILED = [name for name in DIFFERENTIABLE if not OPS[name].no_mlir_vjp and name not in FLOAT64_GAPS]
COMPILED_BATCHES = [COMPILED[i:i + PER_GRADIENT] for i in range(0, len(COMPILED), PER_GRADIENT)]
#: the product rules at zeros (one zero in a lane, two, and none), where g * out / x is NaN
ZEROS = np.array([[1.5, 0.0, 2.0, -1.0], [0.0, 3.0, 0.0, 2.0], [1.0, -2.0, 0.5, 1.25]])
ZERO_CASE: Case = (lambda x: np.prod(x, axis=1)[:, None] * np.cumprod(x, axis=1) + np.prod(x), [ZEROS])


def weighted_loss(fn: Callable[..., Any], nargs: int) -> Callable[..., Any]:
    """``loss(weights, x0, ...) = sum(fn(x0, ...) * weights)``, with ``fn`` a global rather
    than a free variable (``janus.grad`` traces only functions without free variables)."""
    names = ", ".join(f"x{i}" for i in range(nargs))
    namespace = {"np": np, "fn": fn}
    exec(f"def loss(weights, {names}):\n    return np.sum(fn({names}) * weights)\n", namespace)
    return namespace["loss"]


def float32_call(case: Case) -> tuple[Callable[..., Any], list[Any], tuple[int, ...]]:
    """The case as (loss, arguments, argnums): float32 arrays, differentiated; NumPy scalars
    as Python floats, graph constants (``janus.grad`` differentiates arrays only)."""
    fn, args = case
    args = [float(a) if isinstance(a, np.generic) else np.asarray(a, np.float32) for a in args]
    weights = RNG.uniform(-1, 1, np.shape(fn(*args))).astype(np.float32)
    argnums = tuple(i + 1 for i, a in enumerate(args) if isinstance(a, np.ndarray))
    return weighted_loss(fn, len(args)), [weights, *args], argnums


def on_tape(case: Case) -> set[str]:
    """The ops the eager tape records on the case (none when it refuses the case)."""
    fn, args = case
    tape = Tape()
    try:
        with tape:
            fn(*(tape.input(a) for a in args))
    except TapeError:
        return set()
    return {node.op.name for node in tape.nodes if node.op is not None}


def compiled_gradient(case: Case, monkeypatch: pytest.MonkeyPatch) -> tuple[set[str], ir.MLIRError | None]:
    """The ops applied while tracing ``janus.grad`` of the case, and the error of
    ``janus-autodiff`` on the traced module (None: it derived the gradient)."""
    loss, args, argnums = float32_call(case)
    applied: set[str] = set()
    record = registry.record
    monkeypatch.setattr(registry, "record", lambda em, name, *rest: (applied.add(name), record(em, name, *rest))[1])
    graph = generate(trampoline(GradSpec(loss, argnums, has_aux=False, with_value=False)), tuple(args), Profile())
    monkeypatch.undo()
    assert "janus-autodiff" in graph.pre_passes
    module = parse_module(graph.text)
    try:
        run_pipeline(module, "builtin.module(janus-autodiff)")
    except ir.MLIRError as e:
        return applied, e
    assert "_vjp" in str(module)
    return applied, None


def test_every_op_has_a_case() -> None:
    assert set(OPS) == set(CASES), "add a case to tests/helpers/grad_cases.py"
    assert set(LIMIT_CASES) == {name for name, op in OPS.items() if op.mlir_vjp_limit}


@pytest.mark.parametrize("name", sorted(OPS))
def test_tape_side_is_as_declared(name: str) -> None:
    op, recorded = OPS[name], name in on_tape(CASES[name])
    if op.vjp is not None:
        assert recorded, f"the case of {name} does not reach its tape VJP"
    else:
        assert not recorded, f"the tape records {name}: its declared reason ({op.no_grad or op.no_tape_vjp}) is stale"


@pytest.mark.parametrize("name", sorted(OPS))
def test_compiled_side_is_as_declared(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    op = OPS[name]
    applied, error = compiled_gradient(CASES[name], monkeypatch)
    if not op.no_grad:  # a static-only op folds before it is applied
        assert name in applied, f"the traced case of {name} does not apply the op"
    if op.no_mlir_vjp:
        assert error is not None, f"janus-autodiff differentiates {name}: drop no_mlir_vjp ({op.no_mlir_vjp})"
    else:
        assert error is None, f"{name} declares no reason, but janus-autodiff fails: {error}"


@pytest.mark.parametrize("name", sorted(LIMIT_CASES))
def test_declared_limits_hold(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    applied, error = compiled_gradient(LIMIT_CASES[name], monkeypatch)
    assert name in applied
    assert error is not None, f"janus-autodiff differentiates the limit case: drop {name}'s mlir_vjp_limit"


@pytest.mark.parametrize("name", COMPARED)
def test_compiled_gradient_equals_the_tape(name: str) -> None:
    loss, args, argnums = float32_call(CASES[name])
    g = janus.grad(loss, argnums=argnums, warmup=1)
    want = g(*args)  # the eager tape, then the build
    assert g.versions, janus.explain(g)
    (version,) = g.versions.values()
    got = g(*args)
    assert version.calls == 1 and len(got) == len(want) == len(argnums)
    for d, w in zip(got, want):
        assert d.dtype == w.dtype == np.float32
        np.testing.assert_allclose(d, w, rtol=1e-4, atol=1e-5)


def summed_losses(cases: list[Case]) -> tuple[Callable[..., Any], list[Any], list[int]]:
    """One loss ``sum_k <weights_k, case_k(args_k)>`` over float64 arguments, and the
    positions of the arrays among its arguments (the differentiated ones)."""
    namespace: dict[str, Any] = {"np": np}
    params, terms, args, arrays = [], [], [], []
    for k, (fn, case_args) in enumerate(cases):
        values = [float(a) if isinstance(a, np.generic) else np.asarray(a, np.float64) for a in case_args]
        namespace[f"f{k}"] = fn
        names = [f"a{k}_{i}" for i in range(len(values))]
        arrays += [len(args) + 1 + i for i, v in enumerate(values) if isinstance(v, np.ndarray)]
        params += [f"w{k}", *names]
        args += [RNG.uniform(-1, 1, np.shape(fn(*values))), *values]
        terms.append(f"np.sum(f{k}({', '.join(names)}) * w{k})")
    exec(f"def loss({', '.join(params)}):\n    return {' + '.join(terms)}\n", namespace)
    return namespace["loss"], args, arrays


def assert_matches_finite_differences(loss: Callable[..., Any], args: list[Any], argnums: list[int],
                                      got: Any) -> None:
    assert len(got) == len(argnums)
    for d, i in zip(got, argnums):
        assert d.dtype == np.float64
        np.testing.assert_allclose(d, central_differences(loss, args, i), rtol=1e-6, atol=1e-8, err_msg=f"argument {i}")


@pytest.mark.parametrize("name", DIFFERENTIABLE)
def test_tape_gradient_matches_finite_differences(name: str) -> None:
    loss, args, argnums = summed_losses([CASES[name]])
    with janus.disabled():  # janus.grad on the eager tape
        got = janus.grad(loss, argnums=tuple(argnums))(*args)
    assert_matches_finite_differences(loss, args, argnums, got)


@pytest.mark.parametrize("names", [*COMPILED_BATCHES, ["zeros"]], ids=lambda names: f"{names[0]}..{names[-1]}")
def test_compiled_float64_gradient_matches_finite_differences(names: list[str]) -> None:
    loss, args, argnums = summed_losses([ZERO_CASE if name == "zeros" else CASES[name] for name in names])
    g = janus.grad(loss, argnums=tuple(argnums), warmup=1)
    g(*args)
    assert g.versions, janus.explain(g)
    (version,) = g.versions.values()
    got = g(*args)
    assert version.calls == 1
    assert_matches_finite_differences(loss, args, argnums, got)


@pytest.mark.parametrize("name", sorted(FLOAT64_GAPS))
def test_float64_gaps_hold(name: str) -> None:
    loss, args, argnums = summed_losses([CASES[name]])
    g = janus.grad(loss, argnums=tuple(argnums), warmup=1)
    with pytest.warns(janus.FallbackWarning):
        assert_matches_finite_differences(loss, args, argnums, g(*args))
    assert not g.versions and FLOAT64_GAPS[name] in janus.explain(g), "the gap is closed: drop it from FLOAT64_GAPS"


@pytest.mark.parametrize("fields", [
    {},  # no vjp and no reason
    {"vjp": lambda g, out, args: {}, "no_tape_vjp": "why"},
    {"no_grad": "why", "no_mlir_vjp": "why"},
    {"vjp": lambda g, out, args: {}, "no_mlir_vjp": "why", "mlir_vjp_limit": "why"},
])
def test_inconsistent_declarations_are_refused(fields: dict) -> None:
    with pytest.raises(ValueError, match="op 'x'"):
        Op("x", np.negative, lambda x: {"x": x}, lambda args: ((), np.dtype(np.float32)), lambda em, args, spec: None,
           **fields)


def test_gradient_table_is_up_to_date() -> None:
    text = AUTODIFF_DOC.read_text(encoding="utf-8")
    assert text == gradients.splice(text), (
        f"{AUTODIFF_DOC} is stale: run `python -m janus.frontend.ops.gradients docs/autodiff.md`"
    )
    for op in OPS.values():
        assert gradients.row(op) in text
