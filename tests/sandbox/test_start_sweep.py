"""Files that start programs or grant permissions later (settings, hooks, MCP servers, skills,
editor tasks, CI definitions, a workspace plugin's parts), made or changed by a command where
no mount guards them (a plain subdirectory, a package past the nested search, a plugin
directory): moved aside when the command ends, whatever the directory. Ordinary files, and
what tools and the user change while no command runs, are kept."""

from __future__ import annotations

import json
import os
import shlex
from pathlib import Path

import pytest

from tether.sandbox.git_sweep import DISABLED
from tether.tools.registry import ToolOutcome

from .conftest import Layout, bash_runner, end_session, needs_bwrap, sandboxed_context

pytestmark = needs_bwrap

HOOK = '{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "id"}]}]}}'

START_FILES = (
    ".claude/settings.json",
    ".claude/settings.local.json",
    ".claude/skills/s/SKILL.md",
    ".tether/settings.json",
    ".mcp.json",
    "config/mcp_config.yaml",
    ".zed/tasks.json",
    "team.code-workspace",
    ".lando.yml",
    ".nvim.lua",
    ".gemini/settings.json",
)
"""Relative to each directory tried; the other agents' configuration only where the table
lists it (perm-24's families), the rest from the one table."""


def writes(paths: list[Path]) -> str:
    return "".join(
        f"mkdir -p {shlex.quote(str(p.parent))}; printf '%s' {shlex.quote(HOOK)} > "
        f"{shlex.quote(str(p))}; "
        for p in paths
    )


def left(paths: list[Path]) -> list[str]:
    """Those still at their names (what a later start would read)."""
    return [str(p) for p in paths if os.path.lexists(p)]


async def test_start_files_made_in_any_directory_are_moved_aside(boundary: Layout) -> None:
    ws = boundary.workspace
    (ws / "pkg").mkdir()
    (ws / "pkg" / "package.json").write_text("{}\n")
    boundary.hand_over()
    dirs = [ws / "sub", ws / "pkg", ws / "a" / "b" / "c" / "d" / "e"]
    from tether.project_files import PROJECT_SELF_MODIFYING

    listed = {e.path.split("/")[0] for e in PROJECT_SELF_MODIFYING}
    names = [n for n in START_FILES if n.split("/")[0] in listed or n.endswith(".code-workspace")]
    targets = [d / name for d in dirs for name in names]
    ordinary = [ws / "sub" / "notes.txt", ws / "a" / "b" / "app.py", ws / "pkg" / "index.js"]
    ctx = sandboxed_context(boundary)
    run = bash_runner(ctx)
    outcome = await run(command=writes(targets + ordinary) + "echo end")
    assert outcome.content.startswith("end"), outcome.content
    assert "moved aside" in outcome.content
    assert left(targets) == []
    for target in targets:
        assert target.with_name(target.name + DISABLED).read_text() == HOOK
    assert all(p.read_text() == HOOK for p in ordinary)
    await end_session(ctx)


async def test_a_workspace_marketplaces_plugins_cannot_be_given_hooks(boundary: Layout) -> None:
    """The plugin directories a workspace marketplace lists (`./plugins/p`, no manifest of
    its own), a plugin with a manifest naming its hooks elsewhere, and the marketplace file:
    a plugin below the project whole, the project's own parts that a plugin has."""
    ws = boundary.workspace
    (ws / ".claude-plugin").mkdir()
    market = {
        "name": "local",
        "owner": {"name": "me"},
        "plugins": [{"name": "p", "source": "./plugins/p"}, {"name": "q", "source": "./q"}],
    }
    (ws / ".claude-plugin" / "marketplace.json").write_text(json.dumps(market))
    (ws / "plugins" / "p").mkdir(parents=True)
    (ws / "q" / ".claude-plugin").mkdir(parents=True)
    manifest = {"name": "q", "hooks": "./custom/h.json", "commands": ["./cmds/"]}
    (ws / "q" / ".claude-plugin" / "plugin.json").write_text(json.dumps(manifest))
    boundary.hand_over()
    p, q = ws / "plugins" / "p", ws / "q"
    targets = [
        p / "hooks" / "hooks.json",
        p / ".mcp.json",
        p / "skills" / "s" / "SKILL.md",
        p / "agents" / "a.md",
        p / "commands" / "c.md",
        q / "custom" / "h.json",
        q / "cmds" / "x.md",
        q / "hooks" / "hooks.json",
    ]
    ctx = sandboxed_context(boundary)
    run = bash_runner(ctx)
    changed = ws / ".claude-plugin" / "marketplace.json"
    outcome = await run(
        command=writes(targets)
        + f"echo '{{}}' > {changed}; echo code > {p}/run.sh; echo fine > {ws}/README.md; "
        "echo end"
    )
    assert outcome.content.startswith("end"), outcome.content
    assert left(targets) == []
    assert not changed.exists()
    assert json.loads((ws / ".claude-plugin" / f"marketplace.json{DISABLED}").read_text()) == {}
    # A plugin below the project is code its hooks run, whole; the project's own files stay.
    assert not (p / "run.sh").exists()
    assert (p / f"run.sh{DISABLED}").read_text() == "code\n"
    assert (ws / "README.md").read_text() == "fine\n"
    await end_session(ctx)


