"""``janus-inline-invokes``: a ``janus.invoke`` that is not a recursive edge becomes ``func.call``.

Only ``func.call`` is visible to upstream ``inline`` (which the pipeline runs next). An
invoke is recursive when caller and callee lie on the same call-graph cycle; those stay
for ``janus-eliminate-recursion``, since inlining cannot remove recursion. A call from
outside into a recursive function is an ordinary call.
"""

from __future__ import annotations

from janus.dialects import InvokeOp
from janus.ir import ir
from janus.passes.callgraph import call_graph, call_sites, cycles, functions
from janus.passes.rebuild import rebuild
from janus.passes.registry import ModulePass, register_pass


@register_pass
class InlineInvokes(ModulePass):
    name = "janus-inline-invokes"
    summary = "Turn janus.invoke of callees outside call-graph cycles into func.call."

    def apply(self, module_op: ir.Operation) -> None:
        cycle_of = {name: i for i, scc in enumerate(cycles(call_graph(module_op))) for name in scc}
        for caller, fn in functions(module_op).items():
            for site in call_sites(fn):
                callee = site.attributes["callee"].value
                same_cycle = caller in cycle_of and cycle_of[caller] == cycle_of.get(callee)
                if site.name == InvokeOp.OPERATION_NAME and not same_cycle:
                    rebuild(site, name="func.call")
