"""Call graphs over ``func.call`` and ``janus.invoke``, and the check IREE needs.

iree-compile 3.13 never returns on a module whose call graph has a cycle, so no module
reaches it before ``check_ready_for_iree`` has passed: no janus op left, no cycle, and
no unregistered op (iree-compile crashes on those instead of reporting them).
"""

from __future__ import annotations

from janus.ir import ir
from janus.passes.registry import ModulePass, PassError, register_pass

CALL_OPS = ("func.call", "janus.invoke")


def functions(module_op: ir.Operation) -> dict[str, ir.Operation]:
    """``func.func`` ops of the module by symbol name."""
    return {
        op.attributes["sym_name"].value: op.operation
        for op in module_op.regions[0].blocks[0].operations
        if op.operation.name == "func.func"
    }


def call_sites(fn: ir.Operation) -> list[ir.Operation]:
    """Every ``func.call`` and ``janus.invoke`` inside ``fn``, nested regions included."""
    sites: list[ir.Operation] = []

    def visit(op: ir.Operation) -> ir.WalkResult:
        if op.name in CALL_OPS:
            sites.append(op)
        return ir.WalkResult.ADVANCE

    fn.walk(visit)
    return sites


def call_graph(module_op: ir.Operation) -> dict[str, list[str]]:
    """Caller name -> callee names (in call-site order, repeats removed)."""
    graph = {}
    for name, fn in functions(module_op).items():
        callees = [site.attributes["callee"].value for site in call_sites(fn)]
        graph[name] = list(dict.fromkeys(callees))
    return graph


def strongly_connected_components(graph: dict[str, list[str]]) -> list[list[str]]:
    """Tarjan's SCCs, callees before callers; callees outside ``graph`` are ignored."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in graph:
                continue
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            scc = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                scc.append(w)
                if w == v:
                    break
            out.append(sorted(scc))

    for v in graph:
        if v not in index:
            visit(v)
    return out


def cycles(graph: dict[str, list[str]]) -> list[list[str]]:
    """The recursive SCCs: several functions, or one that calls itself."""
    return [
        scc
        for scc in strongly_connected_components(graph)
        if len(scc) > 1 or scc[0] in graph[scc[0]]
    ]


def ready_for_iree_problems(module_op: ir.Operation) -> list[tuple[ir.Location, str]]:
    """Why ``module_op`` cannot go to iree-compile yet (empty when it can)."""
    problems: list[tuple[ir.Location, str]] = []
    fns = functions(module_op)
    for scc in cycles(call_graph(module_op)):
        names = ", ".join(f"@{n}" for n in scc)
        problems.append(
            (
                fns[scc[0]].location,
                f"call graph has a cycle ({names}); iree-compile would never return on it: "
                "run janus-eliminate-recursion first",
            )
        )

    def visit(op: ir.Operation) -> ir.WalkResult:
        if op.name.startswith("janus."):
            problems.append((op.location, f"'{op.name}' must be lowered before IREE compilation"))
        elif not op.context.is_registered_operation(op.name):
            problems.append((op.location, f"'{op.name}' is not an op of any dialect IREE knows"))
        return ir.WalkResult.ADVANCE

    module_op.walk(visit)
    return problems


@register_pass
class CheckIreeReady(ModulePass):
    name = "janus-check-iree-ready"
    summary = "Fail unless the module has no janus op and an acyclic call graph (iree-compile hangs on cycles)."

    def apply(self, module_op: ir.Operation) -> None:
        problems = ready_for_iree_problems(module_op)
        if problems:
            raise PassError(problems)
