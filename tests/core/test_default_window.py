"""The window assumed for a model is Claude Code's: 1M for the models the API serves 1M
without a beta, 200k for the others, unless the user opts in to 1M with a `[1m]` suffix;
another provider's model its API's. Against an endpoint that serves that window, no request
over it is ever sent."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tether.testing import FakeModelServer, reply, text, tool_use
from tether.testing.cli_runner import CliResult
from tether.testing.tokens import estimate_prompt_tokens

from .test_window_over_wire import answers_then_summaries

Run = Callable[..., CliResult]


@pytest.mark.parametrize(
    ("model", "window"),
    [(["--model", "claude-sonnet-4-6"], 200_000), (["--model", "openai/gpt-5"], 400_000)],
    ids=["sonnet-4-6", "gpt-5"],
)
def test_a_large_tool_input_never_sends_a_request_over_the_window(
    fake_model: FakeModelServer, tether: Run, workspace: Path, model: list[str], window: int
) -> None:
    # A 2 MB Write input made the next request about 500k tokens, sent to an endpoint of a
    # smaller window and refused once, live and on `-c`.
    fake_model.context_window = window
    content = "y" * 2_000_000
    fake_model.script(reply(tool_use("Write", file_path="w.txt", content=content)))
    fake_model.script(*[answers_then_summaries("written", "still here")] * 6)  # type: ignore[list-item]
    first = tether("-p", "write it", *model)
    assert (first.exit_code, first.stdout) == (0, "written\n"), first.stderr
    assert (workspace / "w.txt").read_text() == content
    again = tether("-c", "-p", "and now?", *model)
    assert (again.exit_code, again.stdout) == (0, "still here\n"), again.stderr
    assert fake_model.rejections == []
    assert max(estimate_prompt_tokens(r.body) for r in fake_model.requests) <= window


def test_the_1m_suffix_asks_for_the_1m_window_as_claude_code_does(
    fake_model: FakeModelServer, tether: Run
) -> None:
    fake_model.context_window = 1_000_000
    fake_model.script(text("long"), text("plain"))
    assert tether("-p", "hi", "--model", "claude-sonnet-4-6[1m]").stdout == "long\n"
    assert tether("-p", "hi", "--model", "claude-sonnet-4-6").stdout == "plain\n"
    long, plain = fake_model.requests
    assert long.body["model"] == plain.body["model"] == "claude-sonnet-4-6"
    assert "context-1m" in long.headers.get("anthropic-beta", "")
    assert "context-1m" not in plain.headers.get("anthropic-beta", "")
