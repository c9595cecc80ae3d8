"""``janus-autodiff``: reverse-mode gradient functions and their VJP rules (one table, ``rules``)."""

from janus.passes.autodiff import reverse  # noqa: F401  (registers the pass)
