"""A file system where no lock can be taken (ENOLCK: an NFS mount without its lock service),
simulated for the whole process by a preloaded library: every run works, says once what
goes unguarded, and the cost ledger says at once that it cannot lock, not that another
process held it for 15 s."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tether.testing import FakeModelServer, reply, text, tool_use
from tether.testing.cli_runner import CliResult, run_cli_process

SHIM = Path(__file__).with_name("no_locks.c")


@pytest.fixture(scope="module")
def no_locks(tmp_path_factory: pytest.TempPathFactory) -> str:
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        pytest.skip("no C compiler to build the lock-refusing library")
    built = tmp_path_factory.mktemp("shim") / "no_locks.so"
    subprocess.run([compiler, "-shared", "-fPIC", "-o", built, SHIM, "-ldl"], check=True)
    return str(built)


def _tether(workspace: Path, no_locks: str, *argv: str) -> CliResult:
    env = os.environ | {"LD_PRELOAD": no_locks}
    return run_cli_process(
        ["--cwd", str(workspace), "--permission-mode", "bypassPermissions", *argv], env=env
    )


@pytest.mark.parametrize(
    "call",
    [
        None,
        tool_use("Bash", command="echo ran >> log.txt"),
        tool_use("Write", file_path="w.txt", content="w"),
    ],
    ids=["text", "bash", "write"],
)
@pytest.mark.parametrize("sandbox", [True, False], ids=["sandbox", "no-sandbox"])
def test_a_run_and_its_resume_go_on_without_locks(
    model_env: FakeModelServer,
    workspace: Path,
    no_locks: str,
    call: object,
    sandbox: bool,
) -> None:
    turns = [text("hello")] if call is None else [reply(call), text("hello")]  # type: ignore[arg-type]
    model_env.script(*turns, text("resumed"))
    settings = '{"sandbox": {"enabled": %s}}' % ("true" if sandbox else "false")
    first = _tether(workspace, no_locks, "-p", "go", "--settings", settings)
    assert (first.exit_code, first.stdout) == (0, "hello\n"), first.stderr
    assert "Traceback" not in first.stderr
    assert "by another process" not in first.stderr
    assert first.stderr.count("takes no locks (No locks available): concurrent use") == 1
    assert "costs are not recorded" in first.stderr
    if call is not None:
        assert model_env.requests[1].tool_result_errors() == [False]
    again = _tether(workspace, no_locks, "-p", "-c", "again", "--settings", settings)
    assert (again.exit_code, again.stdout) == (0, "resumed\n"), again.stderr
    assert "Traceback" not in again.stderr
    assert model_env.rejections == []
