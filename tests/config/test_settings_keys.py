"""Settings mistakes are told, not ignored: a misspelled top-level key is warned about with the
nearest known key, and a known key with a wrongly typed value is left out naming both."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tether.testing import FakeModelServer, reply, text, tool_use
from tether.testing.cli_runner import CliResult

Run = Callable[..., CliResult]
_IGNORED = "ignored, as if the file did not set it"


def _settings(workspace: Path, data: object) -> Path:
    (workspace / ".claude").mkdir()
    path = workspace / ".claude" / "settings.json"
    path.write_text(json.dumps(data))
    return path


def test_a_misspelled_key_is_one_warning_naming_the_nearest(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    path = _settings(workspace, {"permisions": {"deny": ["Bash"]}})
    fake_model.script(reply(text("hello")))
    result = tether("-p", "hi")
    assert (result.exit_code, result.stdout) == (0, "hello\n")
    assert result.stderr == (
        f'tether: warning: settings file {path}: unknown key "permisions" '
        '(did you mean "permissions"?); ignored\n'
    )


def test_claude_codes_own_keys_are_not_warned_about(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    # Listed ones, and ones no list here keeps up with (nothing like a key tether reads).
    listed = {"$schema": "x", "cleanupPeriodDays": 20, "includeCoAuthoredBy": False}
    _settings(workspace, {**listed, "autoCompactWindow": "auto", "advisorModel": "x"})
    fake_model.script(reply(text("hello")))
    result = tether("-p", "hi")
    assert (result.exit_code, result.stderr) == (0, "")


@pytest.mark.parametrize(
    ("key", "value", "wanted"),
    [
        ("model", 42, "a string, not a number (42)"),
        (
            "contextWindow",
            True,
            "a whole number of tokens from 1,024 to 10,000,000, not true or false (true)",
        ),
    ],
)
def test_a_wrongly_typed_value_is_left_out_naming_file_and_key_and_the_rest_holds(
    fake_model: FakeModelServer, tether: Run, workspace: Path, key: str, value: object, wanted: str
) -> None:
    """The user is told which key of which file and why; the file's other keys are in effect
    (the whole file was dropped before, its deny rules with it)."""
    path = _settings(workspace, {key: value, "env": {"FROM_SKIPPED": "1"}})
    fake_model.script(
        reply(tool_use("Bash", command="echo ${FROM_SKIPPED:-unset}")), reply(text("ran"))
    )
    result = tether("-p", "hi", "--allowedTools", "Bash", "--trust-workspace")
    assert (result.exit_code, result.stdout) == (0, "ran\n"), result.stderr
    assert result.stderr == (
        f'tether: warning: settings file {path}: "{key}" must be {wanted}; ignored, as if '
        "the file did not set it; the rest of the file is in effect\n"
    )
    assert fake_model.requests[1].tool_results() == ["1"]


def test_settings_given_on_the_command_line_are_checked_too(
    fake_model: FakeModelServer, tether: Run
) -> None:
    fake_model.script(reply(text("hello")))
    result = tether("-p", "hi", "--settings", '{"modle": "x"}')
    assert result.exit_code == 0
    assert 'unknown key "modle" (did you mean "model"?)' in result.stderr


@pytest.mark.parametrize(
    ("raw", "name", "wanted"),
    [
        (
            '{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true", '
            '"timeout": 1e400}]}]}}',
            "hooks.Stop[0].hooks[0].timeout",
            "a number of seconds from 0.001 to 86,400, not Infinity; " + _IGNORED,
        ),
        (
            '{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", '
            '"command": "x"}, {"type": "command", "command": "y", "timeout": 1e300}]}]}}',
            "hooks.PreToolUse[0].hooks[1].timeout",
            "a number of seconds from 0.001 to 86,400, not 1e+300; " + _IGNORED,
        ),
        (
            '{"webhooks": [{"url": "http://127.0.0.1:9/", "events": ["context_compacted"], '
            '"queue": 2.5}]}',
            "webhooks[0].queue",
            "a whole number of events from 1 to 10,000,000, not 2.5; " + _IGNORED,
        ),
    ],
)
def test_a_nested_number_out_of_its_range_is_an_error_naming_its_place(
    fake_model: FakeModelServer, tether: Run, workspace: Path, raw: str, name: str, wanted: str
) -> None:
    """Numbers inside lists and objects (a hook's timeout, a webhook's queue) are checked
    against the same range table as top-level ones, naming the very entry."""
    path = _settings(workspace, {})
    path.write_text(raw)
    fake_model.script(reply(text("ran")))
    result = tether("-p", "hi", "--trust-workspace")
    assert (result.exit_code, result.stdout) == (0, "ran\n"), result.stderr
    assert result.stderr == (
        f'tether: warning: settings file {path}: "{name}" must be {wanted}; the rest of '
        "the file is in effect\n"
    )
