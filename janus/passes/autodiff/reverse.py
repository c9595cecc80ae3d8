"""``janus-autodiff``: reverse-mode gradient functions, one VJP rule per op (``vjp_rules``).

A ``func.func`` marked ``janus.grad`` (a unit attribute: every float argument; or
``janus.grad = {argnums = [0, 2]}``) gets a public ``@<name>_grad``:

    @f_grad(args..., seed per float result...) -> (results..., gradient per chosen argument)

It calls ``@f`` and a private ``@f_vjp(args..., seeds...) -> (gradient per float argument)``.
A declaration of ``@f_grad`` in the module (how a caller refers to it before the pass,
as the frontend's ``janus.grad`` does) is replaced by the definition.
Every function reached by ``func.call`` / ``janus.invoke`` from a differentiated body gets
its own ``_vjp`` and the call's rule calls it with the same op kind, so the backward of a
recursive function is recursive at the same call positions and goes through
``janus-eliminate-recursion`` like any other recursion.

Why recomputation: a ``_vjp`` first re-runs its forward body, then walks it backwards.
Values of an invocation are therefore found again by the matching backward invocation
(same arguments, same call position) without a key-addressed tape, and regions need no
tape either: a backward ``scf.if`` branch recomputes its forward branch (the saved
condition picks it); loops save their carried values per iteration in a tensor with a
leading iteration dimension (``scf.while`` first counts its iterations) and the reversed
loop recomputes each iteration's body from its saved state. The cost is recomputation
(for a recursion of depth d, forward work up to d times), traded for no tape plumbing
through the explicit stacks. An op reached by a gradient without a rule is a located error
naming the op.
"""

from __future__ import annotations

from dataclasses import dataclass

from janus.ir import ir
from janus.passes.autodiff.builder import GradBuilder, fail, is_float
from janus.passes.callgraph import functions
from janus.passes.registry import ModulePass, register_pass
from janus.passes.autodiff.rules import VJP_RULES

GRAD_ATTR = "janus.grad"


@dataclass(frozen=True)
class Signature:
    """What a differentiated function takes and gives, by position."""

    arg_types: list[ir.Type]
    result_types: list[ir.Type]

    @classmethod
    def of(cls, fn: ir.Operation) -> "Signature":
        ft = ir.FunctionType(ir.TypeAttr(fn.attributes["function_type"]).value)
        return cls(list(ft.inputs), list(ft.results))

    @property
    def float_args(self) -> list[int]:
        return [i for i, t in enumerate(self.arg_types) if is_float(t)]

    @property
    def float_results(self) -> list[int]:
        return [i for i, t in enumerate(self.result_types) if is_float(t)]


def _types(types: list[ir.Type]) -> str:
    return ", ".join(str(t) for t in types)


def vjp_name(name: str) -> str:
    return f"{name}_vjp"


