"""The REPL's /hooks (every configured hook by event and matcher, with its file) and
/output-style (the styles, or the choice saved where Claude Code keeps it), on a real terminal."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.pty_terminal import PtyRepl
from tests.cli.test_repl_commands import anthropic_only
from tether.testing import FakeModelServer


def test_hooks_lists_each_hook_by_event_and_matcher_with_its_file(
    model_env: FakeModelServer, workspace: Path, home: Path
) -> None:
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir()
    hooks = {
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "echo pre"}]}],
        "Stop": [{"hooks": [{"type": "command", "command": "echo stopped"}]}],
    }
    settings.write_text(json.dumps({"hooks": hooks}))
    repl = PtyRepl(workspace, anthropic_only(home))
    try:
        repl.wait_for("> ")
        repl.send("/hooks\r")
        repl.wait_for("edit the `hooks`")
        screen = repl.screen
        for line in (
            "PreToolUse",
            "  [Bash] command: echo pre",
            "Stop",
            "  [*] command: echo stopped",
        ):
            assert line in screen, screen
        assert screen.count(str(settings)) == 2, screen
    finally:
        repl.close()


def test_output_style_lists_the_styles_and_saves_a_choice(
    model_env: FakeModelServer, workspace: Path, home: Path
) -> None:
    styles = home / ".claude" / "output-styles"
    styles.mkdir(parents=True)
    (styles / "pirate.md").write_text("---\nname: Pirate\ndescription: arr matey\n---\nARR\n")
    repl = PtyRepl(workspace, anthropic_only(home))
    try:
        repl.wait_for("> ")
        repl.send("/output-style\r")
        repl.wait_for("arr matey")
        assert "Explanatory" in repl.screen
        assert "Learning" in repl.screen
        repl.send("/output-style pirate\r")
        repl.wait_for("in force from /clear;")
        saved = json.loads((workspace / ".claude" / "settings.local.json").read_text())
        assert saved == {"outputStyle": "Pirate"}
    finally:
        repl.close()
