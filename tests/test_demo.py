"""``make demo`` keeps working: the demo checks every compiled answer against Python itself
(it exits non-zero on a mismatch); this test checks it ran every stage, on the compiled path."""

from __future__ import annotations

import re
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
    steps = re.search(r"agree with plain NumPy for all 30 steps \((\d+) compiled steps; (\d+) plain, timed by the cost rule\)", out)
    assert steps, out
    compiled, timed_plain = map(int, steps.groups())  # 3 profiled steps; the cost rule times 1 to 5 plain ones
    assert compiled + timed_plain == 27 and timed_plain <= 5
    assert re.search(r"janus\.jit [\d.]+ us per step \([\d.]+x\)", out)
    assert "--input=@mlp.params/self.W1.npy" in out
    assert "iree-run-module output (8, 4) matches model.infer(x) in Python" in out
    assert out.count("match Python") == 5
    assert "guard 0 (raise, model.py:11) failed in @step; self is unchanged" in out
    assert "raises RuntimeError('too many steps')" in out