async def test_what_changes_while_no_command_runs_is_kept(boundary: Layout) -> None:
    """The Write tool (with the user's yes) or the user's editor between commands: theirs."""
    ws = boundary.workspace
    boundary.hand_over()
    ctx = sandboxed_context(boundary)
    run = bash_runner(ctx)
    assert await run(command="echo first") == ToolOutcome("first", False)
    approved = ws / "sub" / ".claude" / "settings.json"
    approved.parent.mkdir(parents=True)
    approved.write_text(HOOK)
    boundary.hand_over()
    assert await run(command="echo second") == ToolOutcome("second", False)
    assert approved.read_text() == HOOK
    await end_session(ctx)


async def test_a_deep_existing_start_file_changed_by_a_command_is_moved_aside(
    boundary: Layout,
) -> None:
    """Past the nested search's depth, an existing file is no mount: changed, it goes aside
    (with the command's content, for the user to look at)."""
    deep = boundary.workspace / "a" / "b" / "c" / "d" / "pkg"
    (deep / ".vscode").mkdir(parents=True)
    tasks = deep / ".vscode" / "tasks.json"
    tasks.write_text("{}\n")
    untouched = deep / ".vscode" / "settings.json"
    untouched.write_text("{}\n")
    boundary.hand_over()
    ctx = sandboxed_context(boundary)
    run = bash_runner(ctx)
    outcome = await run(command=f"echo evil >> {tasks} 2>/dev/null; echo end")
    assert outcome.content.startswith("end")
    assert not tasks.exists()
    assert (deep / ".vscode" / f"tasks.json{DISABLED}").read_text() == "{}\nevil\n"
    assert untouched.read_text() == "{}\n"
    await end_session(ctx)


async def test_a_tree_prepared_earlier_and_moved_into_place_is_moved_aside(
    boundary: Layout,
) -> None:
    """A rename keeps the files' own change times: what was made by an earlier command under
    another name and moved to a start-up name by a later one is judged all the same."""
    ws = boundary.workspace
    boundary.hand_over()
    ctx = sandboxed_context(boundary)
    run = bash_runner(ctx)
    prepared = await run(
        command=f"mkdir -p prep/conf sub && printf '%s' {shlex.quote(HOOK)} > prep/conf/"
        "settings.json && echo ready"
    )
    assert prepared == ToolOutcome("ready", False)
    outcome = await run(command="mv prep/conf sub/.claude && echo end")
    assert outcome.content.startswith("end"), outcome.content
    assert not (ws / "sub" / ".claude" / "settings.json").exists()
    assert (ws / "sub" / ".claude" / f"settings.json{DISABLED}").read_text() == HOOK
    await end_session(ctx)


def test_root_only_entries_match_at_a_projects_root_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The table writes a path that matters at a project's root only as `/name` (MSBuild's
    imports): swept there, not in a subdirectory."""
    from tether.sandbox import start_patterns, start_sweep

    literal = dict(start_patterns._LITERAL_FIRST)  # pyright: ignore[reportPrivateUsage]
    literal["Root.props"] = [(("Root.props",), True)]
    monkeypatch.setattr(start_patterns, "_LITERAL_FIRST", literal)
    (tmp_path / "sub").mkdir()
    sweep = start_sweep.StartSweep()
    sweep.started((tmp_path,))
    for where in (tmp_path, tmp_path / "sub"):
        (where / "Root.props").write_text("<Project/>")
    sweep.sweep((tmp_path,))
    assert not (tmp_path / "Root.props").exists()
    assert (tmp_path / "sub" / "Root.props").exists()


async def test_a_jj_repositorys_settings_a_command_writes_are_moved_aside(
    boundary: Layout,
) -> None:
    """jj's repository settings (`ui.pager`, `ui.editor`, aliases) run programs at the user's
    next `jj log`: like `.git/config`, a command's are moved aside."""
    ws = boundary.workspace
    (ws / ".jj" / "repo").mkdir(parents=True)
    (ws / ".jj" / "repo" / "config.toml").write_text("[user]\nname = 'me'\n")
    (ws / "sub" / ".jj" / "repo").mkdir(parents=True)
    boundary.hand_over()
    planted = "[ui]\npager = ['sh', '-c', 'id > /tmp/x']\n"
    made = [ws / ".jj" / "repo" / "config.toml", ws / "sub" / ".jj" / "repo" / "config.toml"]
    ctx = sandboxed_context(boundary)
    outcome = await bash_runner(ctx)(
        command="".join(f"printf %s {shlex.quote(planted)} > {p}; " for p in made) + "echo end"
    )
    assert outcome.content.startswith("end"), outcome.content
    assert "moved aside" in outcome.content
    assert left(made) == []
    assert made[0].with_name("config.toml" + DISABLED).read_text() == planted
    await end_session(ctx)
