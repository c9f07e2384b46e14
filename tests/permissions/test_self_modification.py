"""Writes that change what a later session allows or runs (settings, skills, agents, hooks, MCP
servers, git's config and hooks, editor tasks): asked in every mode but bypassPermissions,
whichever tool or command writes them, whatever allow rules or acceptEdits say."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tether.permissions import Mode, PermissionContext, decide, load_rules, suggest_rule

from .conftest import ContextFactory, Tree

PROTECTED = [
    ".claude/settings.local.json",
    ".tether/settings.json",
    ".tether/permissions.yaml",
    ".claude/skills/lint/SKILL.md",
    ".tether/skills/deploy/run.sh",
    ".agents/skills/review/SKILL.md",
    ".claude/agents/reviewer.md",
    ".tether/commands/ship.md",
    ".claude/hooks/session-start.sh",
    ".mcp.json",
    "config/mcp_config.yaml",
    ".git/config",
    ".git/hooks/post-checkout",
    ".git/modules/vendored/config",
    "vendor/lib/.git/hooks/pre-push",
    "packages/web/.claude/settings.json",
    ".vscode/tasks.json",
    ".idea/runConfigurations/app.xml",
    ".envrc",
    ".husky/pre-commit",
    ".pre-commit-config.yaml",
]
NOT_PROTECTED = [
    "config/app.toml",
    "src/skills/loader.py",
    "docs/claude-notes.md",
    ".gitignore",
    ".gitmodules",
    ".gitattributes",
    "Makefile",
    "src/config/mcp_config.yaml.example",
]
MODES: dict[Mode, str] = {
    "default": "ask",
    "acceptEdits": "ask",
    "plan": "deny",
    "dontAsk": "deny",
    "bypassPermissions": "allow",
}


@pytest.mark.parametrize("path", PROTECTED)
@pytest.mark.parametrize(("mode", "expected"), MODES.items())
def test_writing_configuration_asks_in_every_mode_but_bypass(
    path: str, mode: Mode, expected: str, make_ctx: ContextFactory
) -> None:
    ctx = make_ctx({"permissions": {"allow": ["Edit", "Write(**)"]}}, mode=mode)
    assert decide("Write", {"file_path": path, "content": "{}"}, ctx).behavior == expected


@pytest.mark.parametrize("path", NOT_PROTECTED)
def test_ordinary_files_are_not_protected(path: str, make_ctx: ContextFactory) -> None:
    ctx = make_ctx(mode="acceptEdits")
    assert decide("Write", {"file_path": path, "content": "x"}, ctx).behavior == "allow"


def test_the_question_says_why(tree: Tree, make_ctx: ContextFactory) -> None:
    decision = decide("Edit", {"file_path": ".git/hooks/pre-commit"}, make_ctx(mode="acceptEdits"))
    assert decision.behavior == "ask"
    assert decision.reason == (
        f"writes {tree.ws}/.git/hooks/pre-commit, which holds git's config and hooks, which run "
        "programs at git's next run: asked in every mode but bypassPermissions, whatever the "
        "rules allow"
    )


@pytest.mark.parametrize(
    "rule", ["Edit(.claude/**)", "Edit(/.claude/skills/**)", "Write(/.mcp.json)", "Edit(//**)"]
)
def test_an_allow_rule_naming_the_file_does_not_pass_it(
    rule: str, make_ctx: ContextFactory
) -> None:
    ctx = make_ctx({"permissions": {"allow": [rule]}})
    for path in (".claude/skills/x/SKILL.md", ".mcp.json"):
        assert decide("Write", {"file_path": path, "content": "x"}, ctx).behavior == "ask"


def test_an_explicit_ask_rule_still_asks_in_bypass(make_ctx: ContextFactory) -> None:
    ctx = make_ctx({"permissions": {"ask": ["Edit(.vscode/**)"]}}, mode="bypassPermissions")
    assert decide("Write", {"file_path": ".vscode/settings.json"}, ctx).behavior == "ask"
    assert decide("Write", {"file_path": ".idea/x.xml"}, ctx).behavior == "allow"


@pytest.mark.parametrize(
    "command",
    [
        "echo '{}' > .tether/settings.local.json",
        "printf '[core]\\n' >> .git/config",
        "tee -a .git/info/../config < patch.txt",
        "sed -i 's/ask/allow/' .claude/settings.json",
        "mv new.json .mcp.json",
        "cp hook.sh .husky/pre-push",
        "cp hook.sh .git/hooks/",
        "install -m 755 hook.sh .git/hooks/pre-commit",
        "rsync -a hook.sh .git/hooks/pre-commit",
        "ln -sf ../../hook.sh .git/hooks/pre-commit",
        "ln -s .git/config gitconfig",
        "dd if=payload of=.envrc",
        "touch .vscode/tasks.json",
        "truncate -s 0 config/mcp_config.yaml",
        "chmod +x .git/hooks/pre-commit",
        "rm -rf .claude/skills/old",
        "cat tpl > src/../.tether/permissions.yaml",
        "cd .git && echo '[x]' > config",
        "cd src; cp ../hook.sh ../.git/hooks/post-merge",
        "echo x > .claude/*.json",
        "cp hook.sh .git/hoo?s/pre-commit",
        "cp -t .agents/skills/x SKILL.md",
    ],
)
@pytest.mark.parametrize("mode", ["default", "acceptEdits"])
def test_bash_writes_take_the_same_check_whatever_rule_allows_the_command(
    command: str, mode: Mode, make_ctx: ContextFactory
) -> None:
    programs = "echo printf tee sed mv cp install rsync ln dd touch truncate chmod rm cat"
    rules = {"allow": [*(f"Bash({p} *)" for p in programs.split(" ")), "Edit"]}
    ctx = make_ctx({"permissions": rules}, mode=mode)
    assert decide("Bash", {"command": command}, ctx).behavior == "ask"
    bypass = make_ctx({"permissions": rules}, mode="bypassPermissions")
    assert decide("Bash", {"command": command}, bypass).behavior == "allow"
    dont_ask = make_ctx({"permissions": rules}, mode="dontAsk")
    assert decide("Bash", {"command": command}, dont_ask).behavior == "deny"


def test_a_symlink_into_protected_configuration_is_followed(
    tree: Tree, make_ctx: ContextFactory
) -> None:
    os.symlink("../.git/hooks", tree.ws / "src" / "hooks")
    ctx = make_ctx({"permissions": {"allow": ["Edit", "Bash(cp *)"]}}, mode="acceptEdits")
    assert decide("Write", {"file_path": "src/hooks/pre-commit"}, ctx).behavior == "ask"
    assert decide("Bash", {"command": "cp x.sh src/hooks/pre-commit"}, ctx).behavior == "ask"
    assert decide("Write", {"file_path": "src/app.py"}, ctx).behavior == "allow"


def test_no_always_allow_is_offered_for_protected_writes(make_ctx: ContextFactory) -> None:
    ctx = make_ctx()
    assert suggest_rule("Write", {"file_path": ".claude/settings.json"}, ctx) is None
    assert suggest_rule("Edit", {"file_path": ".git/config"}, ctx) is None
    assert suggest_rule("Bash", {"command": "touch .envrc"}, ctx) is None
    assert suggest_rule("Write", {"file_path": "src/new.py"}, ctx) == "Edit(/src/**)"


def _home_context(tree: Tree, mode: Mode, **fields: object) -> PermissionContext:
    return PermissionContext(
        mode=mode,
        rules=load_rules([], seed_yaml=None, extra_allow=["Edit"]),
        workspace=tree.ws,
        cwd=tree.ws,
        home=tree.home,
        **fields,  # type: ignore[arg-type]
    )


@pytest.mark.parametrize(
    "path",
    [
        "~/.claude/settings.json",
        "~/.claude/skills/x/SKILL.md",
        "~/.claude.json",
        "~/.tether/settings.json",
        "~/.tether/agents/a.md",
        "~/.agents/skills/s/SKILL.md",
        "~/.bashrc",
        "~/.zshenv",
        "~/.gitconfig",
        "~/.config/git/config",
        "~/.ssh/config",
    ],
)
def test_user_configuration_is_protected_when_home_is_writable(tree: Tree, path: str) -> None:
    ctx = _home_context(tree, "acceptEdits", additional_dirs=(tree.home,))
    assert decide("Write", {"file_path": path}, ctx).behavior == "ask"
    assert decide("Write", {"file_path": "~/docs/new.md"}, ctx).behavior == "allow"
    bypass = _home_context(tree, "bypassPermissions", additional_dirs=(tree.home,))
    assert decide("Write", {"file_path": path}, bypass).behavior == "allow"


def test_tether_home_is_protected_wherever_it_is(tree: Tree) -> None:
    moved = tree.root / "state"
    moved.mkdir()
    ctx = _home_context(tree, "acceptEdits", additional_dirs=(moved,), tether_home=moved)
    for name in ("settings.json", "skills/x/SKILL.md", "mcp.json"):
        assert decide("Write", {"file_path": str(moved / name)}, ctx).behavior == "ask", name


def test_a_workspace_inside_tether_home_is_a_project_of_its_own(tmp_path: Path) -> None:
    state = tmp_path / "state"
    ws = state / "worktrees" / "job"
    ws.mkdir(parents=True)
    ctx = PermissionContext(
        mode="acceptEdits",
        rules=load_rules([], seed_yaml=None),
        workspace=ws,
        cwd=ws,
        home=tmp_path / "home",
        tether_home=state,
    )
    assert decide("Write", {"file_path": "src/a.py"}, ctx).behavior == "allow"
    assert decide("Write", {"file_path": ".claude/settings.json"}, ctx).behavior == "ask"
