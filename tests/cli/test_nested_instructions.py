"""A subdirectory's CLAUDE.md reaches the model the first time it reads a file there, once."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tether.testing import FakeModelServer, reply, text, tool_use
from tether.testing.cli_runner import CliResult

Run = Callable[..., CliResult]


@pytest.mark.usefixtures("trusted_workspace")
def test_a_subdirectorys_claude_md_is_told_after_the_first_read_there_once(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    (workspace / "CLAUDE.md").write_text("Root rules.\n")
    api = workspace / "src" / "api"
    api.mkdir(parents=True)
    (workspace / "src" / "CLAUDE.md").write_text("Source rules: type everything.\n")
    (api / "CLAUDE.md").write_text("API rules: version every route.\n")
    (api / "a.py").write_text("a = 1\n")
    (api / "b.py").write_text("b = 2\n")
    (workspace / "top.py").write_text("t = 0\n")
    fake_model.script(
        reply(tool_use("Read", file_path="top.py")),
        reply(tool_use("Read", file_path="src/api/a.py")),
        reply(tool_use("Read", file_path="src/api/b.py")),
        reply(text("done")),
    )
    result = tether("-p", "read them")
    assert result.exit_code == 0, result.stderr

    first, after_top, after_a, after_b = fake_model.requests
    assert "Root rules." in str(first.body["system"])
    assert "API rules" not in str(first.body)
    assert "Source rules" not in str(after_top.messages()[-1])
    told = str(after_a.messages()[-1]["content"])
    assert "Contents of src/CLAUDE.md" in told
    assert "type everything" in told
    assert "Contents of src/api/CLAUDE.md" in told
    assert "version every route" in told
    # Once per session: the second read in the same directory brings nothing new.
    assert "API rules" not in str(after_b.messages()[-1]["content"])
    assert str(after_b.body).count("version every route") == 1
