"""Commands that only look at a team (`tasks list`/`show`, `board`, `team status`/`inbox`/
`send`/`down`) never make its store: a look at a project where no task or team was ever made
leaves no `.tether/tasks.db` behind, and says what there is (nothing) or what is missing."""

from __future__ import annotations

import os
from pathlib import Path

from tether.testing.cli_runner import run_cli_process


def _run(repo: Path, *argv: str) -> tuple[int, str, str]:
    done = run_cli_process(list(argv), env=dict(os.environ), cwd=repo)
    return done.exit_code, done.stdout, done.stderr


def test_looking_at_a_board_never_made_shows_it_empty_and_makes_no_file(repo: Path) -> None:
    db = repo / ".tether" / "tasks.db"
    assert _run(repo, "tasks", "list") == (
        0,
        f"No tasks in team 'default' (none added yet: {db}).\n",
        "",
    )
    assert _run(repo, "tasks", "list", "--json", "--team", "t") == (0, "[]\n", "")
    code, out, _ = _run(repo, "board", "--json")
    assert (code, out.count('"tasks": []'), out.count(str(db))) == (0, 1, 1)
    for verb in ("show", "retry", "rm"):
        assert _run(repo, "tasks", verb, "#2") == (
            1,
            "",
            f"tether: error: no task #2: this project has no team store yet ({db}); "
            "`tether tasks add` makes one\n",
        )
    assert not (repo / ".tether").exists()
    assert _run(repo, "tasks", "add", "first")[:2] == (0, "1\n")
    assert _run(repo, "tasks", "show", "1")[0] == 0  # the store made by add is read


def test_commands_on_a_team_never_started_say_so_and_make_no_file(repo: Path) -> None:
    db = repo / ".tether" / "tasks.db"
    wanted = f"tether: error: no team named 'crew' in {db}: start it with tether team up\n"
    for argv in (
        ["team", "status", "crew"],
        ["team", "inbox", "crew"],
        ["team", "send", "crew", "ann", "hello"],
        ["team", "down", "crew"],
    ):
        assert _run(repo, *argv) == (2, "", wanted), argv
    assert not (repo / ".tether").exists()


def test_a_named_store_that_is_not_there_is_a_mistake_said(repo: Path) -> None:
    for argv in (["tasks", "list"], ["board", "--json"], ["team", "status", "crew"]):
        code, out, err = _run(repo, *argv, "--store", "elsewhere.db")
        assert (code, out) == (2, ""), argv
        assert f"no task store at {repo / 'elsewhere.db'}: nothing was ever added there" in err
    assert sorted(p.name for p in repo.iterdir()) == [".git", "a.txt", "b.txt"]
