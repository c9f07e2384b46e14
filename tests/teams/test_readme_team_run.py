"""The README's team run from start to end, its commands as written, in a fresh repository
against the fake model: a new user's first run. As first written it left out the allow rule
and the trust the workers' headless sessions need, and every task failed (each Write denied).
The live board (`tether board`, "in another terminal") is the one command left out."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from tether.testing import FakeModelServer, Turn, text, tool_use
from tether.testing.recorded import RecordedRequest
from tether.testing.workers import is_first_call, task_answers

from .conftest import git

README = Path(__file__).resolve().parents[2] / "README.md"
_BLOCK = re.compile(r"A team run from start to end.*?```sh\n(?P<commands>.*?)```", re.DOTALL)


def readme_commands() -> list[str]:
    found = _BLOCK.search(README.read_text())
    assert found is not None, "the README has its team run"
    return [line for line in found["commands"].splitlines() if line.strip()]


def writes_its_file(task_id: str, request: RecordedRequest) -> Turn:
    if is_first_call(request):
        return tool_use("Write", file_path=f"task_{task_id}.txt", content=f"task {task_id}\n")
    return text(f"done task {task_id}")


def test_the_readme_team_run_works_as_written(
    repo: Path, tmp_path: Path, model_env: FakeModelServer
) -> None:
    model_env.responder = task_answers(writes_its_file)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "tether").write_text(f'#!/bin/sh\nexec "{sys.executable}" -m tether "$@"\n')
    (bin_dir / "tether").chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    env.pop("TETHER_TRUST_WORKSPACE", None)
    ran: dict[str, str] = {}
    for command in readme_commands():
        if command.split("#")[0].split() == ["tether", "board"]:
            continue  # the live view, run in another terminal
        done = subprocess.run(
            ["bash", "-c", command], cwd=repo, env=env, capture_output=True, text=True,
            timeout=300, check=False,
        )  # fmt: skip
        assert done.returncode == 0, f"{command}\n{done.stdout}{done.stderr}"
        ran[command.split("#")[0].strip()] = done.stdout

    snapshot = json.loads(ran["tether board --json"])
    assert [(t["id"], t["status"]) for t in snapshot["tasks"]] == [
        ("1", "completed"),
        ("2", "completed"),
        ("3", "completed"),
    ]
    assert "+task 1" in ran["git diff main...tether/1"]
    for task_id in ("1", "2", "3"):
        assert (repo / f"task_{task_id}.txt").read_text() == f"task {task_id}\n"
    assert git(repo, "branch", "--list", "tether/*") == ""
    assert git(repo, "status", "--porcelain", "--untracked-files=no") == ""