class Differentiator:
    """Builds ``_vjp`` functions on demand (a worklist over callees) and ``_grad`` wrappers."""

    def __init__(self, module_op: ir.Operation) -> None:
        self.fns = functions(module_op)
        self.pending: list[str] = []
        self.done: set[str] = set()
        self.texts: list[str] = []

    def request_vjp(self, name: str) -> str:
        if name not in self.fns:
            raise KeyError(name)
        if name not in self.done:
            self.done.add(name)
            self.pending.append(name)
        return vjp_name(name)

    def run(self) -> None:
        while self.pending:
            self.texts.append(self.vjp_text(self.pending.pop()))

    def vjp_text(self, name: str) -> str:
        fn = self.fns[name]
        sig = Signature.of(fn)
        blocks = fn.regions[0].blocks
        if len(blocks) != 1:
            raise fail(fn, f"cannot differentiate '@{name}': only single-block functions are supported")
        b = GradBuilder(fn, VJP_RULES, self.request_vjp)
        entry = blocks[0]
        args = [b.fresh() for _ in sig.arg_types]
        seeds = [b.fresh() for _ in sig.float_results]
        b.bind(list(entry.arguments), args)
        seed_of = dict(zip(sig.float_results, seeds))
        grads = b.block_vjp(entry, [seed_of.get(i) for i in range(len(sig.result_types))], list(entry.arguments))
        out = [b.or_zeros(entry.arguments[i], grads[i]) for i in sig.float_args]
        params = [f"{a}: {t}" for a, t in zip(args, sig.arg_types)]
        params += [f"{s}: {sig.result_types[i]}" for s, i in zip(seeds, sig.float_results)]
        grad_types = [sig.arg_types[i] for i in sig.float_args]
        body = "\n".join(b.lines)
        return (
            f"func.func private @{vjp_name(name)}({', '.join(params)}) -> ({_types(grad_types)}) {{\n"
            f"{body}\nreturn {', '.join(out)} : {_types(grad_types)}\n}}"
        )

    def grad_text(self, name: str, argnums: list[int]) -> str:
        """The public ``_grad`` wrapper: primal results, then the chosen gradients."""
        fn = self.fns[name]
        sig = Signature.of(fn)
        floats = sig.float_args
        for i in argnums:
            if i not in floats:
                raise fail(fn, f"janus.grad argnum {i} of '@{name}' is not a float scalar or tensor argument")
        vjp = self.request_vjp(name)
        args = [f"%a{i}" for i in range(len(sig.arg_types))]
        seeds = [f"%s{i}" for i in sig.float_results]
        params = [f"{a}: {t}" for a, t in zip(args, sig.arg_types)]
        params += [f"{s}: {sig.result_types[i]}" for s, i in zip(seeds, sig.float_results)]
        results = [f"%r{i}" for i in range(len(sig.result_types))]
        grads = [f"%g{i}" for i in floats]
        chosen = [f"%g{i}" for i in argnums]
        lines = [f"func.func @{name}_grad({', '.join(params)}) -> ({_types(sig.result_types + [sig.arg_types[i] for i in argnums])}) {{"]
        if results:
            lines.append(f"{', '.join(results)} = func.call @{name}({', '.join(args)}) : ({_types(sig.arg_types)}) -> ({_types(sig.result_types)})")
        if grads:
            grad_types = [sig.arg_types[i] for i in floats]
            call_types = sig.arg_types + [sig.result_types[i] for i in sig.float_results]
            lines.append(f"{', '.join(grads)} = func.call @{vjp}({', '.join(args + seeds)}) : ({_types(call_types)}) -> ({_types(grad_types)})")
        out = results + chosen
        lines.append(f"return {', '.join(out)} : {_types(sig.result_types + [sig.arg_types[i] for i in argnums])}" if out else "return")
        lines.append("}")
        return "\n".join(lines)


def argnums_of(fn: ir.Operation, attr: ir.Attribute, floats: list[int]) -> list[int]:
    """The arguments a ``janus.grad`` attribute asks for (all float arguments for a unit attr)."""
    if isinstance(attr, ir.UnitAttr):
        return floats
    if isinstance(attr, ir.DictAttr) and "argnums" in ir.DictAttr(attr):
        return [ir.IntegerAttr(a).value for a in ir.ArrayAttr(ir.DictAttr(attr)["argnums"])]
    raise fail(fn, "janus.grad must be a unit attribute or {argnums = [...]}")


@register_pass
class Autodiff(ModulePass):
    name = "janus-autodiff"
    summary = "Generate reverse-mode @<f>_grad functions for functions marked janus.grad."

    def apply(self, module_op: ir.Operation) -> None:
        with module_op.context, ir.Location.unknown():
            differentiate(module_op)


def differentiate(module_op: ir.Operation) -> None:
    d = Differentiator(module_op)
    wrappers, marked = [], set()
    for name, fn in d.fns.items():
        if GRAD_ATTR not in fn.attributes:
            continue
        marked.add(name)
        argnums = argnums_of(fn, fn.attributes[GRAD_ATTR], Signature.of(fn).float_args)
        wrappers.append(d.grad_text(name, argnums))
        del fn.attributes[GRAD_ATTR]
    if not wrappers:
        return
    d.run()
    for name, fn in d.fns.items():  # a caller's declaration of a _grad being defined now
        if name.endswith("_grad") and name[: -len("_grad")] in marked and not len(fn.regions[0].blocks):
            fn.erase()
    add_functions(module_op, wrappers + d.texts)


def add_functions(module_op: ir.Operation, new_functions: list[str]) -> None:
    """Parse ``new_functions`` beside declarations of the module's functions, move them in."""
    decls = []
    for name, fn in functions(module_op).items():
        sig = Signature.of(fn)
        decls.append(f"func.func private @{name}({_types(sig.arg_types)}) -> ({_types(sig.result_types)})")
    parsed = ir.Module.parse("\n".join(decls + new_functions), module_op.context)
    body = module_op.regions[0].blocks[0]
    for op in list(parsed.body.operations)[len(decls):]:
        body.append(op.operation)
