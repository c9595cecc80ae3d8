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

from iree.compiler.dialects import func

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

    @property
    def seed_types(self) -> list[ir.Type]:
        """One seed (cotangent) per float result."""
        return [self.result_types[i] for i in self.float_results]


def vjp_name(name: str) -> str:
    return f"{name}_vjp"


class Differentiator:
    """Builds ``_vjp`` functions on demand (a worklist over callees) and ``_grad`` wrappers,
    each appended to the module as a ``func.func``."""

    def __init__(self, module_op: ir.Operation) -> None:
        self.fns = functions(module_op)
        self.body = module_op.regions[0].blocks[0]
        self.pending: list[str] = []
        self.done: set[str] = set()

    def request_vjp(self, name: str) -> str:
        if name not in self.fns:
            raise KeyError(name)
        if name not in self.done:
            self.done.add(name)
            self.pending.append(name)
        return vjp_name(name)

    def run(self) -> None:
        while self.pending:
            self.build_vjp(self.pending.pop())

    def new_function(self, fn: ir.Operation, name: str, inputs: list[ir.Type], results: list[ir.Type],
                     visibility: str | None = None) -> ir.Block:
        """An empty ``func.func`` at the end of the module, located at ``fn``; its entry block."""
        with ir.InsertionPoint(self.body), fn.location:
            new = func.FuncOp(name, (inputs, results), visibility=visibility)
            return new.add_entry_block()

    def build_vjp(self, name: str) -> None:
        fn = self.fns[name]
        sig = Signature.of(fn)
        blocks = fn.regions[0].blocks
        if len(blocks) != 1:
            raise fail(fn, f"cannot differentiate '@{name}': only single-block functions are supported")
        b = GradBuilder(VJP_RULES, self.request_vjp)
        forward = blocks[0]
        grad_types = [sig.arg_types[i] for i in sig.float_args]
        entry = self.new_function(fn, vjp_name(name), sig.arg_types + sig.seed_types, grad_types, "private")
        args = list(entry.arguments)
        b.bind(list(forward.arguments), args[: len(sig.arg_types)])
        seed_of = dict(zip(sig.float_results, args[len(sig.arg_types):]))
        with ir.InsertionPoint(entry), fn.location:
            grads = b.block_vjp(forward, [seed_of.get(i) for i in range(len(sig.result_types))], list(forward.arguments))
            func.ReturnOp([b.or_zeros(forward.arguments[i], grads[i]) for i in sig.float_args])

    def build_grad(self, name: str, argnums: list[int]) -> None:
        """The public ``_grad`` wrapper: primal results, then the chosen gradients."""
        fn = self.fns[name]
        sig = Signature.of(fn)
        floats = sig.float_args
        for i in argnums:
            if i not in floats:
                raise fail(fn, f"janus.grad argnum {i} of '@{name}' is not a float scalar or tensor argument")
        vjp = self.request_vjp(name)
        chosen_types = [sig.arg_types[i] for i in argnums]
        entry = self.new_function(fn, f"{name}_grad", sig.arg_types + sig.seed_types, sig.result_types + chosen_types)
        args = list(entry.arguments)
        with ir.InsertionPoint(entry), fn.location:
            results = list(func.CallOp(sig.result_types, name, args[: len(sig.arg_types)]).results) if sig.result_types else []
            grads = dict(zip(floats, func.CallOp([sig.arg_types[i] for i in floats], vjp, args).results)) if floats else {}
            func.ReturnOp(results + [grads[i] for i in argnums])


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
    marked = set()
    for name, fn in list(d.fns.items()):
        if GRAD_ATTR not in fn.attributes:
            continue
        marked.add(name)
        argnums = argnums_of(fn, fn.attributes[GRAD_ATTR], Signature.of(fn).float_args)
        d.build_grad(name, argnums)
        del fn.attributes[GRAD_ATTR]
    if not marked:
        return
    d.run()
    for name, fn in d.fns.items():  # a caller's declaration of a _grad defined now
        if name.endswith("_grad") and name[: -len("_grad")] in marked and not len(fn.regions[0].blocks):
            fn.erase()
