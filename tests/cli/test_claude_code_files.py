"""A repository set up for Claude Code, over the wire: agent and skill files Claude Code loads
(front matter that strict YAML rejects, names with a dot, long descriptions, a name that is not
its directory's) are loaded, with a warning where the format's rules are broken; a skill with
`disable-model-invocation` is kept from the model. Fixtures are written here in the shape of
published plugin agents and skills."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tether.testing import FakeModelServer, reply, text, tool_use
from tether.testing.cli_runner import CliResult

Run = Callable[..., CliResult]

PLUGIN_STYLE_DESCRIPTION = (
    "Use this agent when a change needs an audit before it merges. Examples: <example>Context: "
    'the user finished a feature. user: "audit my change" assistant: "I will use the '
    'code.auditor agent" <commentary>A finished change calls for an audit.</commentary></example>'
)
PLUGIN_STYLE_AGENT = f"""\
---
name: code.auditor
description: {PLUGIN_STYLE_DESCRIPTION}
tools: Read, Grep
model: inherit
color: green
---
You audit changes. Reply with AUDITED.
"""

MULTILINE_AGENT = """\
---
name: release-scribe
description: Use this agent for release notes.

Examples:

<example>
Context: a tag was pushed.
user: "write the notes"
</example>
tools:
  - Read
---
You write release notes.
"""


def _write(path: Path, content: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content, encoding="utf-8")


def test_files_claude_code_loads_are_loaded_with_warnings(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    agents = workspace / ".claude" / "agents"
    _write(agents / "auditor.md", PLUGIN_STYLE_AGENT)
    _write(agents / "scribe.md", MULTILINE_AGENT)
    skills = workspace / ".claude" / "skills"
    long_description = "Checks the changelog. " + "It reads every entry closely. " * 40
    _write(skills / "changelog" / "SKILL.md", f"---\ndescription: {long_description}\n---\nGo.\n")
    _write(
        skills / "deploying" / "SKILL.md",
        "---\nname: deploy-app\ndescription: Deploys the app. Use when: asked to ship.\n"
        "---\nShip.\n",
    )
    _write(
        skills / "wipe-cache" / "SKILL.md",
        "---\nname: wipe-cache\ndescription: Wipes the build cache.\n"
        "disable-model-invocation: true\n---\nWipe.\n",
    )
    fake_model.script(
        reply(
            tool_use("Task", description="audit", prompt="audit it", subagent_type="code.auditor")
        ),
        reply(text("AUDITED")),
        reply(tool_use("Skill", skill="wipe-cache")),
        reply(text("done")),
    )

    result = tether("-p", "audit the change")

    assert result.exit_code == 0, result.stderr
    first = fake_model.requests[0]
    # Agents other than the built-in ones are told in a reminder, a line each (bounded).
    listing = first.agent_listing_text()
    assert listing is not None
    assert f"- code.auditor: {' '.join(PLUGIN_STYLE_DESCRIPTION.split())[:120]}" in listing
    assert "- release-scribe: Use this agent for release notes.\n" not in listing
    assert "- release-scribe: Use this agent for release notes. Examples: <example>" in listing
    system = first.system()
    # Called by its directory's name, as Claude Code calls it.
    assert "- deploying: Deploys the app. Use when: asked to ship." in system
    assert "- changelog: Checks the changelog." in system
    assert "wipe-cache" not in system
    # The subagent ran with its file's prompt.
    assert fake_model.requests[1].system().startswith("You audit changes. Reply with AUDITED.")
    assert fake_model.requests[2].tool_results()[0].startswith("AUDITED")
    [refusal] = fake_model.requests[3].tool_results()
    assert refusal == (
        "Error: The skill 'wipe-cache' is run by the user only (/wipe-cache), never loaded by "
        "the model. "
        "Available skills: changelog, code-review, deploying, systematic-debugging."
    )
    assert fake_model.requests[3].tool_result_errors() == [True]
    notices = [
        line for line in result.stderr.splitlines() if "unusable" in line or "skill " in line
    ]
    assert notices == [
        f"tether: skill {skills / 'changelog' / 'SKILL.md'}: 'description' is "
        f"{len(long_description.strip())} characters long, over the 1024 the Agent Skills "
        "format allows (the skill list shortens it)",
        f"tether: skill {skills / 'deploying' / 'SKILL.md'}: the name 'deploy-app' differs from "
        "its directory's; it is called 'deploying', as Claude Code calls it",
    ]
