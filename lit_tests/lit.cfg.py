"""lit configuration: one file per pass or op group, checked with FileCheck (the Python port)."""

import os

import lit.formats

config.name = "janus"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(__file__)
config.environment["PATH"] = os.environ["PATH"]
config.substitutions.append(("FileCheck", "filecheck"))
