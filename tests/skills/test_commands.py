"""Custom command files: where they are found, their names, and how arguments fill them."""

from __future__ import annotations

from pathlib import Path

from tether.skills.commands import CommandCatalog, SlashCommand, discover_commands, expand_command


def _write(path: Path, content: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content, encoding="utf-8")
    return path


def test_namespaced_commands_are_only_qualified_and_a_bare_name_is_the_top_levels(
    workspace: Path, home: Path
) -> None:
    ours = _write(workspace / ".claude/commands/ops/deploy.md", "---\ndescription: Ship\n---\nGo\n")
    theirs = _write(home / ".claude/commands/deploy.md", "Deploy mine\n")
    _write(workspace / ".claude/commands/.drafts/wip.md", "Not yet\n")
    bad = _write(workspace / ".claude/commands/two words.md", "Hm\n")

    catalog = discover_commands(workspace, home=home)

    project = SlashCommand("deploy", "ops", ours, "project", description="Ship")
    user = SlashCommand("deploy", "", theirs, "user")
    assert catalog == CommandCatalog(
        (project, user), ((bad, "'two words' cannot be typed as a command name"),)
    )
    # As Claude Code: `ops/deploy.md` is `/ops:deploy` alone, so the user's `/deploy` is theirs.
    assert catalog.by_invocation() == {"ops:deploy": project, "deploy": user}


def test_arguments_fill_the_body(workspace: Path) -> None:
    path = _write(workspace / "fix.md", "Fix $0 in $1 ($2). All: $ARGUMENTS\n")
    command = SlashCommand("fix", "", path, "project")

    assert (
        expand_command(command, "'the bug' main.py")
        == "Fix the bug in main.py ($2). All: 'the bug' main.py\n"
    )
    assert expand_command(command, "'unclosed x") == "Fix 'unclosed in x ($2). All: 'unclosed x\n"
