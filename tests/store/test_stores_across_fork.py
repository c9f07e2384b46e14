"""No store connection crosses a fork: a process that opened its task board and its mailboxes,
then forks a child (as `tether team up` forks its teammates and `tether worker --count N` its
workers), finds both working on each side, and the child holds no descriptor of the
parent's SQLite files (the store's, the cost ledger's): its connections are its own, opened
after the fork."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import uuid
from pathlib import Path
from typing import Any

import pytest

SCRIPT = textwrap.dedent(
    """
    import json, os, sys
    from pathlib import Path

    from tether.ledger.db import LedgerFile
    from tether.store.mailbox import Message, Member, TeamRecord, open_team_store
    from tether.store.task_records import NewTask
    from tether.store.task_store import open_task_store
    from tether.teams.forked import fork

    project, url, team = Path(sys.argv[1]), sys.argv[2] or None, sys.argv[3]
    db = (project / ".tether" / "tasks.db").resolve()
    ledger = LedgerFile(project / "ledger.db")
    files = (str(db), str((project / "ledger.db").resolve()))
    board = open_task_store(url, project=project, team=team)
    mail = open_team_store(url, project=project, team=team)
    mail.create_team(TeamRecord(name=team, lead="lead"))
    mail.put_member(Member(name="lead"))
    mail.put_member(Member(name="mate"))
    board.create(NewTask(subject="before the fork"))

    def inherited() -> list[str]:
        found = []
        for fd in os.listdir("/proc/self/fd"):
            try:
                target = os.readlink(f"/proc/self/fd/{fd}")
            except OSError:
                continue
            if target.startswith(files):
                found.append(target)
        return found

    child_saw: dict[str, object] = {}

    def run() -> int:
        seen = inherited()  # before the child uses a store: what crossed the fork
        board.create(NewTask(subject="by the child"))
        mail.send(Message(sender="mate", recipient="lead", text="from the child"))
        subjects = [t.subject for t in board.list()]
        assert ledger.read("SELECT 1") == [(1,)]
        (project / "child.json").write_text(json.dumps({"held": seen, "subjects": subjects}))
        return 0

    child = fork(lambda: None, run)
    code = child.wait()
    board.create(NewTask(subject="after the fork"))
    mail.send(Message(sender="lead", recipient="mate", text="from the parent"))
    got = mail.receive("lead", "parent", block_s=1.0)
    out = {
        "code": code,
        "child": json.loads((project / "child.json").read_text()),
        "subjects": [t.subject for t in board.list()],
        "lead_got": [d.message.text for d in got],
        "mate_unread": mail.unread("mate"),
    }
    assert ledger.read("SELECT 1") == [(1,)]
    board.close()
    mail.close()
    ledger.close()
    print(json.dumps(out))
    """
)


def _run(project: Path, url: str) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(project), url, f"t-{uuid.uuid4().hex[:8]}"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("kind", ["sqlite", "redis"])
def test_a_forked_child_and_its_parent_each_use_their_stores(
    tmp_path: Path, kind: str, request: pytest.FixtureRequest
) -> None:
    url = "" if kind == "sqlite" else str(request.getfixturevalue("redis_url"))
    project = tmp_path / "project"
    project.mkdir(parents=True)
    out = _run(project, url)
    assert out["code"] == 0
    assert out["child"]["held"] == []  # no descriptor of the parent's file crossed the fork
    assert out["child"]["subjects"] == ["before the fork", "by the child"]
    assert out["subjects"] == ["before the fork", "by the child", "after the fork"]
    assert out["lead_got"] == ["from the child"]
    assert out["mate_unread"] == 1


MOVED = textwrap.dedent(
    """
    import sys
    from pathlib import Path

    from tether.store.task_records import NewTask, StoreLost
    from tether.store.task_store import open_task_store
    from tether.teams.forked import fork

    project = Path(sys.argv[1])
    db = project / ".tether" / "tasks.db"
    board = open_task_store(None, project=project, team="t")
    board.create(NewTask(subject="kept"))
    assert fork(lambda: None, lambda: 0).wait() == 0  # the connection closed for the fork
    db.rename(project / "moved.db")
    try:
        board.list()
    except StoreLost as e:
        print("lost:", e)
    print("made again:", db.exists())
    """
)


def test_a_store_moved_away_after_a_fork_is_lost_not_made_again_empty(tmp_path: Path) -> None:
    """The connection a fork closed is opened again only on the file first opened: one moved
    away meanwhile is said lost, as without a fork, and no empty store takes its place."""
    project = tmp_path / "project"
    project.mkdir()
    done = subprocess.run(
        [sys.executable, "-c", MOVED, str(project)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    lost, made = done.stdout.strip().splitlines()
    assert lost.startswith(f"lost: the task store {project / '.tether' / 'tasks.db'} was deleted")
    assert made == "made again: False"
