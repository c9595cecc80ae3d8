"""The janus dialect: op definitions (one class per op), verification and reference docs."""

from janus.dialects.janus_ops import (
    GUARD_KINDS,
    OBJECT_ORIGINS,
    GetAttrOp,
    GetItemOp,
    GuardOp,
    InvokeOp,
    ObjectOp,
    SetAttrOp,
    SetItemOp,
    guard_message,
    parse_guard_message,
    wrap,
)
from janus.dialects.opdef import REGISTRY
from janus.dialects.verifier import Problem, verify_module

__all__ = [
    "GUARD_KINDS",
    "OBJECT_ORIGINS",
    "REGISTRY",
    "GetAttrOp",
    "GetItemOp",
    "GuardOp",
    "InvokeOp",
    "ObjectOp",
    "Problem",
    "SetAttrOp",
    "SetItemOp",
    "guard_message",
    "parse_guard_message",
    "verify_module",
    "wrap",
]
