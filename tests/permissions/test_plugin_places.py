"""A workspace's plugins are code a later session runs unsandboxed (hooks, MCP servers,
skills, agents, commands, scripts they name): writing inside a plugin found on disk (a
directory with `.claude-plugin/plugin.json`, or a local source a `.claude-plugin/
marketplace.json` lists, made yet or not) or the `.claude-plugin` directory asks in every
mode but bypassPermissions, by every writer (`tether.plugin_places`)."""

from __future__ import annotations

import json
import shlex

import pytest

from tether.permissions import Mode, PermissionContext, decide, load_rules

from .conftest import Tree, build_tree

ALLOW = {"permissions": {"allow": ["Edit", "Write(**)", "Bash(echo *)", "Bash(cp *)"]}}
EXPECTED: dict[Mode, str] = {
    "default": "ask",
    "acceptEdits": "ask",
    "plan": "deny",
    "bypassPermissions": "allow",
}


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Tree:
    tree = build_tree(tmp_path_factory.mktemp("plugins"))
    ws = tree.ws
    (ws / ".claude-plugin").mkdir()
    market = {
        "name": "local",
        "metadata": {"pluginRoot": "./plugins"},
        "plugins": [
            {"name": "p", "source": "./p"},
            {"name": "fresh", "source": "./fresh"},
            {"name": "dir", "source": {"source": "directory", "path": "./tools/d"}},
            {"name": "gh", "source": {"source": "github", "repo": "o/r"}},
        ],
    }
    (ws / ".claude-plugin" / "marketplace.json").write_text(json.dumps(market))
    (ws / "plugins" / "p" / "hooks").mkdir(parents=True)
    (ws / "vendor" / "kit" / ".claude-plugin").mkdir(parents=True)
    (ws / "vendor" / "kit" / ".claude-plugin" / "plugin.json").write_text('{"name": "kit"}')
    return tree


def _context(tree: Tree, mode: Mode) -> PermissionContext:
    rules = load_rules([(tree.ws / ".claude" / "settings.json", ALLOW)], seed_yaml=None)
    return PermissionContext(mode=mode, rules=rules, workspace=tree.ws, cwd=tree.ws, home=tree.home)


@pytest.mark.parametrize("mode", list(EXPECTED))
@pytest.mark.parametrize(
    "path",
    [
        "plugins/p/hooks/hooks.json",
        "plugins/p/scripts/start.sh",
        "plugins/p/skills/s/SKILL.md",
        "plugins/fresh/agents/a.md",
        "plugins/tools/d/commands/c.md",
        "vendor/kit/hooks/hooks.json",
        "vendor/kit/bin/run",
        ".claude-plugin/marketplace.json",
        "plugins/x/.claude-plugin/plugin.json",
        "plugins/not-listed/hooks/hooks.json",
    ],
)
def test_plugin_code_is_asked_by_every_writer(tree: Tree, path: str, mode: Mode) -> None:
    ctx = _context(tree, mode)
    calls = [
        ("Write", {"file_path": path, "content": "{}"}),
        ("Bash", {"command": f"echo '{{}}' > {shlex.quote(path)}"}),
        ("Bash", {"command": f"cp README.md {shlex.quote(path)}"}),
    ]
    assert [decide(tool, call, ctx).behavior for tool, call in calls] == [EXPECTED[mode]] * 3


@pytest.mark.parametrize(
    "path", ["plugins/README.md", "plugins/gh/hooks.json", "src/app.py", "vendor/other/x.py"]
)
def test_the_rest_of_the_project_is_not(tree: Tree, path: str) -> None:
    ctx = _context(tree, "acceptEdits")
    assert decide("Write", {"file_path": path, "content": "x"}, ctx).behavior == "allow"


def test_a_project_that_is_a_plugin_guards_its_components_only(tree: Tree) -> None:
    """Plugin development at the root: its hooks and skills ask; its other code is the
    project's own, written all the time."""
    (tree.ws / "vendor" / "kit" / "src").mkdir(exist_ok=True)
    rules = load_rules([(tree.ws / ".claude" / "settings.json", ALLOW)], seed_yaml=None)
    root = tree.ws / "vendor" / "kit"
    ctx = PermissionContext(
        mode="acceptEdits", rules=rules, workspace=root, cwd=root, home=tree.home
    )
    hooks = decide("Write", {"file_path": "hooks/hooks.json", "content": "{}"}, ctx)
    code = decide("Write", {"file_path": "src/main.py", "content": "x"}, ctx)
    assert (hooks.behavior, code.behavior) == ("ask", "allow")


def test_the_sessions_plugins_are_asked_manifest_or_not(tree: Tree) -> None:
    """`--plugin-dir tools/bare` (no manifest: the directory's name is the plugin's) and a
    plugin that is the workspace itself: the session knows them (`plugin_roots`)."""
    bare = tree.ws / "tools" / "bare"
    (bare / "hooks").mkdir(parents=True, exist_ok=True)
    rules = load_rules([(tree.ws / ".claude" / "settings.json", ALLOW)], seed_yaml=None)
    ctx = PermissionContext(
        mode="acceptEdits",
        rules=rules,
        workspace=tree.ws,
        cwd=tree.ws,
        home=tree.home,
        plugin_roots=(bare, tree.ws),
    )
    calls = {
        "tools/bare/hooks/hooks.json": "ask",
        "tools/bare/run.sh": "ask",
        "agents/reviewer.md": "ask",
        "src/app.py": "allow",
    }
    found = {
        path: decide("Write", {"file_path": path, "content": "x"}, ctx).behavior for path in calls
    }
    assert found == calls
