"""Whichever way a command points git at a repository (`git -C DIR`, `cd DIR && git`, `pushd`,
`--git-dir`), its configuration runs programs (`core.fsmonitor`, `core.pager`, hooks,
aliases): a bare repository of any name in the workspace (plain files any allowed write may
have made), or any repository outside it, is code the parser cannot see; the workspace's own
repository and a work tree's `.git`, protected at any depth, are not."""

from __future__ import annotations

import shlex
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tether.permissions import Mode, PermissionContext, decide, load_rules

from .conftest import Tree, build_tree

POLICY = {
    "permissions": {
        "allow": ["Bash(git *)", "Bash(cd *)", "Bash(pushd *)", "Bash(ls *)"],
        "deny": ["Bash(sentinel *)", "Read(./.env)"],
    }
}


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Tree:
    tree = build_tree(tmp_path_factory.mktemp("bare"))
    evil = tree.ws / "src" / "evil"
    for name in ("objects", "refs/heads", "hooks"):
        (evil / name).mkdir(parents=True)
    (evil / "HEAD").write_text("ref: refs/heads/main\n")
    (evil / "config").write_text("[core]\n\tbare = true\n\tfsmonitor = sentinel\n")
    worktree_dir = tree.ws / "src" / "linked"
    worktree_dir.mkdir()
    (worktree_dir / "HEAD").write_text("ref: refs/heads/x\n")
    (worktree_dir / "commondir").write_text("../evil\n")
    nested = tree.ws / "vendor" / "lib"
    nested.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(nested)], check=True)
    return tree


def _context(tree: Tree) -> PermissionContext:
    rules = load_rules([(tree.ws / ".claude" / "settings.json", POLICY)], seed_yaml=None)
    return PermissionContext(
        mode="default", rules=rules, workspace=tree.ws, cwd=tree.ws, home=tree.home
    )


def _reaching(directory: str) -> st.SearchStrategy[str]:
    """Commands that run git with `directory` (relative to the workspace) where it starts
    looking for its repository, in the forms bash and git offer."""
    head, _, tail = directory.rpartition("/")
    quoted = shlex.quote(directory)
    forms = [
        f"git -C {quoted} status",
        f"git -C {shlex.quote(head)} -C {tail} log -1",
        f"cd {quoted} && git status",
        f"cd {quoted}; git diff",
        f"(cd {quoted} && git log)",
        f"pushd {quoted} >/dev/null && git status",
        f"cd {shlex.quote(head)} && git -C {tail} status",
        f"git -C {quoted}/refs status",
        f"cd {quoted}/objects && git -c core.pager=cat log",
        f"ls; git -C ./{quoted} branch",
    ]
    return st.sampled_from(forms)


@given(data=st.data(), directory=st.sampled_from(["src/evil", "src/linked"]))
@settings(max_examples=40, deadline=None)
def test_git_in_a_bare_repository_is_code_not_seen(
    tree: Tree, data: st.DataObject, directory: str
) -> None:
    command = data.draw(_reaching(directory))
    decision = decide("Bash", {"command": command}, _context(tree))
    assert (
        decision.behavior,
        "outside the workspace's protected .git directories" in decision.reason,
    ) == (
        "deny",
        True,
    ), command


@pytest.mark.parametrize(
    "command",
    [
        "git status",
        "git -C src log -1",
        "cd src && git status",
        "git -C vendor/lib status",
        "cd vendor/lib && git log",
        "git -C .git log -1",
        "git --git-dir=.git status",
    ],
)
def test_the_workspaces_and_a_nested_work_trees_repositories_are_not(
    tree: Tree, command: str
) -> None:
    """A `.git` is protected at any depth (defaults.SELF_MODIFYING): its config only changes
    through asked writes."""
    assert decide("Bash", {"command": command}, _context(tree)).behavior == "allow"


def test_without_deny_rules_it_is_asked(tree: Tree, tmp_path: Path) -> None:
    rules = load_rules(
        [(tmp_path / "s.json", {"permissions": {"allow": ["Bash(git *)"]}})], seed_yaml=None
    )
    ctx = PermissionContext(
        mode="default", rules=rules, workspace=tree.ws, cwd=tree.ws, home=tree.home
    )
    decision = decide("Bash", {"command": "git -C src/evil status"}, ctx)
    assert decision.behavior == "ask"


OUTSIDE_FORMS = [
    "git -C {repo} status",
    "git -C {repo} log -1",
    "git -C {repo} diff",
    "git --git-dir={repo}/.git status",
    "git --git-dir {repo}/.git --work-tree=. status",
    "git -C / -C {repo_rel_root} status",
    "cd {repo} && git status",
    "cd {repo}/sub; git status",
    "pushd {repo} >/dev/null && git status",
    "(cd {repo}/sub && git diff)",
    "git -C {link} status",
    "git -C {gitfile} status",
    # Allowed before: find's `{}` stood for a path inside the workspace.
    "find {repo} -maxdepth 0 -exec git -C {{}} status \\;",
    "find {repo} -maxdepth 0 -ok git -C {{}} status \\;",
    "find {repo}/sub -exec git -C {{}} log \\;",
    "find {repo} -maxdepth 0 -print0 | xargs -0 -I{{}} git -C {{}} status",
]
"""Every way a command points git at the outside repository (through a symlink in the
workspace, and from a work tree whose `.git` file names it too)."""


