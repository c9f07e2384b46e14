"""A tool whose own setup fails (its scratch directory, a background command's log) answers
the model with an error result; the turn goes on. A fault tether does not know in a tool is
said once, not once by the tool's batch and again by the turn."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from tether.testing import FakeModelServer, reply, text, tool_use
from tether.testing.cli_runner import CliResult


@pytest.mark.parametrize("background", [False, True])
@pytest.mark.parametrize("sandbox", [True, False])
def test_scratch_a_file_is_the_bash_calls_error(
    fake_model: FakeModelServer,
    tether: Callable[..., CliResult],
    background: bool,
    sandbox: bool,
) -> None:
    scratch = Path(os.environ["TETHER_HOME"]) / "scratch"
    scratch.write_text("not a directory\n")
    fake_model.script(
        reply(tool_use("Bash", command="echo hi", run_in_background=background)), text("done")
    )
    settings = '{"sandbox": {"enabled": %s}}' % ("true" if sandbox else "false")
    result = tether("-p", "go", "--settings", settings)
    assert result.exit_code == 0, result.stderr
    assert "internal error" not in result.stderr
    assert result.stdout.strip() == "done"
    [answer] = fake_model.requests[1].tool_results()
    assert fake_model.requests[1].tool_result_errors() == [True]
    assert "a parent of the path is not a directory" in answer, answer


def test_an_internal_error_in_a_tool_is_printed_once(
    fake_model: FakeModelServer,
    tether: Callable[..., CliResult],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from tether.tools import registry

    async def broken(*args: object, **kwargs: object) -> object:
        raise RuntimeError("a fault in a tool")

    monkeypatch.setattr(registry.ToolRegistry, "_run", broken)
    fake_model.script(reply(tool_use("Bash", command="echo hi")), text("done"))
    result = tether("-p", "go")
    assert result.exit_code == 1
    assert result.stderr.count("a fault in a tool") == 1, result.stderr
