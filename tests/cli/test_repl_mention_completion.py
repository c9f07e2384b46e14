"""`@` completion at the REPL's prompt, on a real terminal: it never lists what the user's Read
deny rules cover, nor what is in it, as Glob does not."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.pty_terminal import PtyRepl
from tests.cli.test_repl_commands import anthropic_only
from tether.testing import FakeModelServer


@pytest.mark.timeout(90)
def test_at_completion_leaves_out_read_denied_names(
    model_env: FakeModelServer, workspace: Path, home: Path, tmp_path: Path
) -> None:
    (workspace / "secrets").mkdir()
    (workspace / "secrets" / "key.txt").write_text("KEY\n")
    (workspace / "second.md").write_text("")
    outside = tmp_path / "outside"
    (outside / "denied").mkdir(parents=True)
    (outside / "denied" / "hidden.txt").write_text("")
    (outside / "dent.md").write_text("")
    rules = ["Read(./secrets/**)", f"Read(/{outside}/denied/**)"]
    (home / ".claude").mkdir()
    (home / ".claude" / "settings.json").write_text(json.dumps({"permissions": {"deny": rules}}))
    repl = PtyRepl(workspace, anthropic_only(home))
    try:
        repl.wait_for("> ")
        repl.send("/help\r")  # the session (and its rules) is built once /help answers
        repl.wait_for("/add-dir")
        repl.send("@secrets/")
        repl.wait_shown("@secrets/")
        repl.send("\x15@sec")  # Ctrl+U, then a stem both names start with
        repl.wait_shown("second.md")
        shown = list(repl.lines)
        repl.send(f"\x15@{outside}/den")
        repl.wait_shown("dent.md")
        shown += repl.lines
        repl.send(f"\x15@{outside}/denied/")
        repl.wait_shown("denied/")
        repl.send("\x15@seco")
        repl.wait_shown("@seco")
        shown += repl.lines
        screen = repl.screen
    finally:
        repl.close()
    assert not [line for line in shown if "secrets/" in line and "@secrets/" not in line], shown
    assert not [line for line in shown if "denied/" in line and "@" not in line], shown
    assert "key.txt" not in screen, screen
    assert "hidden.txt" not in screen, screen
