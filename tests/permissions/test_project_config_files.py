"""Project files that make an ordinary command run other code later (`.npmrc`, `.yarnrc.yml`,
`.cargo/config.toml`, mise's and lefthook's files, `.hg/hgrc`, a dev container, a `.pth` in
a virtualenv): every entry of the shared table, at any depth, written by any tool or command,
is asked in every mode but bypassPermissions, whatever allow rules or acceptEdits say."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tether.permissions import Mode, PermissionContext, decide, load_rules
from tether.project_files import PROJECT_SELF_MODIFYING

from .conftest import Tree, build_tree

ALLOW_ALL = {
    "permissions": {
        "allow": [
            *("Edit", "Write(**)", "Bash(echo *)", "Bash(printf *)", "Bash(tee *)"),
            *("Bash(cp *)", "Bash(cd *)", "Bash(mkdir *)", "Bash(sed *)"),
        ]
    }
}
EXPECTED: dict[Mode, str] = {
    "default": "ask",
    "acceptEdits": "ask",
    "plan": "deny",
    "dontAsk": "deny",
    "bypassPermissions": "allow",
}
_NAME = st.text("abcdefghijklmnopqrstuvwxyz0123456789._-", min_size=1, max_size=8).filter(
    lambda name: name not in (".", "..") and not name.startswith("-")
)
_ENGINE_ENTRIES = [entry.path for entry in PROJECT_SELF_MODIFYING if entry.engine]


@st.composite
def protected_paths(draw: st.DrawFn) -> str:
    """An entry of the table, its patterns filled in, below some directories, maybe a file
    inside it (an entry that names a directory covers what is below)."""
    entry = draw(st.sampled_from(_ENGINE_ENTRIES))
    root_only = entry.startswith("/")  # found at a project's root only (`/*.props`)
    filled = re.sub(r"[*?]", lambda m: draw(_NAME) if m.group() == "*" else "x", entry[root_only:])
    above = draw(st.lists(_NAME.filter(lambda n: not n.startswith(".")), max_size=3))
    above = [] if root_only else above
    inside = draw(st.lists(_NAME, max_size=2))
    return "/".join([*above, filled, *inside])


def _writes(path: str) -> list[tuple[str, dict[str, str]]]:
    """Every way a call may write `path` (relative to the workspace)."""
    quoted = shlex.quote(path)
    head, _, tail = path.rpartition("/")
    calls = [
        ("Write", {"file_path": path, "content": "x"}),
        ("Edit", {"file_path": path, "old_string": "a", "new_string": "b"}),
        ("Bash", {"command": f"echo x > {quoted}"}),
        ("Bash", {"command": f"printf x >> {quoted}"}),
        ("Bash", {"command": f"echo x | tee ./{quoted}"}),
        ("Bash", {"command": f"cp README.md ./{quoted}"}),
        ("Bash", {"command": f"sed -n p README.md > {quoted}"}),
    ]
    if head:
        calls.append(("Bash", {"command": f"cd {shlex.quote(head)} && echo x > {tail}"}))
    return calls


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Tree:
    return build_tree(tmp_path_factory.mktemp("project-files"))


def _context(tree: Tree, mode: Mode) -> PermissionContext:
    rules = load_rules([(tree.ws / ".claude" / "settings.json", ALLOW_ALL)], seed_yaml=None)
    return PermissionContext(mode=mode, rules=rules, workspace=tree.ws, cwd=tree.ws, home=tree.home)


@given(path=protected_paths(), mode=st.sampled_from(list(EXPECTED)))
@settings(max_examples=150, deadline=None)
def test_every_entry_is_asked_at_any_depth_by_every_writer(
    tree: Tree, path: str, mode: Mode
) -> None:
    ctx = _context(tree, mode)
    decisions = {
        tool + " " + str(i): decide(tool, call, ctx).behavior
        for i, (tool, call) in enumerate(_writes(path))
    }
    assert decisions == dict.fromkeys(decisions, EXPECTED[mode])


@pytest.mark.parametrize(
    "path",
    [
        ".npmrc",
        "web/.npmrc",
        ".yarnrc.yml",
        ".yarn/releases/yarn-4.1.0.cjs",
        ".cargo/config.toml",
        "crates/x/.cargo/config",
        "rust-toolchain.toml",
        "mise.toml",
        "mise.local.toml",
        ".mise.production.toml",
        ".config/mise/config.toml",
        ".tool-versions",
        "lefthook.yml",
        ".lefthook-local.yml",
        ".devcontainer/devcontainer.json",
        ".devcontainer.json",
        ".hg/hgrc",
        ".venv/lib/python3.12/site-packages/evil.pth",
        ".venv/lib/python3.12/site-packages/sitecustomize.py",
        ".venv/lib/python3.12/site-packages/usercustomize/__init__.py",
        ".venv/lib/python3.12/site-packages/__pycache__/sitecustomize.cpython-312.pyc",
        "vendor/py/lib/python3/dist-packages/x.pth",
    ],
)
def test_the_attackers_files_are_asked_in_accept_edits(tree: Tree, path: str) -> None:
    ctx = _context(tree, "acceptEdits")
    decision = decide("Write", {"file_path": path, "content": "x"}, ctx)
    assert (decision.behavior, "asked in every mode but bypassPermissions" in decision.reason) == (
        "ask",
        True,
    )


@pytest.mark.parametrize(
    "path",
    [
        "package.json",
        "pyproject.toml",
        "Makefile",
        "src/mise.py",
        "docs/npmrc.md",
        ".venv/lib/python3.12/site-packages/requests/api.py",
        "src/site-packages.txt",
        "notes/x.pt",
        ".gitattributes",
    ],
)
def test_the_projects_own_files_are_not(tree: Tree, path: str) -> None:
    ctx = _context(tree, "acceptEdits")
    assert decide("Write", {"file_path": path, "content": "x"}, ctx).behavior == "allow"


def test_a_pattern_that_may_reach_one_is_asked(tree: Tree) -> None:
    """A write known only as a pattern (`$X`, a glob) is asked where it may be one of them."""
    ctx = _context(tree, "acceptEdits")
    command = "echo x > .venv/lib/python3.12/site-packages/$NAME"
    assert decide("Bash", {"command": command}, ctx).behavior == "ask"
    assert decide("Bash", {"command": "echo x > src/*.txt"}, ctx).behavior == "allow"


def test_the_workspace_itself_inside_a_protected_name_is_a_project(tmp_path: Path) -> None:
    """Entries are judged below the workspace root: a workspace under some `.cargo` directory
    is not all protected."""
    tree = build_tree(tmp_path / ".cargo" / "config")
    ctx = _context(tree, "acceptEdits")
    assert decide("Write", {"file_path": "src/app.py", "content": "x"}, ctx).behavior == "allow"
