"""Claude Code plugins over the wire: a plugin directory in Claude Code's shape (a manifest,
commands, agents, skills, hooks and an MCP server), loaded with `--plugin-dir` or enabled in
settings from a local directory marketplace; its parts named `plugin:part` as Claude Code
names them, `${CLAUDE_PLUGIN_ROOT}` expanded; a broken plugin is a warning, never a crash."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tether.config.settings import tether_home
from tether.testing import FakeModelServer, reply, text, tool_use
from tether.testing.cli_runner import CliResult
from tether.testing.recorded import RecordedRequest

Run = Callable[..., CliResult]


@pytest.fixture(autouse=True)
def user_home(monkeypatch: pytest.MonkeyPatch, home: Path) -> Path:
    monkeypatch.setenv("HOME", str(home))
    return home


def _prompt_of(request: RecordedRequest) -> str:
    """The user's words in the request's last user message, without the reminders around
    them (a hook's added context goes ahead of the prompt, as Claude Code sends it)."""
    said = re.sub(
        r"<system-reminder>.*?</system-reminder>", "", request.last_user_text(), flags=re.S
    )
    return said.strip()


def _write(path: Path, content: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content, encoding="utf-8")


def make_plugin(root: Path, name: str = "tidy") -> Path:
    """A small plugin in the shape of Anthropic's published ones."""
    _write(
        root / ".claude-plugin/plugin.json",
        json.dumps(
            {
                "name": name,
                "version": "1.2.0",
                "description": "Keeps things tidy",
                "author": {"name": "Someone", "email": "someone@example.com"},
                "commands": ["./extra/shout.md"],
            }
        ),
    )
    _write(
        root / "commands/sweep.md",
        "---\ndescription: Sweep a directory\nargument-hint: <dir>\n---\nSweep $ARGUMENTS now.\n",
    )
    _write(root / "commands/deep/dust.md", "Dust everything.\n")
    _write(
        root / "extra/shout.md",
        "---\ndescription: Shout\nallowed-tools: Bash(${CLAUDE_PLUGIN_ROOT}/bin/echo.sh:*)\n"
        "---\nSHOUT $0 with ${CLAUDE_PLUGIN_ROOT}/bin/echo.sh\n",
    )
    _write(
        root / "agents/inspector.md",
        "---\nname: inspector\ndescription: Use this agent when code needs an inspection. "
        "Examples: <example>user: inspect it</example>\ntools: Read, Grep\n---\n"
        "You inspect code.\n",
    )
    _write(
        root / "skills/folding/SKILL.md",
        "---\nname: folding\ndescription: Fold laundry neatly; use when asked to fold.\n---\n"
        "Fold from ${CLAUDE_SKILL_DIR} in ${CLAUDE_PLUGIN_ROOT}.\n",
    )
    _write(
        root / "hooks/hooks.json",
        json.dumps(
            {
                "description": "Tidy hooks",
                "hooks": {
                    "UserPromptSubmit": [
                        {
                            "hooks": [
                                {
                                    "type": "command",
                                    "command": "bash ${CLAUDE_PLUGIN_ROOT}/hooks/context.sh",
                                    "timeout": 10,
                                }
                            ]
                        }
                    ]
                },
            }
        ),
    )
    _write(
        root / "hooks/context.sh",
        'echo "root=$CLAUDE_PLUGIN_ROOT data=$CLAUDE_PLUGIN_DATA"\n',
    )
    return root


def test_a_plugin_dir_gives_namespaced_commands_skills_agents_and_hooks(
    fake_model: FakeModelServer, tether: Run, tmp_path: Path
) -> None:
    plugin = make_plugin(tmp_path / "plugins" / "tidy")
    fake_model.script(
        reply(tool_use("Skill", skill="tidy:folding")),
        reply(
            tool_use("Task", description="look", prompt="inspect", subagent_type="tidy:inspector")
        ),
        reply(text("Inspected.")),
        reply(text("Done.")),
    )

    result = tether("-p", "/tidy:sweep the attic", "--plugin-dir", str(plugin))

    assert result.exit_code == 0, result.stderr
    first = fake_model.requests[0]
    assert _prompt_of(first) == "Sweep the attic now."
    # The hook ran with the plugin's variables, in its command text and its environment.
    data = tether_home() / "plugins" / "data" / "tidy-inline"
    assert f"root={plugin.resolve()} data={data}" in json.dumps(first.messages())
    assert data.is_dir()
    assert "tidy:folding" in first.system()
    assert "- tidy:inspector: " in (first.agent_listing_text() or "")
    # The skill loaded by its namespaced name; the subagent ran by its namespaced type.
    folding = f"Fold from {plugin.resolve()}/skills/folding in {plugin.resolve()}."
    assert folding in fake_model.requests[1].tool_results()[0]
    assert fake_model.requests[2].system().startswith("You inspect code.")
    assert fake_model.requests[3].tool_results()[0].startswith("Inspected.")


def test_plugin_commands_are_named_by_plugin_and_subdirectory_only(
    fake_model: FakeModelServer, tether: Run, tmp_path: Path
) -> None:
    plugin = make_plugin(tmp_path / "tidy")
    fake_model.script(reply(text("1")), reply(text("2")), reply(text("3")))

    runs = [
        tether("-p", prompt, "--plugin-dir", str(plugin))
        for prompt in ("/tidy:deep:dust", "/tidy:shout hey", "/sweep attic")
    ]

    assert [r.exit_code for r in runs] == [0, 0, 0], [r.stderr for r in runs]
    # The plugin's UserPromptSubmit hook adds a reminder to each prompt.
    prompts = [_prompt_of(r) for r in fake_model.requests]
    assert prompts == [
        "Dust everything.",
        f"SHOUT hey with {plugin.resolve()}/bin/echo.sh",
        "/sweep attic",  # no bare name for a plugin's command, as in Claude Code
    ]


def _marketplace(root: Path) -> Path:
    make_plugin(root / "plugins" / "tidy")
    _write(
        root / ".claude-plugin/marketplace.json",
        json.dumps(
            {
                "name": "house",
                "owner": {"name": "Someone"},
                "plugins": [
                    {"name": "tidy", "source": "./plugins/tidy", "description": "Keeps tidy"},
                    {"name": "remote", "source": {"source": "github", "repo": "o/remote"}},
                ],
            }
        ),
    )
    return root


def test_enabled_plugins_load_from_a_directory_marketplace_and_false_turns_one_off(
    fake_model: FakeModelServer, tether: Run, tmp_path: Path, home: Path, trusted_workspace: Path
) -> None:
    market = _marketplace(tmp_path / "market")
    _write(
        home / ".claude/settings.json",
        json.dumps(
            {
                "extraKnownMarketplaces": {
                    "house": {"source": {"source": "directory", "path": str(market)}}
                },
                "enabledPlugins": {"tidy@house": True, "remote@house": True},
            }
        ),
    )
    fake_model.script(reply(text("on")), reply(text("off")))

    on = tether("-p", "/tidy:sweep attic")
    _write(
        trusted_workspace / ".claude/settings.local.json",
        json.dumps({"enabledPlugins": {"tidy@house": False}}),
    )
    off = tether("-p", "/tidy:sweep attic")

    assert (on.exit_code, off.exit_code) == (0, 0), on.stderr + off.stderr
    assert _prompt_of(fake_model.requests[0]) == "Sweep attic now."
    assert "tidy:folding" in fake_model.requests[0].system()
    assert fake_model.requests[1].last_user_text().startswith("/tidy:sweep attic\n<system-")
    assert "tidy:folding" not in fake_model.requests[1].system()
    # A plugin only on GitHub is not fetched: said so, and the session runs.
    assert "plugin remote@house: its source" in on.stderr
    assert "install it with Claude Code" in on.stderr


def test_an_untrusted_workspace_enables_no_plugin(
    fake_model: FakeModelServer, tether: Run, tmp_path: Path, workspace: Path
) -> None:
    market = _marketplace(tmp_path / "market")
    _write(
        workspace / ".claude/settings.json",
        json.dumps(
            {
                "extraKnownMarketplaces": {
                    "house": {"source": {"source": "directory", "path": str(market)}}
                },
                "enabledPlugins": {"tidy@house": True},
            }
        ),
    )
    fake_model.script(reply(text("plain")))

    result = tether("-p", "/tidy:sweep attic")

    assert result.exit_code == 0, result.stderr
    assert fake_model.requests[0].last_user_text().startswith("/tidy:sweep attic\n<system-")
    assert "1 plugin from" in result.stderr  # the untrusted notice counts what it left out


def test_a_broken_plugin_is_a_warning_naming_the_file(
    fake_model: FakeModelServer, tether: Run, tmp_path: Path
) -> None:
    broken = tmp_path / "broken"
    _write(broken / ".claude-plugin/plugin.json", '{"name": "broken",')
    half = make_plugin(tmp_path / "half", name="half")
    _write(half / "hooks/hooks.json", '{"hooks": {"PreToolUse": "not a list"}}')
    _write(half / ".mcp.json", "[1, 2]")
    fake_model.script(reply(text("fine")))

    result = tether("-p", "/half:sweep x", "--plugin-dir", str(broken), "--plugin-dir", str(half))

    assert result.exit_code == 0, result.stderr
    assert (
        f"plugin manifest {broken.resolve() / '.claude-plugin/plugin.json'}: not readable JSON"
        in result.stderr
    )
    assert (
        f"{half.resolve() / 'hooks/hooks.json'}: hooks.PreToolUse: must be a list" in result.stderr
    )
    assert f"plugin file {half.resolve() / '.mcp.json'}: must be a JSON object" in result.stderr
    # The rest of the half-broken plugin still works.
    assert _prompt_of(fake_model.requests[0]) == "Sweep x now."


def test_a_plugins_mcp_server_gets_its_root_and_is_named_by_plugin(
    fake_model: FakeModelServer, tether: Run, tmp_path: Path
) -> None:
    plugin = make_plugin(tmp_path / "tidy")
    server = Path(sys.executable).with_name("mcp-server-time")
    _write(plugin / "bin/clock", f'#!/bin/sh\nexec "{server}" "$@"\n')
    (plugin / "bin/clock").chmod(0o755)
    _write(
        plugin / ".mcp.json",
        json.dumps({"mcpServers": {"clock": {"command": "${CLAUDE_PLUGIN_ROOT}/bin/clock"}}}),
    )
    fake_model.script(reply(text("ok")))

    result = tether("-p", "what time is it", "--plugin-dir", str(plugin))

    assert result.exit_code == 0, result.stderr
    assert "mcp__plugin_tidy_clock__get_current_time" in fake_model.requests[0].tool_names()


def test_manifest_paths_add_to_the_defaults_and_claude_codes_installed_copy_is_used(
    fake_model: FakeModelServer, tether: Run, tmp_path: Path, home: Path
) -> None:
    # Claude Code installed "crew@team" into its cache; its marketplace is only on GitHub.
    copy = tmp_path / "cache/team/crew/2.0.0"
    _write(
        copy / ".claude-plugin/plugin.json",
        json.dumps(
            {
                "name": "crew",
                "agents": ["./roles/captain.md", "../outside.md"],
                "skills": "./more-skills/knots",
                "hooks": {
                    "UserPromptSubmit": [
                        {
                            "hooks": [
                                {"type": "command", "command": "echo inline ${CLAUDE_PLUGIN_ROOT}"}
                            ]
                        }
                    ]
                },
            }
        ),
    )
    _write(copy / "roles/captain.md", "---\nname: captain\ndescription: Leads\n---\nYou lead.\n")
    _write(
        copy / "more-skills/knots/SKILL.md",
        "---\nname: knots\ndescription: Tie knots; use for rope work.\n---\nTie.\n",
    )
    _write(
        home / ".claude/plugins/installed_plugins.json",
        json.dumps(
            {
                "version": 2,
                "plugins": {"crew@team": [{"scope": "user", "installPath": str(copy)}]},
            }
        ),
    )
    _write(
        home / ".claude/plugins/known_marketplaces.json",
        json.dumps({"team": {"source": {"source": "github", "repo": "o/team"}}}),
    )
    _write(home / ".claude/settings.json", json.dumps({"enabledPlugins": {"crew@team": True}}))
    fake_model.script(reply(text("ok")))

    result = tether("-p", "hello")

    assert result.exit_code == 0, result.stderr
    request = fake_model.requests[0]
    assert "- crew:captain: " in (request.agent_listing_text() or "")
    assert "crew:knots" in request.system()
    assert f"inline {copy}" in request.last_user_text()
    assert (
        f"plugin {copy / '.claude-plugin/plugin.json'}: agents: ../outside.md is outside the "
        "plugin; ignored" in result.stderr
    )


async def test_the_agent_sdks_local_plugins_are_loaded_and_listed_as_claude_code_lists_them(
    model_env: FakeModelServer, workspace: Path, home: Path, tmp_path: Path
) -> None:
    from claude_agent_sdk import SystemMessage

    from tests.cli.sdk_harness import SdkRun

    plugin = make_plugin(tmp_path / "tidy")
    model_env.script(reply(text("ok")))

    messages = await SdkRun(workspace, home).query(
        "hello", plugins=[{"type": "local", "path": str(plugin)}]
    )

    [init] = [m for m in messages if isinstance(m, SystemMessage) and m.subtype == "init"]
    # The fields and names the real Claude Code CLI gives the same plugin.
    assert init.data["plugins"] == [
        {"name": "tidy", "path": str(plugin.resolve()), "source": "tidy@inline", "version": "1.2.0"}
    ]
    assert "tidy:inspector" in init.data["agents"]
    assert {"tidy:sweep", "tidy:deep:dust", "tidy:folding"} <= set(init.data["slash_commands"])
    assert "tidy:folding" in init.data["skills"]
