"""`tether worker --worktrees` as real processes against the fake model and real git: what
stops every task is refused once, up front; a retried task carries on its earlier work; a
paused worker's worktree is taken over by the next claim and fenced from its old holder; two
teams of one repository keep apart."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import threading
from pathlib import Path

from tether.testing import FakeModelServer, RecordedRequest, Turn, http_error, text, tool_use
from tether.testing.recorded import content_text
from tether.testing.workers import done_text, is_first_call, task_answers

from .conftest import git, write
from .workers import add_tasks, board, finish, read_lines, start_worker, tether, wait_for


def trusted() -> dict[str, str]:
    """The environment of a worker whose workspace is trusted (the project's rules apply)."""
    return {**os.environ, "TETHER_TRUST_WORKSPACE": "1"}


_BRANCH = re.compile(r"on branch (tether/\S+)\. ")


def allow_writes(repo: Path) -> None:
    write(repo / ".claude/settings.json", json.dumps({"permissions": {"allow": ["Write"]}}))
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "rules")


def worktree_of(repo: Path, request: RecordedRequest) -> Path:
    """The worktree the session works in, from the branch its first message names."""
    found = _BRANCH.search(content_text(request.messages()[0]["content"]))
    assert found is not None, "the task's prompt names its branch"
    return repo / ".tether/worktrees" / found[1].removeprefix("tether/")


def step(request: RecordedRequest) -> int:
    return len(request.messages()) // 2


def test_a_detached_head_is_refused_once_and_no_task_is_spent(
    repo: Path, model_env: FakeModelServer
) -> None:
    model_env.responder = task_answers(done_text)
    add_tasks(repo, [], "one", "two", "three")
    git(repo, "switch", "--quiet", "--detach", "HEAD")
    done = finish(start_worker(repo, "--until-idle", "--worktrees"))
    code, _, err = done
    assert code == 2
    assert err.count("tether: error: ") == 1
    assert "is on a detached HEAD" in err
    assert "Switch to a branch first: git -C" in err
    tasks = board(repo, [])["tasks"]
    assert [(t["status"], t["attempts"]) for t in tasks] == [("pending", 0)] * 3
    assert model_env.requests == []


def test_a_task_asking_for_a_worktree_on_a_detached_head_goes_back_and_stops_the_worker(
    repo: Path, model_env: FakeModelServer
) -> None:
    model_env.responder = task_answers(done_text)
    for subject in ("isolated", "isolated too"):
        tether(repo, "tasks", "add", subject, "--isolation", "worktree")
    git(repo, "switch", "--quiet", "--detach", "HEAD")
    code, out, err = finish(start_worker(repo, "--until-idle"))
    assert code == 2
    assert err.count("tether: error: ") == 1
    assert "is on a detached HEAD" in err
    assert "failed #" not in out
    tasks = board(repo, [])["tasks"]
    assert [(t["status"], t["attempts"]) for t in tasks] == [("pending", 0)] * 2


def test_worktrees_are_refused_outside_the_projects_own_repository(
    tmp_path: Path, model_env: FakeModelServer
) -> None:
    home = Path(os.environ["HOME"])  # a dotfiles repository in the home directory
    git(home, "init", "--quiet", "--initial-branch=main")
    write(home / ".bashrc", "# mine\n")
    git(home, "add", ".")
    git(home, "-c", "user.name=U", "-c", "user.email=u@example.com", "commit", "-qm", "dots")
    project = home / "project"
    project.mkdir()
    model_env.responder = task_answers(done_text)
    add_tasks(project, [], "one")
    code, _, err = finish(start_worker(project, "--until-idle", "--worktrees"))
    assert code == 2
    assert err.startswith(
        f"tether: error: {project} is not a git repository of its own (the nearest one is "
        f"{home}, which holds more than this project)"
    )
    assert "run without --worktrees" in err
    assert not (home / ".tether").exists()
    assert git(home, "branch", "--list", "tether/*") == ""
    assert [t["attempts"] for t in board(project, [])["tasks"]] == [0]


def test_a_failing_worktree_create_hook_gives_the_task_back_and_stops_the_worker(
    repo: Path, model_env: FakeModelServer
) -> None:
    hook = {"hooks": [{"type": "command", "command": "echo 'out of disk' >&2; exit 3"}]}
    write(repo / ".claude/settings.json", json.dumps({"hooks": {"WorktreeCreate": [hook]}}))
    add_tasks(repo, [], "one", "two")
    code, out, err = finish(start_worker(repo, "--until-idle", "--worktrees", env=trusted()))
    assert code == 2, out
    assert err.count("tether: error: ") == 1
    assert "did not make task 1's worktree (exit 3: out of disk)" in err
    tasks = board(repo, [])["tasks"]
    assert [(t["status"], t["attempts"], t["owner"]) for t in tasks] == [("pending", 0, None)] * 2
    assert model_env.requests == []


