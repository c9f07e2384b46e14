"""A teammate's own child carries its mark (in its environment, or a moment after its fork):
`team_processes` finds the teammate, not each of its children (a test once found two
processes for one forked teammate that happened to be starting a command)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from tether.teams.claims import TEAM_RUN_ENV, team_processes


@dataclass
class _Store:
    url: str
    team: str


def test_a_teammates_child_is_not_another_teammate(tmp_path: Path) -> None:
    store = _Store("sqlite:///" + str(tmp_path / "tasks.db"), "crew")
    mark = json.dumps([store.url, store.team, "alice"])
    ready = tmp_path / "ready"
    script = (
        "import subprocess, pathlib, sys, time\n"
        "child = subprocess.Popen(['sleep', '60'])\n"
        f"pathlib.Path({str(ready)!r}).write_text(str(child.pid))\n"
        "time.sleep(60)\n"
    )
    parent = subprocess.Popen(
        [sys.executable, "-c", script], env={**os.environ, TEAM_RUN_ENV: mark}
    )
    try:
        while not ready.exists() or not ready.read_text():
            time.sleep(0.01)
        child = int(ready.read_text())
        found = team_processes(store)  # type: ignore[arg-type]
        assert [(p.pid, p.member) for p in found] == [(parent.pid, "alice")]
        os.kill(child, 9)
    finally:
        parent.kill()
        parent.wait()
