"""`setting_sources` over the wire with the real Claude Agent SDK: every kind of file a session
reads (settings, instructions, skills, agents, the memory file) comes only from the sources
asked for; `[]` reads none of them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from claude_agent_sdk import SystemMessage

from tests.cli.sdk_harness import SdkRun
from tether.testing import FakeModelServer, reply, text

MARKERS = {
    "user": ("USER-INSTRUCTIONS", "user-skill", "user-agent", "USER-DENY"),
    "project": (
        "PROJECT-INSTRUCTIONS",
        "AGENTS-INSTRUCTIONS",
        "project-skill",
        "project-agent",
        "PROJECT-MEMORY",
        "PROJECT-DENY",
    ),
    "local": ("LOCAL-INSTRUCTIONS", "LOCAL-DENY"),
}


def _skill(root: Path, name: str) -> None:
    (root / name).mkdir(parents=True)
    (root / name / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: The {name} skill.\n---\nDo {name} things.\n"
    )


def _agent(root: Path, name: str) -> None:
    root.mkdir(parents=True, exist_ok=True)
    (root / f"{name}.md").write_text(
        f"---\nname: {name}\ndescription: The {name} agent.\n---\nYou are {name}.\n"
    )


def _deny(path: Path, marker: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"permissions": {"deny": [f"Bash(echo {marker})"]}}))


@pytest.fixture
def files_of_every_source(workspace: Path, home: Path) -> None:
    (home / ".claude").mkdir()
    (home / ".claude" / "CLAUDE.md").write_text("USER-INSTRUCTIONS\n")
    _skill(home / ".claude" / "skills", "user-skill")
    _agent(home / ".claude" / "agents", "user-agent")
    _deny(home / ".claude" / "settings.json", "USER-DENY")
    (workspace / "CLAUDE.md").write_text("PROJECT-INSTRUCTIONS\n")
    (workspace / "AGENTS.md").write_text("AGENTS-INSTRUCTIONS\n")
    _skill(workspace / ".claude" / "skills", "project-skill")
    _agent(workspace / ".claude" / "agents", "project-agent")
    _deny(workspace / ".claude" / "settings.json", "PROJECT-DENY")
    (workspace / ".tether").mkdir()
    (workspace / ".tether" / "memory.md").write_text("PROJECT-MEMORY\n")
    (workspace / "CLAUDE.local.md").write_text("LOCAL-INSTRUCTIONS\n")
    _deny(workspace / ".claude" / "settings.local.json", "LOCAL-DENY")


async def _seen(sdk: SdkRun, fake_model: FakeModelServer, **options: Any) -> set[str]:
    """The markers the session read: in the prompt, its tools, its init line and its rules."""
    fake_model.reset()
    fake_model.script(reply(text("ok")))
    messages = await sdk.query("go", **options)
    [init] = [m for m in messages if isinstance(m, SystemMessage) and m.subtype == "init"]
    request = fake_model.requests[0]
    seen = json.dumps([request.system(), request.body.get("tools"), init.data])
    found = {marker for markers in MARKERS.values() for marker in markers if marker in seen}
    control = await _denied_commands(sdk, fake_model, **options)
    return found | control


async def _denied_commands(sdk: SdkRun, fake_model: FakeModelServer, **options: Any) -> set[str]:
    """The markers whose deny rule holds (settings of that source were read)."""
    from tether.testing import tool_use

    markers = [m for markers in MARKERS.values() for m in markers if m.endswith("-DENY")]
    fake_model.reset()
    fake_model.script(
        reply(*(tool_use("Bash", command=f"echo {m}") for m in markers)), reply(text("ok"))
    )
    await sdk.query("go", permission_mode="bypassPermissions", **options)
    results = fake_model.requests[1].tool_results()
    return {m for m, result in zip(markers, results, strict=True) if "denied" in result.lower()}


@pytest.mark.usefixtures("files_of_every_source", "trusted_workspace")
@pytest.mark.parametrize(
    "sources",
    [[], ["user"], ["project"], ["local"], ["user", "project", "local"], None],
    ids=["none", "user", "project", "local", "all", "default"],
)
async def test_each_kind_of_file_comes_only_from_the_sources_asked_for(
    sdk: SdkRun, fake_model: FakeModelServer, sources: list[str] | None
) -> None:
    expected = {m for name in (sources if sources is not None else MARKERS) for m in MARKERS[name]}
    assert await _seen(sdk, fake_model, setting_sources=sources) == expected
