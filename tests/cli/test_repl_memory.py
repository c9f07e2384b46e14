"""`/memory` in the REPL, as Claude Code's: the memory files listed, the one picked opened in
the user's editor (created when missing), the edit in the system prompt of the next request.
On a real terminal against the fake model server, with a script as the editor."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from tests.cli.pty_terminal import PtyRepl
from tests.cli.test_repl_commands import TURN_END, anthropic_only
from tether.cli.repl_memory import PICK_QUESTION
from tether.testing import FakeModelServer, reply, text


@pytest.mark.timeout(120)
def test_memory_opens_the_file_picked_in_the_editor_and_the_next_request_reads_it(
    model_env: FakeModelServer, workspace: Path, home: Path, tmp_path: Path
) -> None:
    editor = tmp_path / "editor.sh"
    editor.write_text('#!/bin/sh\nprintf "Always answer in haiku.\\n" >> "$1"\n')
    editor.chmod(editor.stat().st_mode | stat.S_IXUSR)
    (workspace / "CLAUDE.md").write_text("Project notes.\n")
    model_env.script(reply(text("First.")), reply(text("Second.")))
    env = {**anthropic_only(home), "EDITOR": str(editor)}
    env.pop("VISUAL", None)
    repl = PtyRepl(workspace, env)
    try:
        repl.wait_for("> ")
        repl.send("hello\r")
        repl.wait_for(TURN_END)
        repl.wait_reading(TURN_END)
        repl.send("/memory\r")
        repl.wait_for(PICK_QUESTION.strip())
        assert "1. ~/.claude/CLAUDE.md  (user memory, for every project, not created yet)" in (
            repl.screen
        )
        assert "2. CLAUDE.md  (project memory, checked in)" in repl.screen
        assert "3. CLAUDE.local.md  (project memory, local (not checked in), not created" in (
            repl.screen
        )
        repl.send("3\r")
        repl.wait_for("✓ Saved CLAUDE.local.md: read from the next message on.")
        repl.send("again\r")
        repl.wait_for(TURN_END, 2)
    finally:
        repl.close()
    assert (workspace / "CLAUDE.local.md").read_text() == "Always answer in haiku.\n"
    first, second = model_env.requests
    assert "Always answer in haiku." not in json.dumps(first.body["system"])
    assert "Always answer in haiku." in json.dumps(second.body["system"])
    assert "Project notes." in json.dumps(second.body["system"])
