"""The window assumed for a model is Claude Code's: 200k unless the user opts in to 1M with a
`[1m]` suffix. Against an endpoint that serves 200k, no request over it is ever sent."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tether.testing import FakeModelServer, reply, text, tool_use
from tether.testing.cli_runner import CliResult
from tether.testing.tokens import estimate_prompt_tokens

from .test_window_over_wire import answers_then_summaries

Run = Callable[..., CliResult]


@pytest.mark.parametrize("model", [[], ["--model", "openai/gpt-5"]], ids=["default", "gpt-5"])
def test_a_large_tool_input_never_sends_a_request_over_a_200k_window(
    fake_model: FakeModelServer, tether: Run, workspace: Path, model: list[str]
) -> None:
    # The catalogue gives the default model 1M (gpt-5 400k): a 2 MB Write input made the next
    # request about 500k tokens, sent to a 200k endpoint and refused once, live and on `-c`.
    assert fake_model.context_window == 200_000
    content = "y" * 2_000_000
    fake_model.script(reply(tool_use("Write", file_path="w.txt", content=content)))
    fake_model.script(*[answers_then_summaries("written", "still here")] * 6)  # type: ignore[list-item]
    first = tether("-p", "write it", *model)
    assert (first.exit_code, first.stdout) == (0, "written\n"), first.stderr
    assert (workspace / "w.txt").read_text() == content
    again = tether("-c", "-p", "and now?", *model)
    assert (again.exit_code, again.stdout) == (0, "still here\n"), again.stderr
    assert fake_model.rejections == []
    assert max(estimate_prompt_tokens(r.body) for r in fake_model.requests) <= 200_000


def test_the_1m_suffix_asks_for_the_1m_window_as_claude_code_does(
    fake_model: FakeModelServer, tether: Run
) -> None:
    fake_model.context_window = 1_000_000
    fake_model.script(text("long"), text("plain"))
    assert tether("-p", "hi", "--model", "sonnet[1m]").stdout == "long\n"
    assert tether("-p", "hi", "--model", "sonnet").stdout == "plain\n"
    long, plain = fake_model.requests
    assert long.body["model"] == plain.body["model"] == "claude-sonnet-5-5"
    assert "context-1m" in long.headers.get("anthropic-beta", "")
    assert "context-1m" not in plain.headers.get("anthropic-beta", "")
