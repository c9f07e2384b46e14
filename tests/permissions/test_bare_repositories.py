"""git finds a bare repository of any name from where it runs (`git -C evil status`, `cd evil
&& git status`): its `config` and `hooks` are plain files any allowed write may have made,
so git there is judged like `--git-dir=evil`, code the parser cannot see; a work tree's
`.git`, protected at any depth, is not."""

from __future__ import annotations

import shlex
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tether.permissions import PermissionContext, decide, load_rules

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
    assert (decision.behavior, "not in a protected .git directory" in decision.reason) == (
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
