"""A rewind takes the conversation back, not the money: what the session spent stays spent,
in the statusLine's `cost`, in /cost, and after the rewound session is resumed, as Claude
Code's does; so do the time of the model calls and the lines the edits changed. On a real
terminal against the fake model server."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from tests.cli.pty_terminal import PtyRepl
from tests.cli.test_repl_commands import TURN_END, anthropic_only
from tests.cli.test_repl_rewind import ESC_ESC, pick
from tether.cli.repl_rewind import PICK_QUESTION
from tether.testing import FakeModelServer, reply, text, tool_use

DUMP = """\
import json, sys
with open("runs.jsonl", "a") as runs:
    runs.write(json.dumps(json.load(sys.stdin)) + "\\n")
print("STATUS")
"""


def _runs(workspace: Path) -> list[dict[str, object]]:
    path = workspace / "runs.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines()]


def _costs_said(screen: str) -> list[str]:
    return re.findall(r"Total cost:\s+\$([0-9.]+)", screen)


def _cost(run: dict[str, object]) -> dict[str, float]:
    cost = run["cost"]
    assert isinstance(cost, dict)
    return cost  # pyright: ignore[reportUnknownVariableType]


@pytest.mark.timeout(150)
@pytest.mark.usefixtures("trusted_workspace")
def test_a_rewind_does_not_give_back_what_was_spent(
    model_env: FakeModelServer, workspace: Path, home: Path
) -> None:
    (workspace / "status.py").write_text(DUMP)
    settings = workspace / ".claude" / "settings.json"
    settings.parent.mkdir(exist_ok=True)
    command = f"{sys.executable} status.py"
    settings.write_text(json.dumps({"statusLine": {"type": "command", "command": command}}))
    model_env.script(
        reply(tool_use("Write", file_path="a.txt", content="one\ntwo\n")),
        reply(text("Wrote a.")),
        reply(tool_use("Edit", file_path="a.txt", old_string="two\n", new_string="2\n3\n")),
        reply(text("Edited a.")),
    )
    env = anthropic_only(home)
    repl = PtyRepl(workspace, env, "--permission-mode", "acceptEdits")
    try:
        repl.wait_for("> ")
        repl.send("write a\r")
        repl.wait_for(TURN_END)
        repl.wait_reading(TURN_END)
        repl.send("edit a\r")
        repl.wait_for(TURN_END, 2)
        repl.wait_reading(TURN_END)
        # Claude Code's cost totals: the Write made two lines, the Edit one into two.
        repl.wait_until(
            lambda _s: _cost(_runs(workspace)[-1]).get("total_lines_removed") == 1, "the edit"
        )
        before = _cost(_runs(workspace)[-1])
        spent = before["total_cost_usd"]
        assert spent > 0
        assert before["total_lines_added"] == 4
        assert before["total_api_duration_ms"] >= 0
        repl.send("/cost\r")
        repl.wait_for("Usage by model:")
        assert _costs_said(repl.screen) == [f"{spent:.4f}"]
        changes = "Totalcodechanges:4linesadded,1lineremoved"
        assert "".join(repl.screen.split()).count(changes) == 1, repl.screen
        runs = len(_runs(workspace))
        repl.send(ESC_ESC)
        repl.wait_for(PICK_QUESTION.strip())
        pick(repl, 1)
        repl.wait_for("Files put back:")
        repl.wait_shown("> write a")
        repl.wait_until(lambda _s: len(_runs(workspace)) > runs, "a run after the rewind")
        after = _cost(_runs(workspace)[-1])
        assert after["total_cost_usd"] == pytest.approx(spent)
        assert (after["total_lines_added"], after["total_lines_removed"]) == (4, 1)
        assert after["total_api_duration_ms"] == before["total_api_duration_ms"] > 0
        repl.send(ESC_ESC)  # the message put back in the prompt goes
        repl.send("/cost\r")
        repl.wait_for("Usage by model:", 2)
        assert _costs_said(repl.screen) == [f"{spent:.4f}"] * 2
        assert "".join(repl.screen.split()).count(changes) == 2, repl.screen
    finally:
        repl.close()
    assert not (workspace / "a.txt").exists()

    runs = len(_runs(workspace))
    resumed = PtyRepl(workspace, env, "--continue")
    try:
        resumed.wait_for("> ")
        resumed.wait_until(lambda _s: len(_runs(workspace)) > runs, "a run after the resume")
        again = _cost(_runs(workspace)[-1])
    finally:
        resumed.close()
    assert again["total_cost_usd"] == pytest.approx(spent)
    # The model calls' time comes back from the file (each reply's `durationMs`), as the
    # money does: the rewound calls' too; so do the lines the rewound edits changed (each
    # result's `toolUseResult`).
    assert again["total_api_duration_ms"] == before["total_api_duration_ms"]
    assert (again["total_lines_added"], again["total_lines_removed"]) == (4, 1)