@pytest.fixture(scope="module")
def outside(tree: Tree) -> dict[str, str]:
    """A real repository outside the workspace whose `core.fsmonitor` is a script leaving a
    marker; a symlink to it in the workspace, and a work tree whose `.git` file names it."""
    repo = tree.root / "elsewhere" / "repo"
    (repo / "sub").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "sub" / "f.txt").write_text("x\n")
    marker = tree.root / "marker"
    script = tree.root / "monitor.sh"
    script.write_text(f"#!/bin/sh\ntouch {shlex.quote(str(marker))}\nexit 1\n")
    script.chmod(0o755)
    subprocess.run(["git", "-C", str(repo), "config", "core.fsmonitor", str(script)], check=True)
    (tree.ws / "outlink").symlink_to(repo)
    gitfile = tree.ws / "checkout"
    gitfile.mkdir()
    (gitfile / ".git").write_text(f"gitdir: {repo / '.git'}\n")
    return {
        "repo": str(repo),
        "repo_rel_root": str(repo).lstrip("/"),
        "link": "outlink",
        "gitfile": "checkout",
        "marker": str(marker),
    }


def _git_context(tree: Tree, mode: Mode = "default") -> PermissionContext:
    allowed = ("git", "cd", "pushd", "find", "xargs")
    policy = {"permissions": {"allow": [f"Bash({p} *)" for p in allowed]}}
    rules = load_rules([(tree.ws / ".claude" / "settings.json", policy)], seed_yaml=None)
    return PermissionContext(mode=mode, rules=rules, workspace=tree.ws, cwd=tree.ws, home=tree.home)


@pytest.mark.parametrize("form", OUTSIDE_FORMS)
def test_git_reading_a_repository_outside_asks_and_runs_nothing_allowed(
    tree: Tree, outside: dict[str, str], form: str
) -> None:
    command = form.format(**outside)
    decision = decide("Bash", {"command": command}, _git_context(tree))
    assert decision.behavior == "ask", (command, decision.reason)
    assert "may run programs no rule has seen" in decision.reason
    denied = decide("Bash", {"command": command}, _git_context(tree, "dontAsk"))
    assert denied.behavior == "deny", command


def test_the_marker_proves_git_runs_that_configuration(tree: Tree, outside: dict[str, str]) -> None:
    """The fixture is live: run for real, the first form runs the outside fsmonitor."""
    marker = Path(outside["marker"])
    marker.unlink(missing_ok=True)
    subprocess.run(["git", "-C", outside["repo"], "status"], capture_output=True, check=False)
    assert marker.exists()
    marker.unlink()


ALLOWED_HERE = [
    "git status",
    "git log -1",
    "git -C src status",
    "cd src && git status",
    "git --git-dir=.git status",
    "git -C vendor/lib status",
    "find vendor -mindepth 1 -maxdepth 1 -name lib -exec git -C {} status \\;",
]


@pytest.mark.parametrize("command", ALLOWED_HERE)
def test_allowed_git_commands_run_no_outside_configuration(
    tree: Tree, outside: dict[str, str], command: str
) -> None:
    """What is allowed, run for real from the workspace, leaves no marker."""
    marker = Path(outside["marker"])
    marker.unlink(missing_ok=True)
    decision = decide("Bash", {"command": command}, _git_context(tree))
    assert decision.behavior == "allow", (command, decision.reason)
    subprocess.run(["bash", "-c", command], cwd=tree.ws, capture_output=True, check=False)
    assert not marker.exists(), command


def test_the_workspaces_own_repository_counts_wherever_its_git_directory_is(
    tmp_path: Path,
) -> None:
    """A workspace that is a directory inside its repository (a monorepo's package): the
    repository it is in is the project's own, its configuration not asked."""
    repo = tmp_path / "mono"
    (repo / "pkg").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    policy = {"permissions": {"allow": ["Bash(git *)"]}}
    rules = load_rules([(tmp_path / "s.json", policy)], seed_yaml=None)
    ctx = PermissionContext(
        mode="default", rules=rules, workspace=repo / "pkg", cwd=repo / "pkg", home=tmp_path
    )
    assert decide("Bash", {"command": "git status"}, ctx).behavior == "allow"
    assert decide("Bash", {"command": "git -C .. log -1"}, ctx).behavior == "allow"


@pytest.mark.parametrize(
    ("command", "behavior"),
    [
        ("git config user.name", "allow"),
        ("git config core.editor", "allow"),
        ("git config --bool core.bare", "allow"),
        ("git config --get user.email", "allow"),
        ("git config user.name x", "deny"),
        ("git config --unset user.name", "deny"),
        ("git config --unset-all user.name", "deny"),
        ("git config --remove-section user", "deny"),
        ("git config -e", "deny"),
        ("git config core.fsmonitor ./x", "deny"),
    ],
)
def test_git_config_reading_one_key_is_no_write(tree: Tree, command: str, behavior: str) -> None:
    policy = {"permissions": {"allow": ["Bash(git *)"], "deny": ["Edit(.git/**)"]}}
    rules = load_rules([(tree.ws / ".claude" / "settings.json", policy)], seed_yaml=None)
    ctx = PermissionContext(
        mode="default", rules=rules, workspace=tree.ws, cwd=tree.ws, home=tree.home
    )
    assert decide("Bash", {"command": command}, ctx).behavior == behavior, command


@pytest.mark.parametrize(
    "command",
    [
        "git ls-files --exclude-from=.env -o",
        "git ls-files -o -X .env",
        "git ls-files --exclude-f .env",
    ],
)
def test_a_git_option_reading_a_patterns_file_reads_it(tree: Tree, command: str) -> None:
    policy = {"permissions": {"allow": ["Bash(git *)"], "deny": ["Read(./.env)"]}}
    rules = load_rules([(tree.ws / ".claude" / "settings.json", policy)], seed_yaml=None)
    ctx = PermissionContext(
        mode="bypassPermissions", rules=rules, workspace=tree.ws, cwd=tree.ws, home=tree.home
    )
    assert decide("Bash", {"command": command}, ctx).behavior == "deny", command
