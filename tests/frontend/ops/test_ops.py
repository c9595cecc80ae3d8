"""One test per op-table entry and argument form: the compiled graph against NumPy."""

from __future__ import annotations

import re

import numpy as np
import pytest

import janus

from tests.helpers import check_compiled, rand
from janus.frontend.ops.op_table import OPS
from janus.frontend.values import NotConvertible
from tests.helpers.nn_cases import COMPILED
from janus.frontend.ops.ufuncs import UFUNCS

UFUNC_NAMES = [op.name for op in UFUNCS]
#: entries tested by the conformance suite alone
CONFORMANCE_ONLY = ("average", "vstack", "hstack", "einsum", "inner", "tensordot", "trace", "argmax", "argmin", "ravel", "squeeze", "expand_dims", "swapaxes", "moveaxis", "prod", "all", "any", "var", "std",
                    "flip", "fliplr", "flipud", "roll", "tile", "repeat", "take", "triu", "tril", "broadcast_to", "diagonal", "diag",
                    "cumsum", "cumprod", "norm", "kron", "diagflat", "flatten", "split", "array_split",
                    "take_along_axis", "sort", "argsort", "hsplit", "vsplit", "diff", "nan_to_num",
                    "rot90", "column_stack", "dstack", "isclose", "empty_like",
                    "median", "quantile", "percentile", "nansum", "nanmean", "nanmax", "nanmin", "nanargmax", "nanargmin", "ptp",
                    "count_nonzero", "allclose", "array_equal", "atleast_1d", "atleast_2d", "append", "meshgrid", "select", "cross",
                    "searchsorted", "digitize", "isin", "unravel_index", "solve", "inv", "det", "convolve", "correlate", "cov", "corrcoef", "interp",
                    "sliding_window_view", "add.reduce", "multiply.reduce", "maximum.reduce", "minimum.reduce", "add.accumulate",
                    "multiply.accumulate", "add.outer", "subtract.outer", "multiply.outer", "maximum.outer", "minimum.outer")

f32, f64, i64 = np.float32, np.float64, np.int64
x23, y23, v3 = rand(2, 3), rand(2, 3, seed=1), rand(3)


def filled_empty_like(a: np.ndarray) -> np.ndarray:
    """``np.empty_like`` as programs use it: every element written before it is read."""
    out = np.empty_like(a)
    out[:, 0] = a[:, 0] * 2
    out[:, 1:] = a[:, 1:] - 1
    return out
pos23 = np.abs(x23) + 0.5

