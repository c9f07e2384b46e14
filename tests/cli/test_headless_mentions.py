"""`@path` in a headless prompt (`-p`, an SDK program's message) reads the file into the
message with the Read tool, as Claude Code does on those paths (its requests on the fake
server hold the file after `claude -p "explain @src/a.py"`), through the session's rules."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.cli.sdk_harness import SdkRun
from tether.testing import FakeModelServer, reply, text
from tether.testing.cli_runner import CliResult

Run = Callable[..., CliResult]


def sources(workspace: Path) -> None:
    (workspace / "src").mkdir()
    (workspace / "src" / "a.py").write_text("A_CONTENT = 1\n")
    (workspace / "secret.env").write_text("TOKEN=hidden-value\n")


def test_a_mentioned_file_is_read_into_a_p_prompt(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    sources(workspace)
    fake_model.script(reply(text("It sets A_CONTENT.")))

    result = tether("-p", "explain @src/a.py, and mail me@example.com about @missing.py")

    assert result.exit_code == 0, result.stderr
    content = fake_model.requests[0].messages()[-1]["content"]
    said = [block["text"] for block in content]
    assert said[-3] == "explain @src/a.py, and mail me@example.com about @missing.py"
    assert "Called the Read tool" in said[-2]
    assert str(workspace / "src" / "a.py") in said[-2]
    assert "A_CONTENT = 1" in said[-1]
    assert "missing.py" not in "".join(said[-2:])  # a mention that names no file stays text
    assert "It sets A_CONTENT." in result.stdout


def test_a_mention_a_deny_rule_covers_is_not_read(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    sources(workspace)
    fake_model.script(reply(text("ok")))

    result = tether("-p", "what is in @secret.env", "--disallowedTools", "Read(./secret.env)")

    assert result.exit_code == 0, result.stderr
    assert "hidden-value" not in str(fake_model.requests[0].body)
    assert "Error from calling the Read tool" in str(fake_model.requests[0].body)


async def test_an_sdk_programs_message_has_its_mentions_read(
    model_env: FakeModelServer, workspace: Path, home: Path
) -> None:
    sources(workspace)
    model_env.script(reply(text("It sets A_CONTENT.")))

    await SdkRun(workspace, home).query("explain @src/a.py", permission_mode="default")

    content = model_env.requests[0].messages()[-1]["content"]
    assert "explain @src/a.py" in content[-3]["text"]
    assert "A_CONTENT = 1" in content[-1]["text"]
