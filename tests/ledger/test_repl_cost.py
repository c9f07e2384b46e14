"""`/cost` in the REPL: the session's totals, then its breakdown from the ledger."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.repl_terminal import AfterTurn, Terminal
from tether.cli.setup import RunOptions
from tether.testing import FakeModelServer, reply, text, tool_use

# The usage given whole: the fake server's simulated cache would otherwise split the input by
# the request's size, which every new built-in tool changes.
NO_CACHE = {"cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}


@pytest.fixture
def terminal() -> Terminal:
    return Terminal()


async def test_cost_shows_the_sessions_tools_and_models(
    model_env: FakeModelServer, workspace: Path, terminal: Terminal
) -> None:
    model_env.script(
        reply(
            tool_use("Bash", command="echo one"),
            tool_use("Bash", command="echo two"),
            usage={"input_tokens": 1000, "output_tokens": 200, **NO_CACHE},
        ),
        reply(text("both ran"), usage={"input_tokens": 1500, "output_tokens": 10, **NO_CACHE}),
    )
    options = RunOptions(cwd=workspace, permission_mode="bypassPermissions")
    code = await terminal.type_steps(
        workspace, "run both\r", AfterTurn("/cost\r/quit\r"), options=options
    )
    assert code == 0
    out = terminal.output
    # Each call: half of 200 output tokens at $10/M, and its result's few tokens after.
    full = "█" * 24
    assert f"By tool:\n  Bash     2 calls  $0.0020  {full}\n" in out
    # 2,500 input tokens at $2/M and 210 output tokens at $10/M, as Claude Code's /cost says it.
    usage = "claude-sonnet-5-5:  2.5k input, 210 output, 0 cache read, 0 cache write ($0.0071)"
    assert f"Usage by model:\n  {usage}\nBy tool:" in out
    assert "By agent" not in out  # no subagent worked
