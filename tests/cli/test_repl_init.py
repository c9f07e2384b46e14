"""`/init`: the model is asked to study the repository and write its CLAUDE.md, and the file is
written by its Write call, as in Claude Code; in the REPL (on a real terminal) and in `-p`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.cli.pty_terminal import PtyRepl
from tests.cli.test_repl_commands import TURN_END, anthropic_only
from tether.testing import FakeModelServer, reply, text, tool_use
from tether.testing.cli_runner import CliResult

WRITTEN = "# CLAUDE.md\n\nThis file provides guidance to coding agents.\n\n## Commands\n- make\n"


@pytest.mark.timeout(90)
def test_init_in_the_repl_asks_the_model_and_its_write_makes_the_file(
    model_env: FakeModelServer, workspace: Path, home: Path
) -> None:
    (workspace / "README.md").write_text("A tiny project. Build with make.\n")
    model_env.script(
        reply(tool_use("Read", file_path=str(workspace / "README.md"))),
        reply(tool_use("Write", file_path="CLAUDE.md", content=WRITTEN)),
        reply(text("Wrote CLAUDE.md.")),
    )
    repl = PtyRepl(workspace, anthropic_only(home))
    try:
        repl.wait_for("> ")
        repl.send("/init\r")
        repl.wait_for("press 1, 2 or 3")  # the Write is asked about like any change
        repl.send("1\r")
        repl.wait_for(TURN_END)
    finally:
        repl.close()
    assert "Created CLAUDE.md +" in repl.screen  # a new file, not "Updated"
    sent = model_env.requests[0].last_user_text()
    assert f"write a CLAUDE.md file at {workspace.resolve() / 'CLAUDE.md'}" in sent
    assert "README" in sent
    assert "If a CLAUDE.md is already there, improve it" in sent
    assert (workspace / "CLAUDE.md").read_text() == WRITTEN
    assert model_env.requests[2].tool_result_errors() == [False]


def test_init_headless_sends_the_request_with_what_the_user_added(
    fake_model: FakeModelServer, tether: Callable[..., CliResult], trusted_workspace: Path
) -> None:
    fake_model.script(
        reply(tool_use("Write", file_path="CLAUDE.md", content=WRITTEN)),
        reply(text("Done.")),
    )
    result = tether("-p", "/init focus on the tests", "--permission-mode", "acceptEdits")
    assert result.exit_code == 0, result.stderr
    sent = fake_model.requests[0].last_user_text()
    assert "Please analyse this repository and write a CLAUDE.md file" in sent
    assert sent.rstrip().endswith("The user added: focus on the tests")
    assert (trusted_workspace / "CLAUDE.md").read_text() == WRITTEN
