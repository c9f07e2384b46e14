"""`team up` and `team status` show a member's log's end: a bounded tail read from its end,
and only from a regular file. Failed before: both read the whole log (a 200 MB log took
560 MB; a log that is /dev/full or /dev/zero grew them until the kernel ended them). Each
command runs here with its address space bounded, so a whole read fails instead."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

from tether.store.mailbox import Member, open_team_store
from tether.testing import FakeModelServer

from .test_team_errors import team_of
from .workers import WAIT_S

BOUND = 1 << 30  # the address space each command may use
BIG = 4 << 30  # a log larger than that (sparse: no disk used)


def bounded(repo: Path, *argv: str) -> tuple[int, str, str]:
    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (BOUND, BOUND))

    done = subprocess.run(
        [sys.executable, "-m", "tether", *argv],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=WAIT_S,
        preexec_fn=limit,
        check=False,
    )
    return done.returncode, done.stdout, done.stderr


def did_not_start(repo: Path, team: str, name: str) -> None:
    store = open_team_store(None, project=repo, team=team)
    try:
        store.put_member(Member(name=name, state="did_not_start"))
    finally:
        store.close()


def test_up_and_status_read_only_the_end_of_a_big_log(
    repo: Path, model_env: FakeModelServer
) -> None:
    team = team_of(repo)
    store = open_team_store(None, project=repo, team=team)
    try:
        store.put_member(Member(name="dora", agent="Vanished"))  # cannot start: says why
    finally:
        store.close()
    log = repo / ".tether" / "teams" / team / "dora.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("wb") as f:  # earlier runs' output
        f.truncate(BIG)
        f.seek(BIG)
        f.write(b"\nan earlier run's last line\n")
    code, _, err = bounded(repo, "team", "up", team)
    assert code == 1, err
    assert "dora: did not start (exit 2):" in err, err
    assert "no agent named 'Vanished'" in err
    assert "Traceback" not in err
    last = log.read_bytes()[BIG:].decode().strip().splitlines()[-1]
    code, out, err = bounded(repo, "team", "status", team, "--json")
    assert (code, err) == (0, "")
    dora = next(m for m in json.loads(out)["members"] if m["name"] == "dora")
    assert (dora["state"], dora["stopped_why"]) == ("did_not_start", last.strip())
    code, out, err = bounded(repo, "team", "status", team)
    assert (code, err) == (0, "")
    assert "did not start" in out


def test_a_log_that_is_not_a_regular_file_is_named_not_read(
    repo: Path, model_env: FakeModelServer
) -> None:
    team = team_of(repo)
    logs = repo / ".tether" / "teams" / team
    logs.mkdir(parents=True)
    for name, target in (("zed", "/dev/zero"), ("fifi", None)):
        did_not_start(repo, team, name)
        if target is None:
            os.mkfifo(logs / f"{name}.log")  # no writer: opening it to read would wait
        else:
            (logs / f"{name}.log").symlink_to(target)
    code, out, err = bounded(repo, "team", "status", team, "--json")
    assert (code, err) == (0, "")
    shown = {m["name"]: m for m in json.loads(out)["members"]}
    for name in ("zed", "fifi"):
        log = logs / f"{name}.log"
        assert shown[name]["stopped_why"] == f"({log} is not a regular file: not read)"


def test_a_log_that_cannot_be_written_is_named_and_nothing_is_claimed(
    repo: Path, model_env: FakeModelServer
) -> None:
    """Failed before: a traceback (`FileExistsError` from the team's folder being a file,
    `IsADirectoryError` from the forked child), and the member recorded did not start."""
    team = team_of(repo, "alice")
    log = repo / ".tether" / "teams" / team / "alice.log"
    log.mkdir(parents=True)
    code, out, err = bounded(repo, "team", "up", team)
    assert (code, out, err) == (
        2,
        "",
        f"tether: error: cannot write alice's log {log}: Is a directory\n",
    )
    other = team_of(repo, "carol")
    folder = repo / ".tether" / "teams" / other
    folder.write_text("not a folder")
    code, out, err = bounded(repo, "team", "up", other)
    assert (code, out) == (2, "")
    assert err == (
        f"tether: error: cannot write carol's log {folder / 'carol.log'}: {folder}: File exists\n"
    )
    for name, team_name in (("alice", team), ("carol", other)):
        store = open_team_store(None, project=repo, team=team_name)
        try:
            member = next(m for m in store.members() if m.name == name)
            assert (member.state, member.pid) == ("starting", None)
        finally:
            store.close()
