"""lit configuration: one file per pass or op group, checked with FileCheck (the Python port)."""

import os

import lit.formats

config.name = "janus"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(__file__)
config.environment["PATH"] = os.environ["PATH"]
# lit clears the environment: without this a worktree's tests would run the installed janus
if "PYTHONPATH" in os.environ:
    config.environment["PYTHONPATH"] = os.environ["PYTHONPATH"]
config.substitutions.append(("FileCheck", "filecheck"))
