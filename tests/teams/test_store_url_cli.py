"""A mistyped store URL stops each command at once, before any work: one error, exit 2,
nothing started, nothing made (not a worker per `--count`, not a file named like the URL)."""

from __future__ import annotations

import os
from pathlib import Path

from tether.testing.cli_runner import run_cli_process


def test_a_bad_url_is_said_once_by_the_parent_of_many_workers(repo: Path) -> None:
    done = run_cli_process(
        ["worker", "--count", "3", "--store", "redis://127.0.0.1:6379/x"],
        env=dict(os.environ),
        cwd=repo,
    )
    assert done.exit_code == 2
    assert done.stdout == ""  # no worker said it was working
    assert done.stderr == (
        "tether: error: task store URL 'redis://127.0.0.1:6379/x': the database must be a number "
        "(0 to 15 on a default server), not 'x' (use redis://[:PASSWORD@]HOST[:PORT][/DB], "
        "rediss://..., unix:///PATH/redis.sock, sqlite:///PATH, or a file path)\n"
    )


def test_a_url_missing_its_slashes_is_not_made_into_a_file(repo: Path) -> None:
    for argv in (["tasks", "add", "x"], ["team", "up", "crew", "--member", "a=general-purpose"]):
        done = run_cli_process(
            [*argv, "--store", "redis:/127.0.0.1:6379/0"], env=dict(os.environ), cwd=repo
        )
        assert done.exit_code == 2, done.stderr
        assert "'redis:' needs '//' after it, as in redis://HOST:PORT/DB" in done.stderr
    assert sorted(p.name for p in repo.iterdir()) == [".git", "a.txt", "b.txt"]
