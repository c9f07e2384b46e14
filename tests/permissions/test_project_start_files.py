"""Files that start programs later without a command naming them, by class (editor tasks and
local scripts, package manager hooks, interpreter start-up files, build tools' rc files,
compose overrides, CI definitions): Write, Edit and Bash writers ask in every mode but
bypassPermissions, whatever allow rules or acceptEdits say (`tether.project_start_files`)."""

from __future__ import annotations

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
STARTERS = [
    "team.code-workspace",
    "web/.zed/tasks.json",
    ".zed/settings.json",
    "pkg/.nvim.lua",
    ".nvimrc",
    ".exrc",
    ".helix/languages.toml",
    "app.sublime-project",
    ".dir-locals.el",
    ".pnpmfile.cjs",
    "packages/a/.pnpmfile.mjs",
    "bunfig.toml",
    ".bazelrc",
    "user.bazelrc",
    ".bazelversion",
    ".mvn/jvm.config",
    "gradle/wrapper/gradle-wrapper.properties",
    "go.work",
    "compose.override.yaml",
    "deploy/docker-compose.override.yml",
    "sitecustomize.py",
    "src/usercustomize.py",
    "lib/sitecustomize/__init__.py",
    ".ipython/profile_default/startup/00.py",
    "jupyter_server_config.py",
    ".github/workflows/release.yaml",
    ".github/actions/setup/action.yml",
    ".gitlab-ci.yml",
    ".circleci/config.yml",
    ".buildkite/pipeline.yml",
    "Jenkinsfile",
    ".travis.yml",
    "azure-pipelines.yml",
    "bitbucket-pipelines.yml",
    ".woodpecker/build.yml",
    ".gitea/workflows/ci.yml",
]


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Tree:
    return build_tree(tmp_path_factory.mktemp("start-files"))


def _context(tree: Tree, mode: Mode) -> PermissionContext:
    rules = load_rules([(tree.ws / ".claude" / "settings.json", ALLOW)], seed_yaml=None)
    return PermissionContext(mode=mode, rules=rules, workspace=tree.ws, cwd=tree.ws, home=tree.home)


@pytest.mark.parametrize("mode", list(EXPECTED))
@pytest.mark.parametrize("path", STARTERS)
def test_each_class_is_asked_by_every_writer(tree: Tree, path: str, mode: Mode) -> None:
    ctx = _context(tree, mode)
    quoted = shlex.quote(path)
    calls = [
        ("Write", {"file_path": path, "content": "x"}),
        ("Edit", {"file_path": path, "old_string": "a", "new_string": "b"}),
        ("Bash", {"command": f"echo x > {quoted}"}),
        ("Bash", {"command": f"cp README.md {quoted}"}),
    ]
    decisions = [decide(tool, call, ctx).behavior for tool, call in calls]
    assert decisions == [EXPECTED[mode]] * len(calls)


@pytest.mark.parametrize(
    "command",
    ["sed -i s/a/b/ src/*.py", "echo x > src/*.cfg", "cp README.md src/*.py"],
)
def test_a_glob_every_project_writes_is_not_asked_for_them(tree: Tree, command: str) -> None:
    """`src/*.py` may reach a `sitecustomize.py` only if one is there already: its writer
    was asked. The project's ordinary globs stay allowed."""
    rules = load_rules(
        [(tree.ws / ".claude" / "settings.json", {"permissions": {"allow": ["Bash(sed *)"]}})],
        seed_yaml=None,
    )
    ctx = PermissionContext(
        mode="acceptEdits", rules=rules, workspace=tree.ws, cwd=tree.ws, home=tree.home
    )
    assert decide("Bash", {"command": command}, ctx).behavior == "allow"


@pytest.mark.parametrize(
    "path",
    ["src/workspace.py", "docs/github/workflows.md", "ci/pipeline.txt", "src/customize.py"],
)
def test_look_alikes_are_the_projects_own(tree: Tree, path: str) -> None:
    ctx = _context(tree, "acceptEdits")
    assert decide("Write", {"file_path": path, "content": "x"}, ctx).behavior == "allow"
