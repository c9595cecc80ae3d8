"""``make demo`` keeps working: the demo checks every compiled answer against Python itself
(it exits non-zero on a mismatch); this test checks it ran every stage."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def test_demo_runs() -> None:
    result = subprocess.run(
        [sys.executable, str(EXAMPLES / "demo.py")], capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert out.count("matches NumPy") == 5 and out.count("compiled; matches NumPy") == 2
    assert out.count("match Python") == 5
    assert "guard 0 (raise, model.py:11) failed in @step; self is unchanged" in out
    assert "raises RuntimeError('too many steps')" in out
