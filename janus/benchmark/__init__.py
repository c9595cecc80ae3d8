"""``janus-bench`` internals: run each zoo model as plain Python and under ``janus.jit`` in one
process (``swap``, ``measure``), check they agree (``compare``), and report (``report``)."""
