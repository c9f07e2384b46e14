"""A hook's child that cleared its environment (`env -i`, and with it the run's marker) still
belongs to the hook's process group, which the run records: when tether is killed while the
hook runs, the next start stops it too. Before, only the marker was looked for, and such a
child ran on. Real tether processes, really killed."""

from __future__ import annotations

import json
import shlex
import time
from collections.abc import Callable
from pathlib import Path

from tests.cli.test_killed_runs import _alive, _gone, _kill_survivors, _start, _wait_for_pid
from tether.testing import FakeModelServer, reply, text, tool_use
from tether.testing.cli_runner import CliResult

Run = Callable[..., CliResult]


def _recorded(runs: Path, pgid: int) -> None:
    """Until the run's record has the hook's group (written just after the hook started: a
    kill before that finds nothing to go by, as for a command)."""
    line = f'"group": {pgid},'
    for _ in range(6000):  # bounded
        if any(line in record.read_text() for record in runs.glob("*.jsonl")):
            return
        time.sleep(0.01)
    raise AssertionError(f"group {pgid} never recorded")


def test_a_hook_child_with_a_cleared_environment_is_stopped_at_the_next_start(
    fake_model: FakeModelServer, tether: Run, trusted_workspace: Path, tmp_path: Path
) -> None:
    workspace = trusted_workspace
    child = f"echo $$ > {shlex.quote(str(workspace / 'child.pid'))}; exec sleep 600"
    hook = {"type": "command", "command": f"env -i sh -c {shlex.quote(child)}"}
    settings = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [hook]}]}}
    (workspace / ".claude").mkdir()
    (workspace / ".claude" / "settings.json").write_text(json.dumps(settings))
    fake_model.script(reply(tool_use("Bash", command="echo ran > ran.txt")))
    proc = _start(workspace, "-p", "work", "--permission-mode", "bypassPermissions")
    pid = _wait_for_pid(workspace / "child.pid", proc)
    try:
        assert b"TETHER_RUN=" not in Path(f"/proc/{pid}/environ").read_bytes()
        group = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[2])
        _recorded(tmp_path / "home" / "runs", group)
        proc.kill()
        proc.communicate(timeout=30)
        assert _alive(pid)  # what a SIGKILLed tether leaves running

        fake_model.reset()
        fake_model.script(reply(text("clean")))
        (workspace / ".claude" / "settings.json").write_text("{}")
        result = tether("-p", "hello again")
        assert (result.exit_code, result.stdout) == (0, "clean\n"), result.stderr
        assert _gone(pid), result.stderr
        assert "stopped 1 process(es) it left running" in result.stderr
    finally:
        _kill_survivors([pid])
    assert not (workspace / "ran.txt").exists()
