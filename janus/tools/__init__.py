"""Console scripts: ``janus-opt``, ``janus-compile`` and ``janus-bench``."""
