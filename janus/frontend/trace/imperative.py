"""Why an opcode the graph generator has no handler for runs imperatively.

Whether an opcode converts is read from the code (``trace.opcodes.Opcodes`` has a method named
like it); this table only says why some never will, by design, as JANUS did for CPython
3.5 (it names opcodes of every supported version). An opcode with neither a handler nor a reason here is "not handled yet".
"""

from __future__ import annotations

#: reason -> the opcodes it covers
IMPERATIVE_ONLY: dict[str, frozenset[str]] = {
    "generators run imperatively unless consumed whole (a suspended frame is not a graph)": frozenset(
        {"SEND", "GET_YIELD_FROM_ITER", "ASYNC_GEN_WRAP", "END_SEND", "CLEANUP_THROW"}),
    "coroutines run imperatively (async code waits on the event loop)": frozenset(
        {"GET_AWAITABLE", "GET_AITER", "GET_ANEXT", "BEFORE_ASYNC_WITH", "END_ASYNC_FOR"}),
    "class definitions run imperatively (a new type is a heap effect)": frozenset(
        {"LOAD_BUILD_CLASS", "LOAD_CLASSDEREF"}),
    "imports run imperatively (importing runs module code and mutates sys.modules)": frozenset(
        {"IMPORT_NAME", "IMPORT_FROM", "IMPORT_STAR"}),
    "module, class and interactive bodies only (never in a function's bytecode)": frozenset(
        {"LOAD_NAME", "STORE_NAME", "DELETE_NAME", "SETUP_ANNOTATIONS", "PRINT_EXPR", "LOAD_LOCALS",
         "LOAD_FROM_DICT_OR_GLOBALS", "LOAD_FROM_DICT_OR_DEREF"}),
    "exception path only: a graph never catches (a raise is a guard failure, re-run in Python)": frozenset(
        {"PUSH_EXC_INFO", "POP_EXCEPT", "CHECK_EXC_MATCH", "CHECK_EG_MATCH", "PREP_RERAISE_STAR", "RERAISE",
         "WITH_EXCEPT_START"}),
}

NOT_YET = "not handled by the graph generator yet"


def why_imperative(opname: str) -> str:
    """The reason code with ``opname`` runs imperatively."""
    return next((reason for reason, ops in IMPERATIVE_ONLY.items() if opname in ops), NOT_YET)
