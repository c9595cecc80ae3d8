"""The NumPy op library: one record per op (bind, shape/dtype rule, lowering, VJPs).

Importing the package registers every op (``registry``): the NumPy entries by family
(``op_table``, ``ufuncs``, ``reductions``, ``nan_reductions``, ``quantiles``, ``cumulative``, ``differences``,
``closeness``, ``shape``, ``assembling``, ``selection``, ``searching``, ``sorting``, ``splitting``, ``linalg``,
``solvers``, ``signals``, ``covariance``, ``interpolation``, ``windows``, ``ufunc_methods``, ``norms``), the advanced-indexing gather (``advanced``), boolean mask reads (``masks``) and the
``janus.nn`` entries (``nn_ops``).
"""

from janus.frontend.ops import (  # noqa: F401  (registers the ops)
    advanced, assembling, closeness, covariance, cumulative, differences, linalg, masks, nan_reductions, nn_ops, norms, op_table,
    interpolation, quantiles, reductions, searching, selection, shape, signals, solvers, sorting, splitting, ufunc_methods, ufuncs,
    windows)
