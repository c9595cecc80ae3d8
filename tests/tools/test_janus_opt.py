"""``janus-opt`` as users run it: a separate process, its exit code, stdout and stderr."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from janus.dialects import REGISTRY

#: A module that uses every janus op (both key forms of the keyed ops).
EVERY_OP = """\
func.func private @cell(tensor<4xf32>) -> tensor<4xf32>
func.func @every_op(%c: i1, %x: tensor<4xf32>, %i: index) -> tensor<4xf32> {
  %self = "janus.object"() {slot = 0, origin = "arg", name = "self"} : () -> !janus.obj
  %h = "janus.get_attr"(%self) {name = "state"} : (!janus.obj) -> tensor<4xf32>
  "janus.set_attr"(%self, %x) {name = "state"} : (!janus.obj, tensor<4xf32>) -> ()
  %w = "janus.get_item"(%self) {key = "w"} : (!janus.obj) -> tensor<4xf32>
  %v = "janus.get_item"(%self, %i) : (!janus.obj, index) -> tensor<4xf32>
  "janus.set_item"(%self, %w) {key = 3} : (!janus.obj, tensor<4xf32>) -> ()
  "janus.set_item"(%self, %i, %v) : (!janus.obj, index, tensor<4xf32>) -> ()
  "janus.guard"(%c) {id = 1, kind = "branch", source = "model.py:3"} : (i1) -> ()
  %r = "janus.invoke"(%h) {callee = @cell} : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
"""

#: A set_attr without its name, on line 2 column 3.
MISSING_NAME = """\
func.func @f(%o: !janus.obj, %v: f32) {
  "janus.set_attr"(%o, %v) : (!janus.obj, f32) -> ()
  return
}
"""

#: Not MLIR: the argument list is never closed (error at line 1, column 14).
UNPARSABLE = "func.func @f( {\n"

LOCATED_ERROR = re.compile(r"^(?P<file>.+):(?P<line>\d+):(?P<col>\d+): error: (?P<message>.*)$", re.MULTILINE)


def janus_opt(*args: str | Path, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "janus.tools.janus_opt", *map(str, args)],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
    )


def write(tmp_path: Path, text: str, name: str = "input.mlir") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def located_errors(stderr: str) -> list[tuple[str, int, int, str]]:
    return [
        (m["file"], int(m["line"]), int(m["col"]), m["message"]) for m in LOCATED_ERROR.finditer(stderr)
    ]


def assert_fails_cleanly(result: subprocess.CompletedProcess[str]) -> None:
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr
    assert result.stdout == ""


@pytest.mark.parametrize(
    "text, line, col, message",
    [
        (MISSING_NAME, 2, 3, "'janus.set_attr' op requires attribute 'name'"),
        (UNPARSABLE, 1, 14, "expected non-function type"),
    ],
    ids=["malformed-op", "unparsable"],
)
def test_bad_input_gives_a_located_error(tmp_path: Path, text: str, line: int, col: int, message: str) -> None:
    path = write(tmp_path, text)
    result = janus_opt(path)
    assert_fails_cleanly(result)
    assert located_errors(result.stderr) == [(str(path), line, col, message)]


def test_stdin_input_is_named_stdin() -> None:
    result = janus_opt(stdin=MISSING_NAME)
    assert_fails_cleanly(result)
    assert located_errors(result.stderr) == [("<stdin>", 2, 3, "'janus.set_attr' op requires attribute 'name'")]


def test_round_trip_of_every_op_is_stable(tmp_path: Path) -> None:
    first = janus_opt(write(tmp_path, EVERY_OP))
    assert first.returncode == 0, first.stderr
    for name in REGISTRY:
        assert f'"{name}"(' in first.stdout
    second = janus_opt("-", stdin=first.stdout)
    assert second.returncode == 0, second.stderr
    assert second.stdout == first.stdout


def test_generic_form_round_trips(tmp_path: Path) -> None:
    generic = janus_opt(write(tmp_path, EVERY_OP), "--mlir-print-op-generic")
    assert generic.returncode == 0, generic.stderr
    assert '"func.func"()' in generic.stdout
    assert janus_opt(stdin=generic.stdout).stdout == janus_opt(stdin=EVERY_OP).stdout


def test_output_file(tmp_path: Path) -> None:
    out = tmp_path / "out.mlir"
    result = janus_opt(write(tmp_path, EVERY_OP), "-o", out)
    assert result.returncode == 0, result.stderr
    assert result.stdout == ""
    assert out.read_text() == janus_opt(stdin=EVERY_OP).stdout


@pytest.mark.parametrize(
    "args, message",
    [
        (["missing.mlir"], "janus-opt: cannot read missing.mlir"),
        (["-", "-o", "no/such/dir/out.mlir"], "janus-opt: cannot write no/such/dir/out.mlir"),
    ],
    ids=["input", "output"],
)
def test_unreadable_or_unwritable_file(tmp_path: Path, args: list[str], message: str) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "janus.tools.janus_opt", *args],
        input=EVERY_OP,
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=60,
    )
    assert_fails_cleanly(result)
    assert result.stderr.startswith(message)


def test_list_passes() -> None:
    result = janus_opt("--list-passes")
    assert result.returncode == 0, result.stderr
    names = {line.split()[0] for line in result.stdout.splitlines() if line.startswith("  ") and line.split()}
    assert {"janus-verify", "janus-lower-guards", "janus-check-iree-ready", "janus-to-iree"} <= names
    assert "max-stack-entries=<int> (default 1048576, >= 1)" in result.stdout


def test_unknown_pass(tmp_path: Path) -> None:
    path = write(tmp_path, EVERY_OP)
    result = janus_opt(path, "-p", "builtin.module(janus-verify,no-such-pass)")
    assert_fails_cleanly(result)
    assert result.stderr.startswith(f"{path}: error: invalid pass pipeline:")
    assert "'no-such-pass' does not refer to a registered pass or pass pipeline" in result.stderr


def test_bad_pass_option(tmp_path: Path) -> None:
    path = write(tmp_path, EVERY_OP)
    result = janus_opt(path, "-p", "builtin.module(janus-verify,janus-eliminate-recursion{max-stack-entries=0})")
    assert_fails_cleanly(result)
    assert result.stderr.startswith(f"{path}: error: invalid pass pipeline: <pass-pipeline>:1:73: error: ")
    assert "option 'max-stack-entries' must be at least 1, got 0" in result.stderr


def test_pipeline_mixing_janus_and_upstream_passes(tmp_path: Path) -> None:
    text = EVERY_OP.replace(
        "  return %r",
        "  %a = arith.addf %x, %x : tensor<4xf32>\n  %b = arith.addf %x, %x : tensor<4xf32>\n  return %r",
    )
    result = janus_opt(write(tmp_path, text), "-p", "builtin.module(janus-verify,canonicalize,cse)")
    assert result.returncode == 0, result.stderr
    assert "arith.addf" not in result.stdout  # both dead: canonicalize erased them
    assert result.stdout == janus_opt(stdin=EVERY_OP).stdout  # every janus op kept


VERIFY_CASES = {
    "expected-and-produced": ("  // expected-error @+1 {{requires attribute 'name'}}\n", 0, None),
    "expected-but-not-produced": (
        "  // expected-error @+1 {{requires attribute 'value'}}\n",
        1,
        "error expected at line 3 was not produced: requires attribute 'value'",
    ),
    "produced-but-not-expected": ("", 1, "unexpected error: "),
}


@pytest.mark.parametrize("expectation, code, complaint", VERIFY_CASES.values(), ids=VERIFY_CASES.keys())
def test_verify_diagnostics(tmp_path: Path, expectation: str, code: int, complaint: str | None) -> None:
    lines = MISSING_NAME.splitlines(keepends=True)
    path = write(tmp_path, "".join(lines[:1] + [expectation] + lines[1:]))
    result = janus_opt(path, "--verify-diagnostics")
    assert result.returncode == code, result.stderr
    assert "Traceback" not in result.stderr
    if complaint is None:
        assert result.stderr == ""
    else:
        assert complaint in result.stderr


def test_split_input_file_keeps_line_numbers(tmp_path: Path) -> None:
    good = "func.func @g() {\n  return\n}\n"
    path = write(tmp_path, f"{good}// -----\n\n{MISSING_NAME}// -----\n{good}")
    result = janus_opt(path, "--split-input-file")
    assert result.returncode == 1
    assert located_errors(result.stderr) == [(str(path), 7, 3, "'janus.set_attr' op requires attribute 'name'")]
    assert result.stdout.count("func.func @g()") == 2
    assert result.stdout.count("// -----") == 1


def test_print_ir_after_all(tmp_path: Path) -> None:
    result = janus_opt(write(tmp_path, EVERY_OP), "-p", "builtin.module(janus-verify,cse)", "--mlir-print-ir-after-all")
    assert result.returncode == 0, result.stderr
    # janus passes are named like upstream ones: pass class, then pipeline argument
    dumps = re.findall(r"IR Dump After (.*) //-----", result.stderr)
    assert dumps == ["JanusVerify: janus-verify", "CSEPass: cse"]
