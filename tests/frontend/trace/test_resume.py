"""Resume functions (``trace.resume``): Python carries on from the middle of a function,
with the frame's locals and stack given back, on the running interpreter's bytecode."""

from __future__ import annotations

import dis
import math
import traceback

import pytest

from janus.frontend.trace import resume
from janus.frontend.trace.resume import CONSTANT, ITERATOR, METHOD, ABSORBED, NULL, VALUE, ResumePoint

# the tests name instructions by position: the ``n``-th instruction with this opname (and argval)


def _after(fn, opname: str, argval=None, n: int = 0) -> int:
    """The offset of the instruction after the ``n``-th ``opname`` (with ``argval``) of ``fn``."""
    instrs = [i for i in dis.get_instructions(fn) if i.opname != "CACHE"]
    hits = [k for k, i in enumerate(instrs) if i.opname == opname and (argval is None or i.argval == argval)]
    return instrs[hits[n] + 1].offset


def _call_of(fn, n: int) -> int:
    """The offset where the ``n``-th call's arguments are all on the stack (its ``PRECALL`` on 3.11)."""
    instrs = [i for i in dis.get_instructions(fn) if i.opname != "CACHE"]
    k = [j for j, i in enumerate(instrs) if i.opname == "CALL"][n]
    return instrs[k - 1].offset if instrs[k - 1].opname == "PRECALL" else instrs[k].offset


def _locals(fn, **values) -> list:
    return [values.get(name) for name in fn.__code__.co_varnames]


def program(a, b, *rest, k=3):
    x = a * 2
    y = a + len([b, x])
    for i in range(3):
        y += i
    try:
        z = 1 / (y - y)
    except ZeroDivisionError:
        z = -1
    return x, y, z, rest, k


def test_resumes_with_stack_values_after_a_call():
    point = ResumePoint(program.__code__, _after(program, "CALL"), ("y", "i", "z"), (VALUE, VALUE))
    rest = resume.resume_function(point, globals())
    assert rest(*_locals(program, a=5, b=1, rest=(9,), k=4, x=10), 5, 2) == program(5, 1, 9, k=4)


def test_resumes_inside_a_loop_from_the_items_left():
    point = ResumePoint(program.__code__, _after(program, "STORE_FAST", "y", n=1), ("z",), (ITERATOR,))
    rest = resume.resume_function(point, globals())
    assert rest(*_locals(program, a=5, b=1, rest=(9,), k=4, x=10, y=10, i=0), [1, 2]) == (10, 13, -1, (9,), 4)


def test_the_exception_table_moves_with_the_code():
    point = ResumePoint(program.__code__, _after(program, "STORE_FAST", "x"), ("y", "i", "z"), ())
    rest = resume.resume_function(point, globals())
    assert rest(*_locals(program, a=5, b=1, rest=(), k=3, x=10)) == program(5, 1)  # the except clause still catches
    assert resume._shifted_exception_table(program.__code__, 0) == program.__code__.co_exceptiontable


def test_no_resumption_inside_a_generator():
    def gen(x):
        yield x

    assert "generator" in resume.why_not_resumable(gen.__code__, 0)
    assert resume.why_not_resumable(program.__code__, _after(program, "STORE_FAST", "x")) is None


def guarded(a, log):
    try:
        v = abs(a)  # the operation: it raises for a str
        log.append(v)
    except TypeError:
        log.append("caught")
        v = -1
    finally:
        log.append("finally")
    return v


def _raised(fn, *args):
    try:
        fn(*args)
    except Exception as e:
        return e
    raise AssertionError("nothing raised")


def test_an_unwinding_function_raises_into_the_handler_around_the_operation():
    code = guarded.__code__
    point = ResumePoint(code, _after(guarded, "CALL"), ("v",), (VALUE,))
    line = code.co_firstlineno + 2
    unwind = resume.unwinding_function(point, globals(), None, line)
    log = []
    assert unwind(*_locals(guarded, a="x", log=log), _raised(abs, "x")) == guarded("x", []) == -1
    assert log == ["caught", "finally"]
    log.clear()
    with pytest.raises(KeyError) as raised:  # not caught: the finally clause runs, the traceback has the line
        unwind(*_locals(guarded, a="x", log=log), KeyError("k"))
    assert log == ["finally"]
    assert traceback.extract_tb(raised.value.__traceback__)[-1][1:3] == (line, "guarded")
    rest = resume.resume_function(point, globals())
    assert rest(*_locals(guarded, a=-2, log=log), 2) == 2 and log[-2:] == [2, "finally"]


def scaled(values, log):
    total = math.fsum(values)
    log.append(total)
    return total * 2


