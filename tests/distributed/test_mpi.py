"""Data-parallel training over MPI: real ``mpiexec`` jobs on localhost (``worker.py``).

``mpiexec`` comes with the ``distributed`` extra (the ``mpich`` wheel, beside this
Python); when it is missing the tests fail, never skip. Every job runs under a timeout,
so a hang fails the test instead of the test run.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

WORKER = Path(__file__).with_name("worker.py")
ROOT = Path(__file__).resolve().parents[2]
#: the whole job, and what one collective may wait for the others (the worker's abort)
JOB_TIMEOUT, COLLECTIVE_TIMEOUT = 60, 15


def mpiexec() -> str:
    found = Path(sys.executable).parent / "mpiexec"
    if not found.exists():
        pytest.fail(f"no mpiexec beside {sys.executable}: install the extra, pip install -e '.[test,distributed]'")
    return str(found)


def run(scenario: str, ranks: int = 2, timeout: float = COLLECTIVE_TIMEOUT) -> subprocess.CompletedProcess:
    env = {**os.environ, "WORKER_TIMEOUT": str(timeout),
           "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    try:
        return subprocess.run([mpiexec(), "-n", str(ranks), sys.executable, str(WORKER), scenario],
                              capture_output=True, text=True, timeout=JOB_TIMEOUT, env=env, cwd=ROOT)
    except subprocess.TimeoutExpired as e:
        pytest.fail(f"mpiexec -n {ranks} worker.py {scenario} hung for {JOB_TIMEOUT} s:\n{e.stdout}\n{e.stderr}")


def ok_lines(job: subprocess.CompletedProcess, ranks: int) -> dict[int, str]:
    assert job.returncode == 0, job.stdout + job.stderr
    lines = dict(re.findall(r"rank (\d+): OK(.*)", job.stdout))
    assert sorted(map(int, lines)) == list(range(ranks)), job.stdout + job.stderr
    return {int(r): text for r, text in lines.items()}


@pytest.mark.parametrize("ranks", [2, 4])
def test_ranks_on_shards_match_one_process_on_the_batch(ranks: int) -> None:
    lines = ok_lines(run("train", ranks), ranks)
    for text in lines.values():  # the all-reduce ran inside compiled steps (warmup 3 of 8)
        assert "compiled=5 guard_failures=0" in text, lines


def test_guard_failing_on_one_rank_keeps_ranks_consistent() -> None:
    lines = ok_lines(run("guard"), 2)
    assert "guard_failures=0 outliers=0" in lines[0] and "compiled=5" in lines[0], lines
    assert "guard_failures=1 outliers=1" in lines[1], lines


@pytest.mark.parametrize("how", ["raise", "exit", "kill"])
def test_a_failing_rank_stops_the_job(how: str) -> None:
    job = run(how)
    assert job.returncode != 0, job.stdout + job.stderr
    assert "finished (should not happen)" not in job.stdout
    if how == "raise":
        assert "uncaught exception on rank 1, aborting all 2 ranks" in job.stderr, job.stderr
        assert "RuntimeError: rank 1 fails mid-training" in job.stderr, job.stderr


def test_mismatched_shapes_raise_on_every_rank() -> None:
    job = run("shapes")
    ok_lines(job, 2)
    for r in (0, 1):
        assert f"rank {r}: imperative ValueError: allreduce: the ranks disagree " \
               "(rank 0: mean of float32[3]; rank 1: mean of float32[4])" in job.stdout, job.stdout
        assert f"rank {r}: jit ValueError: allreduce: the ranks disagree " \
               "(rank 0: sum of float32[3]; rank 1: sum of float32[5])" in job.stdout, job.stdout
        assert f"rank {r}: broadcast ValueError: broadcast_parameters: the ranks disagree" in job.stdout, job.stdout
    assert "obj.extra['w']: float64[2]" in job.stdout, job.stdout


def test_a_stuck_rank_makes_the_others_abort_after_the_timeout() -> None:
    job = run("stuck", timeout=3)
    assert job.returncode != 0, job.stdout + job.stderr
    assert "rank 0: allreduce waited 3 s for the other ranks; aborting the job" in job.stderr, job.stderr
