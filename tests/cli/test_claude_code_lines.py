"""The lines a session's file changes added and removed come back with the session, as
Claude Code's cost totals do: a session the real Claude Code CLI wrote (its Write and Edit
results' `toolUseResult`), resumed by tether's REPL, has its statusLine count them. Against
the fake model server, on a real terminal."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.cli.pty_terminal import PtyRepl
from tests.cli.test_claude_code_sessions import (  # pyright: ignore[reportPrivateUsage]
    _claude,
    claude_home,  # noqa: F401  (the fixture)
)
from tests.cli.test_repl_commands import anthropic_only
from tests.cli.test_repl_rewind_cost import DUMP
from tether.testing import FakeModelServer, reply, text, tool_use

pytest.importorskip("claude_agent_sdk")


def _costs(workspace: Path) -> list[dict[str, object]]:
    path = workspace / "runs.jsonl"
    if not path.exists():
        return []
    runs = [json.loads(line) for line in path.read_text().splitlines()]
    return [run["cost"] for run in runs]


@pytest.mark.timeout(200)
@pytest.mark.usefixtures("trusted_workspace", "claude_home")
def test_tether_counts_the_lines_a_claude_code_session_changed(
    model_env: FakeModelServer, workspace: Path, home: Path
) -> None:
    model_env.script(
        reply(tool_use("Write", file_path=str(workspace / "a.txt"), content="one\ntwo\n")),
        reply(
            tool_use(
                "Edit",
                file_path=str(workspace / "a.txt"),
                old_string="two\n",
                new_string="2\n3\n",
            )
        ),
        reply(text("Wrote and edited a.")),
    )
    started = _claude(workspace, model_env, "-p", "write a", "--allowedTools", "Write", "Edit")
    assert (workspace / "a.txt").read_text() == "one\n2\n3\n"
    session_id = str(started["session_id"])

    (workspace / "status.py").write_text(DUMP)
    settings = workspace / ".claude" / "settings.json"
    settings.parent.mkdir(exist_ok=True)
    command = f"{sys.executable} status.py"
    settings.write_text(json.dumps({"statusLine": {"type": "command", "command": command}}))
    resumed = PtyRepl(workspace, anthropic_only(home), "--resume", session_id)
    try:
        resumed.wait_for("> ")
        resumed.wait_until(lambda _s: bool(_costs(workspace)), "a statusLine run")
    finally:
        resumed.close()
    cost = _costs(workspace)[-1]
    # The Write made two lines (a new file: its content), the Edit one into two.
    assert (cost["total_lines_added"], cost["total_lines_removed"]) == (4, 1), cost
