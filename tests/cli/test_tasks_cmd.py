"""`tether tasks` as a real subprocess, against the project's SQLite file and a real Redis."""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

from tether.testing.cli_runner import CliResult, run_cli_process

Tasks = Callable[..., CliResult]


@pytest.fixture(params=["sqlite", "redis"])
def store_args(request: pytest.FixtureRequest) -> list[str]:
    """No flag (the project's own file), or `--store` naming the run's Redis server."""
    if request.param == "sqlite":
        return []
    return ["--store", str(request.getfixturevalue("redis_url"))]


@pytest.fixture
def tasks(workspace: Path, store_args: list[str], home: Path) -> Tasks:
    team = f"cli-{uuid.uuid4().hex[:10]}"
    env = {**os.environ, "HOME": str(home), "TETHER_HOME": str(home / ".tether")}

    def run(*argv: str) -> CliResult:
        return run_cli_process(
            ["tasks", *argv, "--team", team, *store_args], env=env, cwd=workspace
        )

    return run


def test_add_list_show_retry_rm(tasks: Tasks, workspace: Path, store_args: list[str]) -> None:
    assert tasks("add", "parse the input", "--description", "all of it").stdout == "1\n"
    added = tasks("add", "check it", "--depends-on", "1", "--priority", "high")
    assert (added.exit_code, added.stdout) == (0, "2\n")
    listed = tasks("list")
    assert listed.stdout.splitlines() == [
        "#1    pending     medium parse the input",
        "#2    pending     high   check it  waits for #1",
    ]
    shown = json.loads(tasks("show", "#2", "--json").stdout)
    assert (shown["id"], shown["blockedBy"], shown["status"]) == ("2", ["1"], "pending")
    assert [t["blocks"] for t in tasks("list", "--json").json()] == [["2"], []]
    assert "Blocks: #2" in tasks("show", "1").stdout
    refused = tasks("rm", "1")
    assert (refused.exit_code, refused.stderr) == (
        1,
        "tether: error: task #1 is a dependency of #2: remove those first\n",
    )
    retry = tasks("retry", "1")
    assert (retry.exit_code, retry.stderr) == (
        1,
        "tether: error: task #1 is pending: only a failed task is retried\n",
    )
    assert tasks("rm", "2").stdout == "Removed #2 (check it)\n"
    assert tasks("rm", "1").exit_code == 0
    assert tasks("list").stdout.startswith("No tasks in team 'cli-")
    assert (workspace / ".tether" / "tasks.db").exists() == (store_args == [])


def test_bad_input_is_refused_with_the_reason(tasks: Tasks) -> None:
    unknown = tasks("add", "orphan", "--depends-on", "9")
    assert (unknown.exit_code, unknown.stdout) == (1, "")
    assert unknown.stderr.startswith("tether: error: unknown dependency #9: no such task in team")
    missing = tasks("show", "4")
    assert missing.exit_code == 1
    assert "no task #4 in team 'cli-" in missing.stderr


def test_the_store_comes_from_env_then_settings(
    workspace: Path, home: Path, tmp_path: Path
) -> None:
    env = {**os.environ, "HOME": str(home), "TETHER_HOME": str(home / ".tether")}
    (workspace / ".tether").mkdir()
    (workspace / ".tether" / "settings.json").write_text(
        json.dumps({"teams": {"store": "boards/setting.db", "team": "blue"}})
    )
    assert run_cli_process(["tasks", "add", "a"], env=env, cwd=workspace).exit_code == 0
    assert (workspace / "boards" / "setting.db").exists()
    env["TETHER_TEAM_STORE"] = str(tmp_path / "env.db")
    run_cli_process(["tasks", "add", "b"], env=env, cwd=workspace)
    listed = run_cli_process(["tasks", "list", "--json"], env=env, cwd=workspace)
    assert [t["subject"] for t in listed.json()] == ["b"]
    env.pop("TETHER_TEAM_STORE")
    listed = run_cli_process(["tasks", "list", "--team", "blue", "--json"], env=env, cwd=workspace)
    assert [t["subject"] for t in listed.json()] == ["a"]


def test_an_unusable_store_stops_with_where_and_why(workspace: Path, home: Path) -> None:
    env = {**os.environ, "HOME": str(home), "TETHER_HOME": str(home / ".tether")}
    (workspace / ".tether").mkdir()
    (workspace / ".tether" / "tasks.db").write_text("not a database at all\n" * 100)
    broken = run_cli_process(["tasks", "list"], env=env, cwd=workspace)
    assert broken.exit_code == 2
    assert "tasks.db is not a usable task store (file is not a database)" in broken.stderr
    down = run_cli_process(
        ["tasks", "list", "--store", "redis://127.0.0.1:1/0"], env=env, cwd=workspace
    )
    assert down.exit_code == 2
    assert down.stderr.startswith(
        "tether: error: cannot reach the task store at redis://127.0.0.1:1/0: "
    )


def test_a_blocked_reason_of_many_lines_is_listed_as_its_first(workspace: Path, home: Path) -> None:
    from tether.store.sqlite_tasks import SqliteTaskStore
    from tether.store.task_records import NewTask

    store = SqliteTaskStore(workspace / ".tether" / "tasks.db", "default")
    try:
        first = store.create(NewTask(subject="compile"))
        store.create(NewTask(subject="test", depends_on=[first.id]))
        store.fail(store.claim(first.id, "w"), "nothing was done\n\nDenied:\n- Bash(rm x)")
    finally:
        store.close()
    env = {**os.environ, "HOME": str(home), "TETHER_HOME": str(home / ".tether")}
    listed = run_cli_process(["tasks", "list"], env=env, cwd=workspace).stdout.splitlines()
    assert listed[2] == (
        "      blocked: #1 (compile) failed: nothing was done ... (tether tasks show 2)"
    )
