"""Error results beside Claude Code's own, field for field (as test_claude_code_reference does
for a run that succeeds): the turn limit, the budget, and an API error, each run through the
SDK against the bundled Claude Code CLI and against tether on the fake model server. tether's
result has only fields Claude Code's has, and the fields a program branches on are equal."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

import pytest

from tests.cli.sdk_harness import SdkRun
from tests.cli.test_claude_code_reference import BUNDLED, TETHER_ONLY, claude_code
from tether.testing import FakeModelServer, http_error, reply, text, tool_use

SAME = ("type", "subtype", "is_error", "num_turns", "stop_reason", "terminal_reason", "errors")
"""What a program reads to learn why the run ended."""

CASES: dict[str, tuple[list[Any], dict[str, Any]]] = {
    "max_turns": (
        [
            reply(text("look"), tool_use("Bash", command="echo 1")),
            reply(text("more"), tool_use("Bash", command="echo 2")),
            reply(text("done")),
        ],
        {"max_turns": 1},
    ),
    "budget": (
        [
            reply(
                text("look"),
                tool_use("Bash", command="echo 1"),
                usage={"input_tokens": 500000, "output_tokens": 1000},
            ),
            reply(text("more"), tool_use("Bash", command="echo 2")),
            reply(text("done")),
        ],
        {"max_budget_usd": 0.0001},
    ),
    "api_error": (
        [http_error(529, "Overloaded", "overloaded_error")] * 2,
        {"env": {"CLAUDE_CODE_MAX_RETRIES": "0", "TETHER_MAX_RETRIES": "0"}},
    ),
}


def _result(lines: list[dict[str, Any]]) -> dict[str, Any]:
    [result] = [line for line in lines if line["type"] == "result"]
    return result


@pytest.mark.skipif(not BUNDLED.exists(), reason="this claude-agent-sdk wheel bundles no CLI")
@pytest.mark.parametrize("case", list(CASES))
async def test_error_results_are_claude_codes(
    model_env: FakeModelServer, workspace: Path, home: Path, tmp_path: Path, case: str
) -> None:
    script, options = CASES[case]
    options = {"model": "claude-sonnet-4-5", **options}
    model_env.script(*script)
    run = SdkRun(workspace, home)
    with contextlib.suppress(Exception):  # the SDK raises on an error result, as on Claude Code's
        await run.query("go", permission_mode="bypassPermissions", **options)
    ours = _result(run.lines())
    model_env.script(*script)
    theirs = _result((await claude_code("go", workspace, tmp_path, **options)).lines)

    extra = set(ours) - set(theirs) - TETHER_ONLY
    assert not extra, f"fields Claude Code does not write: {sorted(extra)}"
    assert {k: ours.get(k) for k in SAME} == {k: theirs.get(k) for k in SAME}
