"""``make demo`` keeps working: the example verifies, optimizes and keeps its janus ops."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def test_demo_runs() -> None:
    result = subprocess.run(
        [sys.executable, str(EXAMPLES / "demo.py")], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    source = (EXAMPLES / "demo.mlir").read_text()
    for op in ("janus.object", "janus.get_attr", "janus.guard", "janus.set_attr", "janus.invoke"):
        assert f'"{op}"(' in source
        assert result.stdout.count(f'"{op}"(') == source.count(f'"{op}"(')
    assert result.stdout.count("linalg.fill") == source.count("linalg.fill") - 1  # cse
