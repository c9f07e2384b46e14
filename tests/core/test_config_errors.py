"""What the user sees when tether cannot reach or use a model: one line, no traceback."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tether.testing import FakeModelServer, reply, text
from tether.testing.cli_runner import CliResult

Run = Callable[..., CliResult]


def test_no_key_says_what_to_set_and_exits_2(tether: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    result = tether("-p", "hi")
    assert result.exit_code == 2
    assert "ANTHROPIC_API_KEY" in result.stderr
    assert "Traceback" not in result.stderr


def test_unreachable_endpoint_is_one_line(
    tether: Run, monkeypatch: pytest.MonkeyPatch, refused_port: int
) -> None:
    port = refused_port
    monkeypatch.setenv("ANTHROPIC_BASE_URL", f"http://127.0.0.1:{port}")
    monkeypatch.setenv("TETHER_RETRY_DELAY_MS", "1")
    result = tether("-p", "hi")
    assert result.exit_code == 1
    assert f"127.0.0.1:{port}" in result.stderr
    assert len(result.stderr.strip().splitlines()) <= 4
    assert "Traceback" not in result.stderr


def test_bad_key_is_one_line(
    fake_model: FakeModelServer, tether: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TETHER_RETRY_DELAY_MS", "1")  # a 401 is retried, as Claude Code does
    fake_model.api_key = "the-right-key"
    fake_model.expect_rejections = True
    fake_model.script(reply(text("never")))
    result = tether("-p", "hi")
    assert result.exit_code == 1
    assert len(fake_model.requests) == 11  # the first call and its ten retries
    assert "ANTHROPIC_API_KEY" in result.stderr
    assert "Traceback" not in result.stderr


def test_broken_settings_file_names_the_spot(tether: Run, workspace: Path) -> None:
    (workspace / ".tether").mkdir()
    (workspace / ".tether" / "settings.json").write_text('{"model": "x",\n  oops}')
    result = tether("-p", "hi")
    assert result.exit_code == 2
    assert "settings.json is not valid JSON" in result.stderr
    assert "line 2" in result.stderr


def test_a_control_character_in_a_settings_file_is_named_once(tether: Run, workspace: Path) -> None:
    (workspace / ".tether").mkdir()
    settings = workspace / ".tether" / "settings.json"
    settings.write_text('{"model": "a\x01b"}')
    result = tether("-p", "hi")
    assert result.exit_code == 2
    assert result.stderr == (
        f"tether: settings file {settings} is not valid JSON: Invalid control character at "
        "line 1, column 13\n"
    )


def test_model_from_settings_and_env_precedence(
    fake_model: FakeModelServer, tether: Run, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (workspace / ".claude").mkdir()
    (workspace / ".claude" / "settings.json").write_text('{"model": "claude-haiku-4-5"}')
    fake_model.script(reply(text("a")), reply(text("b")), reply(text("c")))
    tether("-p", "hi")
    monkeypatch.setenv("TETHER_MODEL", "claude-opus-4-5")
    tether("-p", "hi")
    tether("-p", "hi", "--model", "claude-sonnet-4-5")
    assert [r.body["model"] for r in fake_model.requests] == [
        "claude-haiku-4-5",
        "claude-opus-4-5",
        "claude-sonnet-4-5",
    ]


def test_output_cap_for_small_local_servers(
    fake_model: FakeModelServer, tether: Run, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_model.script(reply(text("a")), reply(text("b")))
    monkeypatch.setenv("TETHER_MAX_OUTPUT_TOKENS", "2048")
    tether("-p", "hi", "--model", "openai/some-local-model")
    monkeypatch.delenv("TETHER_MAX_OUTPUT_TOKENS")
    (workspace / ".tether").mkdir()
    (workspace / ".tether" / "settings.json").write_text('{"maxOutputTokens": 1024}')
    tether("-p", "hi")
    assert fake_model.requests[0].body["max_completion_tokens"] == 2048
    assert fake_model.requests[1].body["max_tokens"] == 1024


def test_bad_output_cap_is_a_config_error(tether: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TETHER_MAX_OUTPUT_TOKENS", "lots")
    result = tether("-p", "hi")
    assert result.exit_code == 2
    assert (
        "TETHER_MAX_OUTPUT_TOKENS must be a whole number of tokens from 1 to 1,000,000, not "
        '"lots"' in result.stderr
    )


@pytest.mark.parametrize(
    ("key", "value", "said"),
    [
        ("contextWindow", "-5", "a whole number of tokens from 1,024 to 10,000,000, not -5"),
        ("contextWindow", "0", "a whole number of tokens from 1,024 to 10,000,000, not 0"),
        ("contextWindow", "1", "a whole number of tokens from 1,024 to 10,000,000, not 1"),
        ("contextWindow", "1e300", "a whole number of tokens from 1,024 to 10,000,000, not a"),
        ("contextWindow", "true", "a whole number of tokens from 1,024 to 10,000,000, not true"),
        ("contextWindow", "16000.5", "a whole number of tokens from 1,024 to 10,000,000, not a"),
        ("maxOutputTokens", "10000000000", "a whole number of tokens from 1 to 1,000,000, not"),
        ("tether.modelIdleTimeoutMs", "-1", "a number of milliseconds from 1 to 86,400,000"),
        ("tether.subagents.maxDepth", "100000", "a whole number of levels from 1 to 100, not"),
        ("tether.mcp.toolTimeoutMs", "1e999", "a number of milliseconds from 1 to 86,400,000"),
    ],
)
def test_a_number_setting_out_of_range_names_key_file_and_range(
    fake_model: FakeModelServer, tether: Run, workspace: Path, key: str, value: str, said: str
) -> None:
    # A window of -5 was silently ignored; 1 sent a request anyway; every numeric key alike.
    # The key that does not validate is left out, said, and the run goes on with the rest.
    *outer, last = key.split(".")
    body = f'{{"{last}": {value}}}'
    for name in reversed(outer):
        body = f'{{"{name}": {body}}}'
    path = workspace / ".tether" / "settings.json"
    path.parent.mkdir()
    path.write_text(body)
    fake_model.script(reply(text("ran")))
    result = tether("-p", "hi")
    assert (result.exit_code, result.stdout) == (0, "ran\n"), result.stderr
    [warning] = result.stderr.splitlines()
    assert warning.startswith(f'tether: warning: settings file {path}: "{key}" must be {said}')
    assert warning.endswith(
        "; ignored, as if the file did not set it; the rest of the file is in effect"
    )


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("TETHER_CONTEXT_WINDOW", "1"),
        ("TETHER_CONTEXT_WINDOW", "9" * 5000),
        ("TETHER_MAX_OUTPUT_TOKENS", "0"),
        ("TETHER_MODEL_IDLE_TIMEOUT_MS", "1e400"),
        ("TETHER_RETRY_DELAY_MS", "-1"),
    ],
)
def test_a_number_variable_out_of_range_names_it_and_the_range(
    fake_model: FakeModelServer, tether: Run, monkeypatch: pytest.MonkeyPatch, name: str, value: str
) -> None:
    monkeypatch.setenv(name, value)
    result = tether("-p", "hi")
    assert (result.exit_code, fake_model.requests) == (2, [])
    assert result.stderr.startswith(f"tether: {name} must be a "), result.stderr
    assert " from " in result.stderr
    assert len(result.stderr.splitlines()) == 1, result.stderr


def test_a_settings_number_too_long_to_read_is_named_not_a_traceback(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    path = workspace / ".tether" / "settings.json"
    path.parent.mkdir()
    path.write_text('{"contextWindow": ' + "9" * 5000 + "}")
    result = tether("-p", "hi")
    assert (result.exit_code, fake_model.requests) == (2, [])
    assert result.stderr == (
        f"tether: settings file {path} is not valid JSON: a number of 5,000 digits, too long "
        "to read at line 1, column 19\n"
    )
