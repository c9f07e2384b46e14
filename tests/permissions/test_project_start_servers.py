"""Files a language server, build server, editor lint or package loader runs on opening the
project or at every command (build server connections, hie-bios cradles, Yarn's PnP loader
and SDKs, direnv's PATH, bazelisk's `tools/bazel`, linters' configuration that loads code),
and every table name in another case (a case-insensitive file system opens `.VIMRC` as
`.vimrc`): asked by every writer in every mode but bypassPermissions."""

from __future__ import annotations

import shlex

import pytest

from tether.permissions import Mode, PermissionContext, decide, load_rules

from .conftest import Tree, build_tree

ALLOW = {"permissions": {"allow": ["Edit", "Write(**)", "Bash(printf *)"]}}
EXPECTED: dict[Mode, str] = {"default": "ask", "acceptEdits": "ask", "bypassPermissions": "allow"}
STARTED = [
    ".bsp/bloop.json",
    "svc/.bsp/mill-bsp.json",
    "lib/hie.yaml",
    "svc/.lsp/config.edn",
    ".vim/coc-settings.json",
    ".omnisharp/omnisharp.json",
    "zls.json",
    "pkg/.merlin",
    ".ropeproject/default_config.py",
    ".lapce/run.toml",
    "CMakeUserPresets.json",
    "pylintrc.toml",
    "api/.pylintrc",
    ".rubocop.yml",
    ".credo.exs",
    ".php-cs-fixer.dist.php",
    ".pnp.js",
    ".pnp.loader.mjs",
    ".yarn/sdks/eslint/bin/eslint.js",
    ".direnv/bin/node",
    ".direnv/ruby-3.3/bin/rake",
    "tools/bazel.exe",
    ".pants.bootstrap",
    ".sdkmanrc",
    ".VIMRC",
    "web/.Exrc",
    "JENKINSFILE",
    ".GitHub/Workflows/ci.yml",
    ".Claude/settings.json",
    "Hie.Yaml",
]


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Tree:
    return build_tree(tmp_path_factory.mktemp("start-servers"))


def _context(tree: Tree, mode: Mode) -> PermissionContext:
    rules = load_rules([(tree.ws / ".claude" / "settings.json", ALLOW)], seed_yaml=None)
    return PermissionContext(mode=mode, rules=rules, workspace=tree.ws, cwd=tree.ws, home=tree.home)


@pytest.mark.parametrize("mode", list(EXPECTED))
@pytest.mark.parametrize("path", STARTED)
def test_each_is_asked_by_every_writer(tree: Tree, path: str, mode: Mode) -> None:
    ctx = _context(tree, mode)
    calls = [
        ("Write", {"file_path": path, "content": "x"}),
        ("Edit", {"file_path": path, "old_string": "a", "new_string": "b"}),
        ("Bash", {"command": f"printf 'x\\n' > {shlex.quote(path)}"}),
    ]
    decisions = [decide(tool, call, ctx).behavior for tool, call in calls]
    assert decisions == [EXPECTED[mode]] * len(calls), path


@pytest.mark.parametrize(
    "path",
    [
        "src/pylint_helpers.py",
        "docs/bazel.md",
        "tools/bazel_release.py",
        "src/merlin.ml",
        "vendor/yarn/sdks.md",
        "build/bsp.json",
        "src/Vimrc.py",
    ],
)
def test_look_alikes_stay_the_projects_own(tree: Tree, path: str) -> None:
    ctx = _context(tree, "acceptEdits")
    assert decide("Write", {"file_path": path, "content": "x"}, ctx).behavior == "allow"
