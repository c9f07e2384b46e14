"""A task's worktree under Ctrl+C, with WorktreeCreate/WorktreeRemove hooks, and as Glob and
Grep see the main tree."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tether.hooks import HookRunner, HookSpec
from tether.protocol import ToolUseBlock
from tether.slotted import replaced
from tether.teams.lifecycle import task_worktree
from tether.teams.records import WorktreeError
from tether.teams.worktrees import add_worktree, plan_worktree
from tether.tools.builtin import builtin_tools
from tether.tools.context import ToolContext
from tether.tools.registry import ToolOutcome, ToolRegistry

from .conftest import git, write

WORKER = """
import asyncio, sys
from pathlib import Path
from tether.teams.lifecycle import task_worktree

async def main():
    async with task_worktree(Path(sys.argv[1]), "s1") as run:
        (run.worktree.path / "a.txt").write_text("work under way\\n")
        print("ready", flush=True)
        await asyncio.sleep(120)

asyncio.run(main())
"""


def test_ctrl_c_commits_the_work_and_removes_the_worktree(repo: Path) -> None:
    with subprocess.Popen(  # its pipes closed whatever happens: no leak into later tests
        [sys.executable, "-c", WORKER, str(repo)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as proc:
        try:
            assert proc.stdout is not None
            assert proc.stdout.readline() == "ready\n"
            proc.send_signal(signal.SIGINT)
            _, stderr = proc.communicate(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
    assert "KeyboardInterrupt" in stderr
    assert not (repo / ".tether/worktrees/s1").exists()
    assert git(repo, "worktree", "list", "--porcelain").count("worktree ") == 1
    assert git(repo, "log", "-1", "--format=%s", "tether/s1") == "tether task s1 (interrupted)"
    assert git(repo, "show", "tether/s1:a.txt") == "work under way"


CREATE = """name=$(python3 -c 'import json, sys; print(json.load(sys.stdin)["name"])')
path="$PWD/.custom/$name"
git worktree add --quiet -b "hooked/$name" "$path" >&2
echo "$path"
"""


def _runner(repo: Path, tmp_path: Path, **commands: str) -> HookRunner:
    specs = [
        HookSpec(event=event, matcher="", command=command, timeout_s=30, source=f"test {event}")  # type: ignore[arg-type]
        for event, command in commands.items()
    ]
    return HookRunner(
        specs,
        session_id="s",
        transcript_path=str(tmp_path / "t.jsonl"),
        cwd=repo,
        project_dir=repo,
        permission_mode=lambda: "default",
    )


async def test_a_worktree_create_hook_makes_the_worktree_and_remove_is_told(
    repo: Path, tmp_path: Path
) -> None:
    told = tmp_path / "removed.json"
    create = tmp_path / "create.sh"
    create.write_text(CREATE)
    hooks = _runner(repo, tmp_path, WorktreeCreate=f"bash {create}", WorktreeRemove=f"cat > {told}")
    async with task_worktree(repo, "h1", hooks=hooks) as run:
        assert (run.worktree.path, run.worktree.branch) == (repo / ".custom/h1", "hooked/h1")
        write(run.worktree.path / "a.txt", "hooked\n")
    said = json.loads(told.read_text())
    assert {k: said[k] for k in ("hook_event_name", "worktree_path", "name", "branch")} == {
        "hook_event_name": "WorktreeRemove",
        "worktree_path": str(repo / ".custom/h1"),
        "name": "h1",
        "branch": "hooked/h1",
    }
    assert not (repo / ".custom/h1").exists()
    assert git(repo, "show", "hooked/h1:a.txt") == "hooked"


async def test_a_failing_worktree_create_hook_stops_the_task_with_its_words(
    repo: Path, tmp_path: Path
) -> None:
    hooks = _runner(repo, tmp_path, WorktreeCreate="echo 'no space left' >&2; exit 3")
    with pytest.raises(WorktreeError) as caught:
        async with task_worktree(repo, "h2", hooks=hooks):
            pytest.fail("the block must not run")
    assert str(caught.value) == (
        "WorktreeCreate hook \"echo 'no space left' >&2; exit 3\" (test WorktreeCreate) did "
        "not make task h2's worktree (exit 3: no space left); it must print the new "
        "worktree's absolute path"
    )


async def test_glob_and_grep_of_the_main_tree_leave_task_worktrees_out(
    repo: Path, tmp_path: Path
) -> None:
    worktree = add_worktree(plan_worktree(repo, "g1"))
    write(worktree.path / "only-in-task.txt", "needle\n")
    registry = ToolRegistry(builtin_tools())

    async def run(workspace: Path, name: str, **tool_input: object) -> ToolOutcome:
        ctx = ToolContext(workspace=workspace, scratch_dir=tmp_path / "scratch")
        call = ToolUseBlock(id="call_1", name=name, input=dict(tool_input))
        outcome = await registry.run(call, ctx)
        return replaced(outcome, duration_ms=0, structured=None)

    listing = (await run(repo, "Glob", pattern="**/*")).content
    assert sorted(listing.splitlines()) == ["a.txt", "b.txt"]
    nothing = "No matches found for 'needle' in the workspace."
    assert (await run(repo, "Grep", pattern="needle")).content == nothing
    inside = await run(worktree.path, "Grep", pattern="needle")
    assert inside.content == "only-in-task.txt"
    assert os.getcwd() != str(worktree.path)
