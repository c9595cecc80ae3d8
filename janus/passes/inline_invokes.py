"""``janus-inline-invokes``: ``janus.invoke`` of a non-recursive callee becomes ``func.call``.

Only ``func.call`` is visible to upstream ``inline`` (which the pipeline runs next); an
invoke whose callee lies on a call-graph cycle stays for ``janus-eliminate-recursion``,
since inlining cannot remove recursion.
"""

from __future__ import annotations

from janus.dialects import InvokeOp
from janus.ir import ir
from janus.passes.callgraph import call_graph, call_sites, cycles, functions
from janus.passes.rebuild import rebuild
from janus.passes.registry import register_pass


@register_pass("janus-inline-invokes", "Turn janus.invoke of callees outside call-graph cycles into func.call.")
def inline_invokes(module_op: ir.Operation) -> None:
    recursive = {name for scc in cycles(call_graph(module_op)) for name in scc}
    for fn in functions(module_op).values():
        for site in call_sites(fn):
            if site.name == InvokeOp.OPERATION_NAME and site.attributes["callee"].value not in recursive:
                rebuild(site, name="func.call")