def test_a_retried_task_continues_its_earlier_attempts_branch(
    repo: Path, model_env: FakeModelServer
) -> None:
    allow_writes(repo)
    opened: list[int] = []

    def answer(task_id: str, request: RecordedRequest) -> Turn:
        if is_first_call(request):
            opened.append(1)
        tree = worktree_of(repo, request)
        if len(opened) == 1:  # the first attempt writes, then the model refuses: it fails
            if step(request) == 0:
                return tool_use("Write", file_path=str(tree / "notes.txt"), content="first\n")
            return http_error(400, "the first attempt breaks")
        if step(request) == 0:
            assert (tree / "notes.txt").read_text() == "first\n", "the earlier work is there"
            return tool_use("Write", file_path=str(tree / "more.txt"), content="second\n")
        return text("finished the notes")

    model_env.responder = task_answers(answer)
    add_tasks(repo, [], "notes")
    code, _, err = finish(start_worker(repo, "--until-idle", "--worktrees", env=trusted()))
    assert code == 0, err
    assert board(repo, [])["tasks"][0]["status"] == "failed"
    tether(repo, "tasks", "retry", "1")
    code, out, err = finish(start_worker(repo, "--until-idle", "--worktrees", env=trusted()))
    assert code == 0, err
    assert "this attempt continues from them" in out
    task = board(repo, [])["tasks"][0]
    assert (task["status"], task["metadata"]["run"]["worktree"]["branch"]) == (
        "completed",
        "tether/1",
    )
    assert git(repo, "branch", "--list", "tether/*").split() == ["tether/1"]
    assert git(repo, "log", "--format=%s", "main..tether/1").splitlines() == [
        "tether task 1: notes",
        "tether task 1: notes",
    ]
    merged = tether(repo, "worktrees", "merge", "1")
    assert merged.startswith("merged tether/1 into main")
    assert (repo / "notes.txt").read_text() == "first\n"
    assert (repo / "more.txt").read_text() == "second\n"


def test_a_retry_that_changes_nothing_names_the_work_its_branch_holds(
    repo: Path, model_env: FakeModelServer
) -> None:
    allow_writes(repo)
    opened: list[int] = []

    def answer(task_id: str, request: RecordedRequest) -> Turn:
        if is_first_call(request):
            opened.append(1)
        tree = worktree_of(repo, request)
        if len(opened) == 1:  # the first attempt writes, then the model refuses: it fails
            if step(request) == 0:
                return tool_use("Write", file_path=str(tree / "notes.txt"), content="first\n")
            return http_error(400, "the first attempt breaks")
        return text("the notes were already there")  # the retry changes nothing

    model_env.responder = task_answers(answer)
    add_tasks(repo, [], "notes")
    code, _, err = finish(start_worker(repo, "--until-idle", "--worktrees", env=trusted()))
    assert code == 0, err
    tether(repo, "tasks", "retry", "1")
    code, _, err = finish(start_worker(repo, "--until-idle", "--worktrees", env=trusted()))
    assert code == 0, err
    tip = git(repo, "rev-parse", "tether/1")
    shown = tether(repo, "tasks", "show", "1")
    assert "Worktree: no changes\n" not in shown + "\n"
    assert (
        "Worktree: no changes in this run; tether/1 holds 1 unmerged commit(s) of this "
        f"task's earlier work, last {tip[:12]}"
    ) in shown
    assert board(repo, [])["tasks"][0]["metadata"]["run"]["worktree"]["branch"] == "tether/1"


def test_two_teams_in_one_repository_keep_their_branches_and_worktrees_apart(
    repo: Path, model_env: FakeModelServer
) -> None:
    allow_writes(repo)
    both_in = threading.Barrier(2, timeout=120)

    def answer(task_id: str, request: RecordedRequest) -> Turn:
        tree = worktree_of(repo, request)
        if step(request) == 0:
            both_in.wait()  # both tasks #1 hold a worktree at once
            return tool_use("Write", file_path=str(tree / "out.txt"), content=f"{tree.name}\n")
        return text(f"wrote {tree}")

    model_env.responder = task_answers(answer)
    add_tasks(repo, [], "default's first")
    add_tasks(repo, ["--team", "docs"], "docs' first")
    workers = [
        start_worker(repo, "--until-idle", "--worktrees", *team, env=trusted())
        for team in ([], ["--team", "docs"])
    ]
    for worker in workers:
        code, _, err = finish(worker)
        assert code == 0, err
    assert git(repo, "branch", "--list", "tether/*").split() == ["tether/1", "tether/docs/1"]
    for team, branch in ((["--team", "docs"], "tether/docs/1"), ([], "tether/1")):
        task = board(repo, team)["tasks"][0]
        assert task["status"] == "completed", task
        assert task["metadata"]["run"]["worktree"]["branch"] == branch
    assert git(repo, "show", "tether/docs/1:out.txt") == "1"
    assert not (repo / ".tether" / "worktrees" / "docs").exists()  # its last worktree gone
    listing = tether(repo, "worktrees", "list")
    assert "task docs/1  tether/docs/1  1 unmerged commit(s)" in listing
    assert "out.txt: changed by task 1 (tether/1), task docs/1 (tether/docs/1)" in listing
    assert tether(repo, "worktrees", "merge", "docs/1").startswith("merged tether/docs/1 into")


