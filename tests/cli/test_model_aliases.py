"""Claude Code's model aliases (`opus`, `sonnet`, `haiku`) name the newest model of each family
on Anthropic, wherever a model is chosen; with no Anthropic key they are not sent to an
OpenAI-compatible endpoint that would not know them."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tether.testing import FakeModelServer, reply, text
from tether.testing.cli_runner import CliResult


@pytest.mark.parametrize(
    ("alias", "model_id"),
    [("opus", "claude-opus-5-5"), ("sonnet", "claude-sonnet-5-5"), ("haiku", "claude-haiku-5-5")],
)
def test_an_alias_on_the_command_line_asks_anthropic_for_its_model(
    model_env: FakeModelServer, tether: Callable[..., CliResult], alias: str, model_id: str
) -> None:
    model_env.script(reply(text("hi")))
    result = tether("-p", "hi", "--model", alias)
    assert result.exit_code == 0, result.stderr
    assert [r.body["model"] for r in model_env.requests] == [model_id]


def test_opusplan_plans_with_opus_and_works_with_sonnet(
    model_env: FakeModelServer, tether: Callable[..., CliResult]
) -> None:
    """As Claude Code's `opusplan`: Opus answers while the session is in plan mode, Sonnet in
    any other mode, the session's model being Sonnet's."""
    model_env.script(reply(text("a plan")))
    planned = tether("-p", "plan it", "--model", "opusplan", "--permission-mode", "plan")
    assert planned.exit_code == 0, planned.stderr
    model_env.script(reply(text("done")))
    worked = tether("-p", "do it", "--model", "opusplan", "--output-format", "json")
    assert worked.exit_code == 0, worked.stderr
    assert [r.body["model"] for r in model_env.requests] == ["claude-opus-5-5", "claude-sonnet-5-5"]


@pytest.mark.parametrize("configured", [None, "claude-haiku-5-5"])
def test_default_is_the_model_tether_runs_without_one(
    model_env: FakeModelServer,
    tether: Callable[..., CliResult],
    monkeypatch: pytest.MonkeyPatch,
    configured: str | None,
) -> None:
    """`--model default` (Claude Code's alias) is the model chosen when none is named:
    `TETHER_MODEL`, else tether's own default."""
    if configured is not None:
        monkeypatch.setenv("TETHER_MODEL", configured)
    model_env.script(reply(text("hi")))
    result = tether("-p", "hi", "--model", "default")
    assert result.exit_code == 0, result.stderr
    assert [r.body["model"] for r in model_env.requests] == [configured or "claude-sonnet-5-5"]


def test_an_alias_in_the_settings_asks_anthropic_for_its_model(
    model_env: FakeModelServer, tether: Callable[..., CliResult], tmp_path: Path
) -> None:
    (tmp_path / "home" / "settings.json").write_text(json.dumps({"model": "haiku"}))
    model_env.script(reply(text("hi")))
    result = tether("-p", "hi")
    assert result.exit_code == 0, result.stderr
    assert [r.body["model"] for r in model_env.requests] == ["claude-haiku-5-5"]


def test_without_an_anthropic_key_an_alias_says_so(
    model_env: FakeModelServer,
    tether: Callable[..., CliResult],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    result = tether("-p", "hi", "--model", "opus")
    assert result.exit_code == 2
    assert result.stderr == (
        "tether: Model 'opus' is Claude Code's alias for claude-opus-5-5, on Anthropic: set "
        "ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN), or name a model of another provider as "
        "provider/model (for example openai/<model> for OPENAI_BASE_URL).\n"
    )
    assert model_env.requests == []
