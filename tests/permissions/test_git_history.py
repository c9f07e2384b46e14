"""git prints what its commits, stashes, reflogs and index hold: a file a Read rule denies is
safe from `git show`, `git log -p`, `git cat-file --batch`... only when the repository never
held it. Real repositories, real git."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tether.permissions import PermissionContext, decide, load_rules

SETTINGS = {
    "permissions": {
        "allow": ["Bash(git:*)", "Bash(echo:*)", "Bash(xargs:*)"],
        "deny": ["Read(**/.env)", "Bash(git push:*)"],
    }
}

PRINTERS = [
    "git show HEAD",
    "git show",
    "git log -p",
    "git log -u --all",
    "git log -U1",
    "git log --all -p -S S",
    "git log --all --format=%H -G '^S'",
    "git log -S S --oneline",
    "git log -SS --format=%h",
    "git log --pickaxe-regex -S '^S' --all",
    "git whatchanged -G S",
    "git merge-file --object-id -p HEAD:.env HEAD:.env HEAD:.env",
    "git merge-file --obj -p HEAD:.env HEAD:.env HEAD:.env",
    "git show HEAD -- sub",
    "git cat-file --batch <<< HEAD:.env",
    "echo HEAD:.env | git cat-file --batch",
    "git cat-file -p HEAD:sub/.env",
    "git cat-file blob HEAD:.env",
    "git format-patch -1 --stdout",
    "git format-patch --root --stdout",
    "git whatchanged -p",
    "git reflog -p",
    "git log -g -p",
    "git bundle create /dev/stdout HEAD",
    "git diff 4b825dc642cb6eb9a060e54bf8d69288fbee4904 HEAD",
    "git diff --cached",
    "git diff HEAD~0",
    "git diff-tree -p --root HEAD",
    "git diff-index -p HEAD",
    "git archive HEAD",
    "git archive --format=tar HEAD sub",
    "git grep S HEAD",
    "git grep --cached S",
    "git fast-export --all",
    "git pack-objects --stdout --revs <<< HEAD",
    "git range-diff HEAD HEAD",
    "git log --cc",
    "git stash show -p",
    "git -C sub log -p",
    "cd sub && git show HEAD",
    "git merge-tree HEAD HEAD",
    "git upload-archive .",
    "git show --stat HEAD:.env",
    "git show --name-only HEAD:sub",
    "git log -p --follow -- a.txt",
    "git log -p --full-diff -- a.txt",
    "git show HEAD:.env -- a.txt",
    "git log -p -- .",
    "git stash list -p",
    "git show --stat HEAD^{tree}",
    "git config --blob=HEAD:.env -l",
    "git config --blob HEAD:sub/.env --list",
    "git config --blo=HEAD~0:.env --get-regexp .",
    "git config --bl HEAD:.env --get S",
    "git config --blob=:.env -l",
    "git config --list --blob=HEAD:.env",
    "git -C sub config --blob=HEAD:sub/.env -l",
]

NAMES_ONLY = [
    "git status",
    "git log --oneline",
    "git log --stat",
    "git diff --stat HEAD",
    "git ls-files",
    "git cat-file -t HEAD",
    "git cat-file --batch-check <<< HEAD",
    "git rev-parse HEAD",
    "git branch -a",
]


def _git(ws: Path, *args: str) -> None:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(ws.parent),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "a",
        "GIT_AUTHOR_EMAIL": "a@b",
        "GIT_COMMITTER_NAME": "a",
        "GIT_COMMITTER_EMAIL": "a@b",
    }
    subprocess.run(["git", *args], cwd=ws, env=env, check=True, capture_output=True, timeout=30)


def _repository(root: Path, name: str, *, ignored: bool) -> Path:
    ws = root / name
    (ws / "sub").mkdir(parents=True)
    (ws / ".env").write_text("S=1\n")
    (ws / "sub" / ".env").write_text("S=2\n")
    (ws / "a.txt").write_text("a\n")
    if ignored:
        (ws / ".gitignore").write_text(".env\n")
    _git(ws, "init", "-q")
    _git(ws, "add", "-A")
    _git(ws, "commit", "-qm", "init")
    return ws


def _ctx(ws: Path, *, mode: str = "default") -> PermissionContext:
    rules = load_rules([(ws / ".claude" / "settings.json", SETTINGS)], seed_yaml=None)
    return PermissionContext(
        mode=mode,  # type: ignore[arg-type]
        rules=rules,
        workspace=ws,
        cwd=ws,
        home=ws.parent / "home",
    )


@pytest.fixture(scope="module")
def repos(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("history")
    tracked = _repository(root, "tracked", ignored=False)
    clean = _repository(root, "clean", ignored=True)
    # Committed once, then removed and ignored: only the history holds it.
    past = _repository(root, "past", ignored=False)
    (past / ".gitignore").write_text(".env\n")
    _git(past, "rm", "-q", "--cached", ".env", "sub/.env")
    _git(past, "add", ".gitignore")
    _git(past, "commit", "-qm", "forget")
    # Only in a stash, whose commit no branch reaches.
    stashed = _repository(root, "stashed", ignored=True)
    _git(stashed, "stash", "push", "-q", "--all")
    return {"tracked": tracked, "clean": clean, "past": past, "stashed": stashed}


CHANGES_ONLY = {"git diff --cached", "git diff HEAD~0"}
"""Changes against what is there now: none of the denied file's while it is unchanged."""
BRANCH_ONLY = {
    *("git show HEAD", "git show", "git log -p", "git log -U1", "git show HEAD -- sub"),
    "git log -p -- .",
}
"""Commits of the branch: none holds a file only ever stashed (git_shown.py asks git)."""


