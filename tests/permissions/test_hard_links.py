"""A hard link is the same file under another name: a rule on one name holds on every name,
for the file tools and for Bash, reading and writing (link_names.py, hard_links.py)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tether.permissions import Mode, PermissionContext, decide, load_rules

from .conftest import Tree, build_tree

POLICY = {
    "permissions": {
        "allow": ["Bash(cat *)", "Bash(grep *)", "Bash(head *)", "Bash(cp *)", "Edit"],
        "deny": ["Read(**/.env)", "Read(~/.ssh/**)", "Edit(./config/app.toml)"],
    }
}


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Tree:
    tree = build_tree(tmp_path_factory.mktemp("links"))
    (tree.ws / "notes").mkdir()
    os.link(tree.ws / ".env", tree.ws / "notes" / "envcopy")
    os.link(tree.home / ".ssh" / "id_rsa", tree.ws / "notes" / "key.txt")
    os.link(tree.ws / "config" / "app.toml", tree.ws / "notes" / "settings.txt")
    os.link(tree.ws / "README.md", tree.ws / "notes" / "readme-copy.md")
    return tree


def _context(tree: Tree) -> PermissionContext:
    rules = load_rules([(tree.ws / ".claude" / "settings.json", POLICY)], seed_yaml=None)
    return PermissionContext(
        mode="default", rules=rules, workspace=tree.ws, cwd=tree.ws, home=tree.home
    )


@pytest.mark.parametrize("name", ["notes/envcopy", "notes/key.txt"])
@pytest.mark.parametrize(
    ("tool", "form"),
    [
        ("Read", {"file_path": "{path}"}),
        ("Grep", {"pattern": "x", "path": "{path}"}),
        ("Bash", {"command": "cat {name}"}),
        ("Bash", {"command": "grep -h . {name}"}),
        ("Bash", {"command": "head -1 ./notes/../{name}"}),
        ("Bash", {"command": "cp {name} out.txt"}),
    ],
)
def test_reading_a_denied_file_by_another_name_is_denied(
    tree: Tree, name: str, tool: str, form: dict[str, str]
) -> None:
    tool_input = {k: v.format(path=str(tree.ws / name), name=name) for k, v in form.items()}
    decision = decide(tool, tool_input, _context(tree))
    assert decision.behavior == "deny", (tool_input, decision.reason)


def test_writing_a_denied_file_by_another_name_is_denied(tree: Tree) -> None:
    path = str(tree.ws / "notes" / "settings.txt")
    edit = {"file_path": path, "old_string": "x", "new_string": "y"}
    assert decide("Edit", edit, _context(tree)).behavior == "deny"
    assert decide("Write", {"file_path": path, "content": "x"}, _context(tree)).behavior == "deny"


@pytest.mark.parametrize(
    ("tool", "tool_input"),
    [
        ("Read", {"file_path": "{ws}/notes/readme-copy.md"}),
        ("Bash", {"command": "cat notes/readme-copy.md README.md"}),
        ("Write", {"file_path": "{ws}/notes/readme-copy.md", "content": "x"}),
    ],
)
def test_a_hard_link_between_allowed_files_is_allowed(
    tree: Tree, tool: str, tool_input: dict[str, str]
) -> None:
    filled = {k: tree.fill(v) for k, v in tool_input.items()}
    assert decide(tool, filled, _context(tree)).behavior == "allow"


def test_names_not_all_found_under_a_rule_matching_anywhere_are_asked(
    tree: Tree, tmp_path: Path
) -> None:
    """With `Read(*.pem)` a name anywhere may match: a file whose other name lies outside
    every directory looked at is not known, asked."""
    elsewhere = tmp_path / "x.pem"
    elsewhere.write_text("pem\n")
    inside = tree.ws / "notes" / "odd.txt"
    os.link(elsewhere, inside)
    policy = {"permissions": {"deny": ["Read(*.pem)"]}}
    rules = load_rules([(tree.ws / ".claude" / "settings.json", policy)], seed_yaml=None)
    ctx = PermissionContext(
        mode="default", rules=rules, workspace=tree.ws, cwd=tree.ws, home=tree.home
    )
    decision = decide("Read", {"file_path": str(inside)}, ctx)
    assert decision.behavior == "ask"
    assert "hard links" in decision.reason
    inside.unlink()


def test_a_recursive_read_reaching_a_hard_link_meets_the_rule(tree: Tree) -> None:
    """`grep -r` of a directory holding `envcopy` reads `.env` by its other name: asked,
    while a directory holding only a link between allowed files is not."""
    ctx = _context(tree)
    decision = decide("Bash", {"command": "grep -r KEY notes"}, ctx)
    assert decision.behavior == "ask", decision.reason
    (tree.ws / "docs").mkdir(exist_ok=True)
    (tree.ws / "docs" / "a.md").write_text("a\n")
    if not (tree.ws / "docs" / "b.md").exists():
        os.link(tree.ws / "docs" / "a.md", tree.ws / "docs" / "b.md")
    assert decide("Bash", {"command": "grep -r KEY docs"}, ctx).behavior == "allow"


@pytest.mark.parametrize("mode", ["default", "bypassPermissions"])
def test_a_recursive_read_through_a_process_directory_meets_the_rules_below(
    tree: Tree, mode: Mode
) -> None:
    """`grep -r x /proc/self/cwd` searches the shell's directory: the rules below it hold
    (hard, so bypassPermissions too), while a plain file through it is only not known."""
    rules = load_rules([(tree.ws / ".claude" / "settings.json", POLICY)], seed_yaml=None)
    ctx = PermissionContext(mode=mode, rules=rules, workspace=tree.ws, cwd=tree.ws, home=tree.home)
    for command in ("grep -r KEY /proc/self/cwd", "grep -r KEY /proc/self/cwd/notes"):
        assert decide("Bash", {"command": command}, ctx).behavior != "allow", command


def test_a_link_made_after_the_first_question_is_found(tmp_path: Path) -> None:
    """The linked files are indexed once; a name made since (a link to a denied file that was
    there) is found all the same."""
    tree = build_tree(tmp_path)
    (tree.ws / "notes").mkdir()
    os.link(tree.ws / "README.md", tree.ws / "notes" / "readme-copy.md")
    ctx = _context(tree)
    first = decide("Read", {"file_path": str(tree.ws / "notes" / "readme-copy.md")}, ctx)
    assert first.behavior == "allow", first.reason
    os.link(tree.ws / ".env", tree.ws / "notes" / "late")
    late = decide("Read", {"file_path": str(tree.ws / "notes" / "late")}, ctx)
    assert late.behavior == "deny", late.reason
    again = decide("Bash", {"command": "cat notes/late"}, ctx)
    assert again.behavior == "deny", again.reason


def test_a_virtualenv_of_links_to_a_cache_outside_is_read_without_asking(tmp_path: Path) -> None:
    """A package manager's virtualenv is hard links into its cache, outside the workspace:
    their other names match no rule, and a workspace past the old walk's bound is no reason
    to ask."""
    tree = build_tree(tmp_path)
    cache = tmp_path / "cache"
    for package in range(30):
        (cache / f"p{package}").mkdir(parents=True)
        (tree.ws / ".venv" / f"p{package}").mkdir(parents=True)
        for module in range(700):
            kept = cache / f"p{package}" / f"m{module}.py"
            kept.write_text("x = 1\n")
            os.link(kept, tree.ws / ".venv" / f"p{package}" / f"m{module}.py")
    ctx = _context(tree)
    for name in (".venv/p3/m7.py", ".venv/p29/m699.py"):
        decision = decide("Read", {"file_path": str(tree.ws / name)}, ctx)
        assert decision.behavior == "allow", decision.reason
        decision = decide("Bash", {"command": f"cat {name}"}, ctx)
        assert decision.behavior == "allow", decision.reason