def test_constants_nulls_and_methods_are_put_back():
    """``math.fsum`` is a constant on the stack, the NULL beside it pushed again; ``log.append``
    is loaded again from its receiver, passed boxed in its place."""
    code = scaled.__code__
    call = _after(scaled, "LOAD_FAST", "values")  # the stack holds math.fsum and its NULL marker
    assert dis.opname[code.co_code[call]] in ("CALL", "PRECALL")
    order = (NULL, (CONSTANT, math.fsum)) if not _null_after_callable() else ((CONSTANT, math.fsum), NULL)
    point = ResumePoint(code, call, ("total",), (*order, VALUE))
    assert resume.resume_function(point, globals())(None, [], None, [1.0, 2.5]) == 7.0
    log = []
    method = (ABSORBED, (METHOD, "append")) if not _null_after_callable() else ((METHOD, "append"), ABSORBED)
    point = ResumePoint(code, _call_of(scaled, 1), (), (*method, VALUE))  # the stack: the method's pair, total
    assert resume.resume_function(point, globals())([1.0], log, 3.5, resume.Box(log), 3.5) == 7.0
    assert log == [3.5]


def _null_after_callable() -> bool:
    from janus.frontend.trace.versions import DIALECT

    return DIALECT.null_after_callable


def test_a_resume_function_knows_where_it_comes_from():
    point = ResumePoint(program.__code__, _after(program, "STORE_FAST", "x"), ("y", "i", "z"), ())
    code = resume.resume_code(point)
    offset = point.offset + resume.ORIGINS[code][1]
    assert resume.origin(code, offset) == (program.__code__, point.offset)
    assert resume.origin(program.__code__, 4) == (program.__code__, 4)


def bumper():
    total = 10

    def bump(step):
        nonlocal total
        total += step
        doubled = abs(total) * 2
        total += 1
        return doubled, total

    return bump


def test_a_closure_resumes_with_its_own_cells():
    """The free variable is the function's own cell (read and written there); the stack
    parameter the resume function adds does not move it."""
    bump = bumper()
    point = ResumePoint(bump.__code__, _after(bump, "CALL"), ("doubled",), (VALUE,))
    rest = resume.resume_function(point, globals(), bump.__closure__)
    bump.__closure__[0].cell_contents = 13  # as after ``total += step`` with step 3
    assert rest(*_locals(bump, step=3), 13) == (26, 14)
    assert bump.__closure__[0].cell_contents == 14


def with_cells(a, b):
    c = a + 1
    first = (lambda: a * c)()  # a (an argument) and c are cells of with_cells
    a = abs(first)
    c += b
    late = lambda: a + c  # made after the boundary: it closes over the resume function's cells
    return first, late(), [c * i for i in range(2)]


def test_cells_of_its_own_are_made_again_with_their_contents():
    """An argument's cell wraps the argument passed; another cell's contents come after
    the locals; the indices of the cells behind the added parameters move with them."""
    code = with_cells.__code__
    assert "a" in code.co_varnames and "a" in code.co_cellvars and "c" not in code.co_varnames
    point = ResumePoint(code, _after(with_cells, "CALL", n=1), ("late",), (VALUE,))
    assert point.passed_cells == ("c",)
    assert resume.why_not_resumable(code, point.offset) is None
    rest = resume.resume_function(point, globals())
    a, c = 2, 3  # at the boundary: abs is called with first = a * c
    assert rest(*_locals(with_cells, a=a, b=5, first=a * c), c, a * c) == with_cells(2, 5)


def closure_with_cells():
    scale = 2

    def step(x):
        y = x * scale
        y = abs(y)
        return (lambda: y + scale)()  # a closure over its own cell and its free variable (3.13: LOAD_FAST of both)

    return step


def test_a_closure_with_cells_of_its_own_resumes():
    step = closure_with_cells()
    point = ResumePoint(step.__code__, _after(step, "CALL"), (), (VALUE,))
    rest = resume.resume_function(point, globals(), step.__closure__)
    assert rest(*_locals(step, x=-3), -6, 6) == step(-3)


def closures_in_a_loop(xs):
    made = []
    for x in xs:
        y = x * 2  # rebound on the next iteration, after a boundary below
        made.append(lambda: y)
        print(y)
    z = len(made)
    last = lambda: z  # noqa: E731
    print(z)

    def bump():
        nonlocal z
        z += 1
    return made, last, bump


def test_cell_written_sees_later_stores_loops_and_nonlocal_writes():
    code = closures_in_a_loop.__code__
    in_loop, after_loop = _after(closures_in_a_loop, "CALL", n=1), _after(closures_in_a_loop, "CALL", n=3)
    assert resume.cell_written(code, "y", after=in_loop)  # the loop goes back to the store
    assert not resume.cell_written(code, "y", after=after_loop)
    assert resume.cell_written(code, "z", after=after_loop)  # bump's nonlocal write
    lambda_code = next(c for c in code.co_consts if getattr(c, "co_name", "") == "<lambda>")
    assert not resume.cell_written(lambda_code, "y")