@pytest.mark.parametrize("command", PRINTERS)
@pytest.mark.parametrize("repo", ["tracked", "past", "stashed"])
def test_commands_printing_history_ask_when_it_held_a_denied_file(
    command: str, repo: str, repos: dict[str, Path]
) -> None:
    prints_it = command not in CHANGES_ONLY and not (repo == "stashed" and command in BRANCH_ONLY)
    for mode in ("default", "acceptEdits", "bypassPermissions"):
        decision = decide("Bash", {"command": command}, _ctx(repos[repo], mode=mode))
        if prints_it:
            assert decision.behavior != "allow", (repo, mode, decision)
        elif mode == "default":
            assert decision.behavior == "allow", (repo, mode, decision)


def test_a_change_of_the_denied_file_is_printed_and_asked(tmp_path: Path) -> None:
    ws = _repository(tmp_path, "ws", ignored=False)
    for command in ("git diff --cached", "git diff HEAD~0", "git diff", "git diff | cat"):
        assert decide("Bash", {"command": command}, _ctx(ws)).behavior == "allow", command
    (ws / ".env").write_text("S=changed\n")
    for command in ("git diff", "git diff HEAD~0", "git diff | cat", "git diff -- ."):
        assert decide("Bash", {"command": command}, _ctx(ws)).behavior == "ask", command
    staged = "git add -f .env && git diff --cached"  # staged first: git cannot tell before
    assert decide("Bash", {"command": staged}, _ctx(ws)).behavior != "allow"
    written = "echo x >> .env; git diff"
    assert decide("Bash", {"command": written}, _ctx(ws)).behavior != "allow"


@pytest.mark.parametrize("command", [*PRINTERS, *NAMES_ONLY])
def test_history_without_denied_files_is_allowed(command: str, repos: dict[str, Path]) -> None:
    decision = decide("Bash", {"command": command}, _ctx(repos["clean"]))
    if ":" in command or command.startswith(("git grep", "git stash show", "git upload")):
        return  # naming .env, searching the tree, no stash, serving objects: judged apart
    assert decision.behavior == "allow", decision


@pytest.mark.parametrize(
    "command",
    [
        "git config --blob=HEAD:.env -l",
        "git config --blob HEAD:sub/.env --list",
        "git config --bl=:.env -l",
    ],
)
def test_a_blob_naming_a_denied_file_is_asked_whatever_history_holds(
    command: str, repos: dict[str, Path]
) -> None:
    decision = decide("Bash", {"command": command}, _ctx(repos["clean"]))
    assert decision.behavior == "ask", decision
    assert ".env, which deny rule Read(**/.env) covers" in decision.reason


@pytest.mark.parametrize("command", NAMES_ONLY)
def test_commands_printing_names_only_stay_allowed(command: str, repos: dict[str, Path]) -> None:
    decision = decide("Bash", {"command": command}, _ctx(repos["tracked"]))
    assert decision.behavior == "allow", decision


LIMITED = [
    "git show --stat HEAD",
    "git show --stat",
    "git show --name-only HEAD~0",
    "git show --numstat HEAD^ HEAD~1",
    "git diff -- a.txt",
    "git diff HEAD -- a.txt",
    "git log -p -- a.txt",
    "git log -p -- ./a.txt",
    "git show HEAD:a.txt",
    "git stash list",
    "git config user.name",
    "git config --bool core.bare",
    "git config --blob=HEAD:a.txt -l",
]
"""What prints none of a denied file's content, though the repository's history holds one:
counts and names of commits, patches limited to other paths, one other file's blob."""


@pytest.mark.parametrize("command", LIMITED)
@pytest.mark.parametrize("repo", ["tracked", "past"])
def test_output_that_cannot_hold_the_denied_file_is_allowed(
    command: str, repo: str, repos: dict[str, Path]
) -> None:
    decision = decide("Bash", {"command": command}, _ctx(repos[repo]))
    assert decision.behavior == "allow", decision


def test_a_tag_naming_a_blob_is_no_commit(tmp_path: Path) -> None:
    """`show --stat` prints a blob whole: a tag may name one, so only a word peeled to a
    commit counts as one."""
    ws = _repository(tmp_path, "ws", ignored=False)
    _git(ws, "tag", "t", "HEAD:.env")
    assert decide("Bash", {"command": "git show --stat t"}, _ctx(ws)).behavior == "ask"
    assert decide("Bash", {"command": "git show --stat t~0"}, _ctx(ws)).behavior == "allow"


def test_every_stored_object_is_asked_where_a_read_rule_exists(repos: dict[str, Path]) -> None:
    for command in ("git cat-file --batch-all-objects --batch", "git fsck --lost-found"):
        decision = decide("Bash", {"command": command}, _ctx(repos["clean"]))
        assert decision.behavior == "ask", decision


def test_a_new_commit_of_a_denied_file_is_seen_at_the_next_decision(tmp_path: Path) -> None:
    ws = _repository(tmp_path, "ws", ignored=True)
    assert decide("Bash", {"command": "git log -p"}, _ctx(ws)).behavior == "allow"
    _git(ws, "add", "-f", ".env")
    assert decide("Bash", {"command": "git diff --cached"}, _ctx(ws)).behavior == "ask"
    _git(ws, "commit", "-qm", "oops")
    _git(ws, "rm", "-q", "--cached", ".env")
    _git(ws, "commit", "-qm", "undo")
    decision = decide("Bash", {"command": "git log -p"}, _ctx(ws))
    assert decision.behavior == "ask"
    assert ".env" in decision.reason
