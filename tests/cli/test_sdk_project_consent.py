"""An untrusted workspace's own files under the real Claude Agent SDK: `setting_sources`
naming `project` (or `local`) is the program's consent to them for that run, so a project
PreToolUse hook denies a call as it does under Claude Code; without it, stream-json in an
untrusted workspace runs none of them and says why."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.sdk_harness import SdkRun, result_of
from tether.testing import FakeModelServer, reply, text, tool_use

DENY = {
    "hookSpecificOutput": {
        "hookEventName": "PreToolUse",
        "permissionDecision": "deny",
        "permissionDecisionReason": "the project forbids it",
    }
}


@pytest.fixture
def project_deny_hook(workspace: Path) -> Path:
    """A project PreToolUse hook on Bash that denies the call and leaves a mark when run."""
    mark = workspace / "hook-ran"
    hook = {"type": "command", "command": f"touch {mark}; echo '{json.dumps(DENY)}'"}
    settings = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [hook]}]}}
    (workspace / ".claude").mkdir()
    (workspace / ".claude" / "settings.json").write_text(json.dumps(settings))
    return mark


@pytest.mark.parametrize("sources", [["project"], ["local"], ["user", "project", "local"]])
async def test_setting_sources_naming_the_project_runs_its_deny_hook(
    sdk: SdkRun,
    fake_model: FakeModelServer,
    workspace: Path,
    project_deny_hook: Path,
    sources: list[str],
) -> None:
    fake_model.script(reply(tool_use("Bash", command="touch forbidden")), reply(text("ok")))
    messages = await sdk.query(
        "go",
        setting_sources=sources,
        allowed_tools=["Bash"],
        permission_mode="acceptEdits",
    )
    result_of(messages)
    if sources == ["local"]:
        # The project's settings file is not of the local source: not read, so not run.
        assert not project_deny_hook.exists()
        assert (workspace / "forbidden").exists()
    else:
        assert project_deny_hook.exists()
        assert not (workspace / "forbidden").exists()
        answered = fake_model.requests[1].body["messages"][-1]["content"][0]
        assert answered["is_error"] is True
        assert "the project forbids it" in json.dumps(answered["content"])
    # The consent is said where the untrusted warning would be.
    consent = [line for line in sdk.stderr if "consents to its files for this run" in line]
    assert consent, sdk.stderr
    assert "--setting-sources" in consent[0]
    assert not any("is not trusted: skipped" in line for line in sdk.stderr)
    sdk.assert_lines_parse()


async def test_without_setting_sources_the_untrusted_project_hook_is_not_run(
    sdk: SdkRun, fake_model: FakeModelServer, workspace: Path, project_deny_hook: Path
) -> None:
    fake_model.script(reply(tool_use("Bash", command="touch allowed")), reply(text("ok")))
    await sdk.query("go", allowed_tools=["Bash"], permission_mode="acceptEdits")
    assert not project_deny_hook.exists()
    assert (workspace / "allowed").exists()
    assert any("is not trusted: skipped 1 hook" in line for line in sdk.stderr), sdk.stderr
    assert not any("consents" in line for line in sdk.stderr)


async def test_setting_sources_naming_only_the_user_does_not_consent(
    sdk: SdkRun, fake_model: FakeModelServer, workspace: Path, project_deny_hook: Path
) -> None:
    fake_model.script(reply(tool_use("Bash", command="touch allowed")), reply(text("ok")))
    await sdk.query(
        "go", setting_sources=["user"], allowed_tools=["Bash"], permission_mode="acceptEdits"
    )
    assert not project_deny_hook.exists()
    assert (workspace / "allowed").exists()
    assert not any("consents" in line for line in sdk.stderr)
