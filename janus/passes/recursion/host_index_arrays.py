"""``janus-host-index-arrays``: int64 arrays the host only indexes become VM buffers.

A tree argument arrives as index arrays (child ids, words) that the recursion reads one
element at a time to decide where to go: host control flow. Read from a tensor, every
element costs a device-to-host transfer (a staging copy, a submission and a wait:
about 2.4 µs here, three per TreeRNN node). An argument of type ``tensor<?xi64>`` whose
every use is ``tensor.extract``, ``tensor.dim`` or passing it on to a parameter that
qualifies too becomes a ``!util.buffer`` read with ``util.buffer.load`` in the VM
(about 5 ns). The runtime passes a 1-D int64 NumPy array for such a parameter.

Runs before ``janus-eliminate-recursion``: calls and invokes still carry the arrays.
"""

from __future__ import annotations

from iree.compiler.dialects import arith, util

from janus.ir import ir
from janus.passes.callgraph import CALL_OPS, functions
from janus.passes.registry import ModulePass, register_pass

BUFFER_TYPE = "!util.buffer"
_I64_BYTES = 8

Param = tuple[str, int]  # (function name, parameter number)


def _is_index_array(t: ir.Type) -> bool:
    return (isinstance(t, ir.RankedTensorType) and t.rank == 1 and t.is_dynamic_dim(0)
            and str(t.element_type) == "i64")


def _uses(value: ir.Value) -> list[tuple[ir.Operation, int]]:
    return [(use.owner, use.operand_number) for use in value.uses]


def _in_device_code(op: ir.Operation) -> bool:
    """Whether ``op`` sits in the body of a structured op (a gather: it runs on the device)."""
    parent = op.parent
    while parent is not None and parent.name != "func.func":
        if parent.name.startswith("linalg."):
            return True
        parent = parent.parent
    return False


def _allowed(owner: ir.Operation, number: int, params: set[Param]) -> bool:
    """Whether this use of the array still allows a buffer: read by the host, or
    passed on to a parameter that takes a buffer."""
    name = owner.name
    if name == "tensor.extract":
        return number == 0 and not _in_device_code(owner)
    if name == "tensor.dim":
        return True  # rank 1: the only dim
    if name in CALL_OPS:
        return (owner.attributes["callee"].value, number) in params
    return False


def _qualifying(fns: dict[str, ir.Operation]) -> set[Param]:
    """The greatest set of parameters whose uses and call sites all allow a buffer."""
    params = {
        (name, i)
        for name, fn in fns.items()
        for i, a in enumerate(fn.regions[0].blocks[0].arguments)
        if _is_index_array(a.type)
    }
    callers: dict[Param, list[ir.Value]] = {p: [] for p in params}
    for name, fn in fns.items():
        def visit(op: ir.Operation) -> ir.WalkResult:
            if op.name in CALL_OPS:
                callee = op.attributes["callee"].value
                for k, v in enumerate(op.operands):
                    if (callee, k) in callers:
                        callers[(callee, k)].append(v)
            return ir.WalkResult.ADVANCE

        fn.walk(visit)

    def param_of(v: ir.Value) -> Param | None:
        block = v.owner
        if not isinstance(block, ir.Block):
            return None
        fn = block.owner.operation
        if fn.name != "func.func" or block != fn.regions[0].blocks[0]:
            return None
        return (fn.attributes["sym_name"].value, v.arg_number)

    changed = True
    while changed:
        changed = False
        for p in sorted(params):
            arg = fns[p[0]].regions[0].blocks[0].arguments[p[1]]
            uses_ok = all(_allowed(owner, n, params) for owner, n in _uses(arg))
            calls_ok = all(param_of(v) in params for v in callers[p])
            if not (uses_ok and calls_ok):
                params.discard(p)
                changed = True
    return params


def _rewrite(fn: ir.Operation, index: int) -> None:
    """Parameter ``index`` of ``fn`` as a buffer: loads for extracts, size for dims."""
    entry = fn.regions[0].blocks[0]
    arg = entry.arguments[index]
    buffer = ir.Type.parse(BUFFER_TYPE)
    arg.set_type(buffer)
    ftype = fn.attributes["function_type"].value
    inputs = list(ftype.inputs)
    inputs[index] = buffer
    fn.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(inputs, list(ftype.results)))
    with fn.location:
        ip = ir.InsertionPoint.at_block_begin(entry)
        size = util.buffer_size(arg, ip=ip)
        width = arith.constant(ir.IndexType.get(), _I64_BYTES, ip=ip)
        for owner, _ in _uses(arg):
            if owner.name not in ("tensor.extract", "tensor.dim"):
                continue  # calls: the callee's parameter is rewritten too
            at = ir.InsertionPoint(owner)
            if owner.name == "tensor.extract":
                offset = arith.muli(owner.operands[1], width, ip=at)
                value = util.buffer_load(ir.IntegerType.get_signless(64), arg, size, offset, width, ip=at)
            else:
                value = arith.divui(size, width, ip=at)
            owner.results[0].replace_all_uses_with(value)
            owner.erase()


def host_index_arrays(module_op: ir.Operation) -> None:
    """Rewrite every qualifying parameter of ``module_op`` (see the module doc)."""
    fns = {name: fn for name, fn in functions(module_op).items() if len(fn.regions[0].blocks)}
    for name, index in sorted(_qualifying(fns)):
        _rewrite(fns[name], index)


@register_pass
class HostIndexArrays(ModulePass):
    name = "janus-host-index-arrays"
    summary = "Pass int64 arrays that are only indexed (tree structure) as VM buffers read on the host."

    def apply(self, module_op: ir.Operation) -> None:
        host_index_arrays(module_op)
