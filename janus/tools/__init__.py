"""Console scripts: ``janus-opt`` and ``janus-compile``."""
