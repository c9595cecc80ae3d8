"""The frame a boundary's Python operation is called from (``resume.calling_function``) has the
function's own globals, as in plain Python: C code that looks up the caller's builtins (NumPy
printing a dtype) works, and ``warnings.warn`` files its once-per-location registry in the
function's module, so a warning from the Python part prints once, not once per call."""

from __future__ import annotations

import warnings

import numpy as np

from tests.helpers.coexec import lockstep, no_cost_rule, segment_calls  # noqa: F401 (an autouse fixture)


def report(x):
    y = x * 2.0
    print("dtype", y.dtype, "shape", y.shape)  # a dtype printed from the Python part
    return y.sum()


def warn_each_call(x):
    y = x + 1.0
    warnings.warn("step taken", UserWarning)
    return y * 2.0


def test_a_dtype_printed_at_a_boundary_prints_as_in_python(capsys):
    jf = lockstep(report, [None, None], [lambda _, i=i: (np.arange(3.0) + i,) for i in range(4)], capsys)
    assert segment_calls(jf)[0] >= 2


def test_a_warning_at_a_boundary_is_filed_in_the_functions_module(capsys):
    shown = []
    for fn in (warn_each_call, None):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("default")
            globals().pop("__warningregistry__", None)
            if fn is None:
                jf = lockstep(warn_each_call, [None, None], [lambda _: (np.ones(2),)] * 4, capsys)
            else:
                for _ in range(4):
                    fn(np.ones(2))
        shown.append([(w.filename, w.lineno, str(w.message)) for w in caught])
    plain, both = shown
    assert len(plain) == 1 and both == plain  # plain and jitted calls warn from one location: once in all
    assert segment_calls(jf)[0] >= 2
