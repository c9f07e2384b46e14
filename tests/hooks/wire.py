"""Hooks that record what they were given, for tests of a live session over the wire."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

DUMP = """\
import json, os, sys, time
data = sys.stdin.read()
event = json.loads(data)["hook_event_name"]
name = f"{time.time_ns():020d}-{os.getpid()}-{event}.json"
with open(os.path.join(sys.argv[1], name), "w") as f:
    f.write(data)
"""


def dump_command(directory: Path) -> str:
    """A command that saves its hook input as one file in `directory` (made here)."""
    directory.mkdir(parents=True, exist_ok=True)
    script = directory.parent / "dump_hook.py"
    script.write_text(DUMP)
    return f"{sys.executable} {script} {directory}"


def dumped(directory: Path, event: str | None = None) -> list[dict[str, Any]]:
    """The inputs the dump hooks saved, oldest first (of one event, if named)."""
    inputs = [json.loads(p.read_text()) for p in sorted(directory.glob("*.json"))]
    return [i for i in inputs if event is None or i["hook_event_name"] == event]


def write_settings(workspace: Path, hooks: dict[str, Any], **more: Any) -> None:
    """The workspace's `.claude/settings.json` with this `hooks` block."""
    (workspace / ".claude").mkdir(exist_ok=True)
    data = {"hooks": hooks, **more}
    (workspace / ".claude" / "settings.json").write_text(json.dumps(data))


def python_hook(path: Path, body: str) -> str:
    """A hook command running the Python `body` (written to `path`)."""
    path.write_text(body)
    return f"{sys.executable} {path}"
