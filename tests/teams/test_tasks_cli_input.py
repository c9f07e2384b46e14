"""Bad input to the board's commands: a store that does not exist is not made by a command
that only reads, an empty team or subject is refused, each saying what is wrong."""

from __future__ import annotations

from pathlib import Path

from tether.testing.cli_runner import run_cli_process


def test_commands_on_existing_tasks_refuse_a_store_that_does_not_exist(repo: Path) -> None:
    missing = repo / "tasks-typo.db"
    commands = (
        ["tasks", "list"],
        ["tasks", "show", "1"],
        ["tasks", "retry", "1"],
        ["tasks", "rm", "1"],
        ["board", "--json"],
        ["worker", "--until-idle"],
        ["worker"],  # not an empty board waited on for ever
    )
    for argv in commands:
        done = run_cli_process([*argv, "--store", str(missing)], cwd=repo)
        assert done.exit_code == 2, done.stdout
        assert done.stderr.startswith(f"tether: error: no task store at {missing}: nothing was ")
    assert not missing.exists()
    nested = repo / "no" / "such" / "dir" / "x.db"
    done = run_cli_process(["worker", "--store", f"sqlite://{nested}"], cwd=repo)
    assert done.exit_code == 2, done.stdout
    assert done.stderr.startswith(f"tether: error: no task store at {nested}: nothing was ")
    assert not (repo / "no").exists()
    # SQLAlchemy's absolute form (four slashes) names the same file, said as a path.
    done = run_cli_process(["tasks", "list", "--store", f"sqlite:///{nested}"], cwd=repo)
    assert done.exit_code == 2, done.stdout
    assert done.stderr.startswith(f"tether: error: no task store at {nested}: nothing was ")
    added = run_cli_process(["tasks", "add", "first", "--store", str(missing)], cwd=repo)
    assert (added.exit_code, added.stdout) == (0, "1\n")
    listed = run_cli_process(["tasks", "list", "--store", str(missing)], cwd=repo)
    assert listed.exit_code == 0
    assert "first" in listed.stdout


def test_an_empty_team_or_subject_is_refused(repo: Path) -> None:
    done = run_cli_process(["tasks", "add", "x", "--team", ""], cwd=repo)
    assert (done.exit_code, done.stderr) == (
        2,
        "tether: error: --team is empty: name one (or leave the option out)\n",
    )
    done = run_cli_process(["tasks", "add", "  "], cwd=repo)
    assert (done.exit_code, done.stderr) == (
        1,
        "tether: error: a task's subject cannot be empty: say in a few words what it is\n",
    )
    listed = run_cli_process(["tasks", "list"], cwd=repo)
    assert "No tasks in team 'default'" in listed.stdout


def test_a_team_that_cannot_name_branches_is_refused_when_adding(repo: Path) -> None:
    """As `tether worker --worktrees` refuses it: not a task no worker could run in a worktree."""
    done = run_cli_process(["tasks", "add", "x", "--team", "1"], cwd=repo)
    assert done.exit_code == 2, done.stdout
    assert done.stderr.startswith(
        "tether: error: team '1' cannot name task branches and worktrees: use letters, digits"
    )
    assert not (repo / ".tether" / "tasks.db").exists()
    worker = run_cli_process(["worker", "--worktrees", "--team", "1"], cwd=repo)
    assert "team '1' cannot name task branches and worktrees" in worker.stderr
