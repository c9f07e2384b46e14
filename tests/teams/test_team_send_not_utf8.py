"""`team send` text that is not UTF-8 (a byte the locale cannot decode, given in argv):
refused with one precise message and exit 2, before any store, the same on SQLite and Redis.
Failed before: SQLite crashed with a traceback (`--wait`: pydantic's), Redis said "sent" and
the teammate dropped the message as not UTF-8 text."""

from __future__ import annotations

import subprocess
import sys
import uuid
from pathlib import Path

from tether.store.mailbox import Member, TeamRecord, open_team_store
from tether.testing import FakeModelServer

from .workers import WAIT_S


def test_send_refuses_text_that_is_not_utf8_on_either_store(
    repo: Path, model_env: FakeModelServer, store: list[str]
) -> None:
    team = f"t-{uuid.uuid4().hex[:8]}"
    url = store[1] if store else None
    records = open_team_store(url, project=repo, team=team)
    try:
        records.create_team(TeamRecord(name=team))
        for name in ("team-lead", "alice"):
            records.put_member(Member(name=name))
        for extra in ([], ["--wait", "--timeout", "1"], ["--reply-to", "0"]):
            argv: list[str | bytes] = ["team", "send", team, "alice", b"bad\xffbyte", *extra]
            done = subprocess.run(
                [sys.executable, "-m", "tether", *argv, *store],
                cwd=repo,
                capture_output=True,
                timeout=WAIT_S,
                check=False,
            )
            assert (done.returncode, done.stdout, done.stderr.decode()) == (
                2,
                b"",
                "tether: error: the message is not UTF-8 text (byte 0xff at character 4): "
                "nothing done\n",
            ), extra
        assert records.unread("alice") == 0
    finally:
        records.close()