def test_a_team_name_that_cannot_name_branches_is_refused_up_front(repo: Path) -> None:
    # `tasks add` refuses such a team too (test_tasks_cli_input); a board may hold one anyway
    # (made by an earlier version, or through the store).
    code, _, err = finish(start_worker(repo, "--until-idle", "--worktrees", "--team", "42"))
    assert code == 2
    assert err.startswith("tether: error: team '42' cannot name task branches and worktrees")
    assert "not digits alone" in err


def test_a_paused_workers_worktree_goes_to_the_next_claim_and_its_holder_is_fenced(
    repo: Path, model_env: FakeModelServer
) -> None:
    allow_writes(repo)
    opened: list[int] = []
    first_waits, second_waits = threading.Event(), threading.Event()

    def answer(task_id: str, request: RecordedRequest) -> Turn:
        if is_first_call(request):
            opened.append(1)
            run = "first" if len(opened) == 1 else "second"
        else:
            run = "first" if "first-run.txt" in json.dumps(request.messages()) else "second"
        if step(request) == 0:
            tree = worktree_of(repo, request)
            return tool_use("Write", file_path=str(tree / f"{run}-run.txt"), content=f"{run}\n")
        (first_waits if run == "first" else second_waits).wait(timeout=300)
        return text(f"{run} run done")

    model_env.responder = task_answers(answer)
    add_tasks(repo, [], "contested")
    paused = start_worker(repo, "--worktrees", "--lease", "3", env=trusted())
    later: subprocess.Popen[str] | None = None
    try:
        wait_for(lambda: len(model_env.requests) == 2, "the first run to write and wait")
        paused.send_signal(signal.SIGSTOP)  # no heartbeats: its lease runs out
        later = start_worker(repo, "--until-idle", "--worktrees", "--lease", "3", env=trusted())
        wait_for(lambda: len(model_env.requests) == 4, "the second run to write and wait")
        tree = repo / ".tether/worktrees/1"
        assert (tree / "first-run.txt").exists()
        lines = read_lines(paused)
        paused.send_signal(signal.SIGCONT)
        first_waits.set()
        wait_for(lambda: any("dropped #1" in line for line in lines), "the first run's drop")
        # The woken holder committed nothing into the worktree and left it in place.
        assert git(tree, "status", "--porcelain") == "?? second-run.txt"
        assert git(repo, "log", "--format=%s", "main..tether/1").splitlines() == [
            "tether task 1: work left by a run whose lease ran out"
        ]
        second_waits.set()
        code, out, err = finish(later)
        assert code == 0, err
        assert "completed #1" in out
        paused.send_signal(signal.SIGTERM)
        finish(paused)
    finally:
        first_waits.set()
        second_waits.set()
        for proc in (paused, later):
            if proc is not None and proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.communicate()
    assert "completed #1" not in "".join(lines)
    task = board(repo, [])["tasks"][0]
    assert (task["status"], task["attempts"], task["result"].splitlines()[0]) == (
        "completed",
        2,
        "second run done",
    )
    assert git(repo, "log", "--format=%s", "main..tether/1").splitlines() == [
        "tether task 1: contested",
        "tether task 1: work left by a run whose lease ran out",
    ]
    assert git(repo, "show", "tether/1:first-run.txt") == "first"
    assert git(repo, "show", "tether/1:second-run.txt") == "second"


def test_a_task_given_back_at_sighup_says_where_its_work_is(
    repo: Path, model_env: FakeModelServer
) -> None:
    allow_writes(repo)
    release = threading.Event()

    def answer(task_id: str, request: RecordedRequest) -> Turn:
        tree = worktree_of(repo, request)
        if step(request) == 0:
            return tool_use("Write", file_path=str(tree / "half.txt"), content="half\n")
        release.wait(timeout=300)  # stopped meanwhile
        return text("never read")

    model_env.responder = task_answers(answer)
    add_tasks(repo, [], "stopped half way")
    worker = start_worker(repo, "--worktrees", env=trusted())
    try:
        wait_for(lambda: len(model_env.requests) == 2, "the call after the write")
        worker.send_signal(signal.SIGHUP)
        code, out, _ = finish(worker)
    finally:
        release.set()
    assert code == 128 + signal.SIGHUP
    assert (
        "gave #1 back to the board (stopped by SIGHUP); its work so far is committed on tether/1"
        in out
    )
    assert git(repo, "show", "tether/1:half.txt") == "half"