CASES = {
    "add_broadcast": (lambda a, b: a + b, x23, v3),
    "add_weak_python_scalar": (lambda a: a + 2.5, x23),
    "subtract_f64": (lambda a, b: a - b, x23.astype(f64), y23.astype(f64)),
    "multiply_int64": (lambda a, b: a * b, rand(2, 3, dtype=i64), rand(3, dtype=i64, seed=2)),
    "divide_int_to_float": (lambda a, b: a / b, rand(4, dtype=i64), np.array([1, 2, -3, 4])),
    "divide": (lambda a, b: a / b, x23, pos23),
    "promote_f32_f64": (lambda a, b: a * b, x23, y23.astype(f64)),
    "promote_i64_f32": (lambda a, b: a + b, rand(2, 3, dtype=i64), x23),
    "negative": (lambda a: -a, x23),
    "negative_int": (lambda a: -a, rand(3, dtype=i64)),
    "tanh": (lambda a: np.tanh(a), x23),
    "exp": (lambda a: np.exp(a), x23),
    "log": (lambda a: np.log(a), pos23),
    "sqrt": (lambda a: np.sqrt(a), pos23),
    "abs": (lambda a: np.abs(a), x23),
    "abs_builtin_int": (lambda a: abs(a), rand(5, dtype=i64)),
    "maximum_relu": (lambda a: np.maximum(a, 0), x23),
    "minimum": (lambda a, b: np.minimum(a, b), x23, y23),
    "less": (lambda a, b: a < b, x23, y23),
    "less_equal": (lambda a, b: a <= b, x23, x23),
    "greater": (lambda a: a > 0.1, x23),
    "greater_equal_int": (lambda a, b: a >= b, rand(3, dtype=i64), rand(3, dtype=i64, seed=3)),
    "equal": (lambda a, b: a == b, rand(6, dtype=i64), rand(6, dtype=i64, seed=4)),
    "not_equal": (lambda a, b: a != b, x23, x23 * np.array([1, 0, 1], f32)),
    "where": (lambda c, a, b: np.where(c, a, b), rand(2, 3, dtype=bool), x23, v3),
    "where_scalar": (lambda a: np.where(a > 0, a, 0.0), x23),
    "matmul_operator": (lambda a, b: a @ b, x23, rand(3, 4)),
    "matmul_vector_matrix": (lambda a, b: np.matmul(a, b), v3, rand(3, 4)),
    "matmul_matrix_vector": (lambda a, b: a @ b, x23, v3),
    "dot_vectors": (lambda a, b: np.dot(a, b), v3, v3 * 2),
    "dot_method": (lambda a, b: a.dot(b), x23, rand(3, 2)),
    "matmul_int": (lambda a, b: a @ b, rand(2, 3, dtype=i64), rand(3, 2, dtype=i64)),
    "matmul_3d_matrix": (lambda a, b: a @ b, rand(2, 3, 4), rand(4, 5)),
    "matmul_3d_vector": (lambda a, b: np.matmul(a, b), rand(2, 3, 4), rand(4)),
    "dot_4d_matrix": (lambda a, b: np.dot(a, b), rand(2, 1, 3, 4), rand(4, 2)),
    "outer": (lambda a, b: np.outer(a, b), v3, rand(4)),
    "outer_flattens_and_promotes": (lambda a, b: np.outer(a, b), x23, rand(2, dtype=i64)),
    "sum_all": (lambda a: np.sum(a), x23),
    "sum_axis0": (lambda a: a.sum(axis=0), x23),
    "sum_keepdims": (lambda a: np.sum(a, axis=(0, 2), keepdims=True), rand(2, 3, 4)),
    "sum_int": (lambda a: a.sum(1), rand(2, 3, dtype=i64)),
    "sum_bool": (lambda a: np.sum(a > 0), x23),
    "mean_axis": (lambda a: np.mean(a, axis=1, keepdims=True), x23),
    "mean_all_int": (lambda a: a.mean(), rand(4, dtype=i64)),
    "max_axis": (lambda a: np.max(a, axis=-1), x23),
    "max_all": (lambda a: a.max(), x23),
    "min": (lambda a: np.min(a, axis=0), rand(3, 2, dtype=i64)),
    "reshape": (lambda a: np.reshape(a, (3, -1)), x23),
    "reshape_method_varargs": (lambda a: a.reshape(6), x23),
    "reshape_3d": (lambda a: a.reshape(2, 3, 2).reshape(-1, 2), rand(12)),
    "transpose": (lambda a: np.transpose(a), x23),
    "transpose_T": (lambda a: a.T, x23),
    "transpose_axes": (lambda a: a.transpose(1, 2, 0), rand(2, 3, 4)),
    "concatenate": (lambda a, b: np.concatenate([a, b], axis=1), x23, y23),
    "concatenate_promote": (lambda a, b: np.concatenate((a, b)), x23, rand(1, 3, dtype=i64)),
    "stack": (lambda a, b: np.stack([a, b]), x23, y23),
    "stack_axis": (lambda a, b: np.stack((a, b), axis=-1), v3, v3 * 3),
    "slice_rows": (lambda a: a[1:3], rand(4, 3)),
    "index_row": (lambda a: a[0], x23),
    "index_column": (lambda a: a[:, 1], x23),
    "slice_step": (lambda a: a[::2, 1:], rand(5, 3)),
    "index_element": (lambda a: a[1, -1], x23),
    "index_ellipsis": (lambda a: a[..., 0], rand(2, 3, 4)),
    "zeros_ones_full": (lambda a: a + np.zeros((2, 3), f32) + np.ones(3) * np.full((2, 1), 2.0, f32), x23),
    "zeros_like": (lambda a: np.zeros_like(a) + a, x23),
    "ones_like": (lambda a: np.ones_like(a, dtype=np.int64), x23),
    "full_like": (lambda a: np.full_like(a, 7.5), x23),
    "empty_like": (filled_empty_like, x23),
    "astype_float_to_int": (lambda a: (a * 3).astype(np.int64), x23),
    "astype_int_to_bool": (lambda a: a.astype(bool), rand(6, dtype=i64)),
    "astype_to_f64": (lambda a: np.astype(a, np.float64), x23),
    "numpy_scalar_argument": (lambda a, s: a * s, x23, np.float32(1.5)),
    "pad": (lambda a: np.pad(a, ((1, 0), (2, 2))), x23),
    "pad_one_width_fill": (lambda a: np.pad(a, 1, constant_values=-1.5), x23),
    "pad_int_fill_cast": (lambda a: np.pad(a, (0, 2), constant_values=2.7), rand(4, dtype=i64)),
    "pad_images_nhwc": (lambda a: np.pad(a, ((0, 0), (2, 2), (2, 2), (0, 0))) * 2.0, rand(2, 3, 3, 1)),
    "copy": (lambda a: np.copy(a) * 2.0, x23),
    "copy_method": (lambda a: a.copy() + a, rand(3, dtype=i64)),
    "creation_folded": (lambda a: a + np.zeros_like(np.empty(3)) + np.eye(3)[0] + np.identity(3)[1] + np.linspace(0, 1, 3)
                        + np.tri(3)[1], x23),
    "arange": (lambda a: a + np.arange(a.shape[1]) * np.arange(1, 7, 2, dtype=np.float32), x23),
    "array_of_elements": (lambda a: np.array([a[0, 0], a[1, 2] * 2, 3]), x23),
    "array_of_rows_dtype": (lambda a, b: np.array((a, b), dtype=np.float64), v3, v3 * 2),
    "array_int_label": (lambda a, b: np.array([b[1]]) + a.sum(), x23, rand(3, dtype=i64)),
    "zip_over_rows": (lambda a, b: [x * y for x, y in zip(a, b)][1], x23, rand(2, dtype=i64)),
    "enumerate_list_over_rows": (lambda a: [i * r for i, r in enumerate(list(a))][-1], x23),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_op_matches_numpy(name: str) -> None:
    fn, *args = CASES[name]
    check_compiled(fn, *args)


@pytest.mark.parametrize("b", [rand(2, 4, 5), rand(1, 4, 5)])
def test_dot_batched_second_operand_falls_back(b: np.ndarray) -> None:
    """``np.dot`` with a stack of matrices second is not lowered (it is not matmul's batching)."""
    with pytest.raises(NotConvertible, match="matmul of shapes"):
        OPS["dot"].rule({"a": rand(2, 3, 4), "b": b, "out": None})


@pytest.mark.parametrize("a, b", [(rand(2, 3, 4), rand(2, 4, 5)), (rand(3, 4), rand(2, 4, 5)), (rand(1, 3, 4), rand(2, 2, 4, 5)),
                                  (rand(4), rand(2, 4, 5)), (rand(2, 1, 3, 4), rand(3, 4, 2)), (rand(2, 3, 4, dtype=i64), rand(2, 4, 2))])
def test_batched_matmul_matches_numpy(a: np.ndarray, b: np.ndarray) -> None:
    """A stack of matrices second: batch dims broadcast, a 1-d first operand, int and float promotion."""
    check_compiled(lambda x, y: x @ y, a, b)


def test_batched_matmul_shapes_numpy_rejects_run_in_python() -> None:
    with pytest.raises(NotConvertible, match="do not align"):
        OPS["matmul"].rule({"a": rand(2, 3, 4), "b": rand(2, 5, 4)})
    with pytest.raises(NotConvertible, match="broadcast"):
        OPS["matmul"].rule({"a": rand(3, 3, 4), "b": rand(2, 4, 5)})


def test_every_table_entry_is_exercised() -> None:
    covered = {"add", "subtract", "multiply", "divide", "negative", "tanh", "exp", "log", "sqrt", "absolute",
               "maximum", "minimum", "less", "less_equal", "greater", "greater_equal", "equal", "not_equal",
               "where", "matmul", "dot", "outer", "sum", "mean", "max", "min", "reshape", "transpose", "concatenate",
               "stack", "getitem", "zeros_like", "ones_like", "full_like", "empty_like", "astype", "zeros", "ones", "full",
               "arange", "pad", "copy", "array"}
    covered |= set(COMPILED)  # the janus.nn entries: tests/frontend/ops/test_nn.py
    covered |= {"empty", "eye", "identity", "linspace", "tri", "finfo", "iinfo", "logspace"}
    covered |= set(UFUNC_NAMES) | set(CONFORMANCE_ONLY)  # tests/frontend/ops/test_conformance.py
    covered.add("gather")  # advanced indexing: tests/frontend/ops/test_advanced_indexing.py
    covered.add("mask_read")  # boolean masks: tests/frontend/ops/test_masks.py
    covered.add("bincount")  # tests/frontend/ops/test_counting.py
    assert covered == set(OPS)


#: calls NumPy rejects, of entries that check arguments in their rules
REJECTED = [
    lambda x: np.split(x, 3, axis=1),  # 4 columns: not an equal division
    lambda x: np.linalg.norm(x, "nuc", axis=0),
    lambda x: np.linalg.norm(x, 0),  # a matrix norm of order 0
    lambda x: np.take_along_axis(x, np.ones((2, 2)), axis=1),  # float indices
    lambda x: np.pad(x, 1, mode="edge", constant_values=1),
    lambda x: np.sort(x, kind="stable", stable=True),
    lambda x: np.cumsum(x, axis=2),
    lambda x: np.kron(x, np.ones(2)) @ np.ones(3),  # shapes do not align
]


@pytest.mark.parametrize("fn", REJECTED)
def test_arguments_numpy_rejects_raise_numpys_error(fn) -> None:
    x = rand(2, 4, dtype=f64)
    with pytest.raises(Exception) as want:
        fn(x)
    jf = janus.jit(fn, warmup=1, fallback="silent")
    for _ in range(2):
        with pytest.raises(type(want.value), match=re.escape(str(want.value))):
            jf(x)
