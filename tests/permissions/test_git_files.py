"""git commands as readers and writers of files their words name in forms of their own: the
plumbing that writes the file it is given (`merge-file`, `interpret-trailers --in-place`,
`mailsplit -o`), forced checkouts that put back what HEAD holds, `--pathspec-from-file`, and
revisions' content shown by path (`log -L`, `grep REV`). Checked against real git where the
claim is what git does."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tether.permissions import Decision, PermissionContext, decide

from .conftest import ContextFactory, Tree

DENIES = ["Read(./.env)", "Read(./secrets/**)", "Edit(./.env)"]
GIT_ID = ["-c", "user.name=t", "-c", "user.email=t@t"]
ALLOW_GIT = {"permissions": {"allow": ["Bash(git *)"]}}


def bash(command: str, ctx: PermissionContext) -> Decision:
    return decide("Bash", {"command": command}, ctx)


def behaviors(commands: list[str], ctx: PermissionContext) -> dict[str, str]:
    return {c: bash(c, ctx).behavior for c in commands}


def git(ws: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *GIT_ID, *args], cwd=ws, capture_output=True, text=True)


def _repository(ws: Path) -> None:
    """A repository that tracks `.claude/settings.json`, `.env` and `secrets/api.key`."""
    git(ws, "init", "-q", "-b", "main")
    (ws / ".claude").mkdir(exist_ok=True)
    (ws / ".claude" / "settings.json").write_text('{"permissions": {}}\n')
    git(ws, "add", "-A", "-f")
    git(ws, "commit", "-qm", "one")


# 14. git writing files with the sandbox off.

FORCED = ["git checkout -f", "git checkout --force", "git checkout -fq", "git switch -f main"]


def test_a_forced_checkout_puts_back_what_head_holds(tree: Tree, make_ctx: ContextFactory) -> None:
    ws = tree.ws
    _repository(ws)
    settings = ws / ".claude" / "settings.json"
    for command in FORCED:
        settings.write_text('{"changed": true}\n')
        git(ws, *command.split()[1:])
        assert settings.read_text() == '{"permissions": {}}\n', command
    # Changed again: each would put it back (git is asked which files it writes).
    settings.write_text('{"changed": true}\n')
    off = make_ctx(ALLOW_GIT, mode="acceptEdits")
    assert behaviors(FORCED, off) == dict.fromkeys(FORCED, "ask")
    assert ".claude/settings.json" in bash("git checkout -f", off).reason
    sandboxed = make_ctx(ALLOW_GIT, bash_sandboxed=True)
    assert behaviors(FORCED, sandboxed) == dict.fromkeys(FORCED, "allow")
    # Without force and a commit, checkout only reports.
    assert bash("git checkout", off).behavior == "allow"


PLUMBING_WRITES = [
    "git merge-file .git/config base.txt other.txt",
    "git merge-file -q --diff3 .claude/settings.json base other",
    "git interpret-trailers --in-place --trailer x=y .mcp.json",
    "git mailsplit -o.git/hooks mail.mbox",
    "git mailinfo msg .git/hooks/pre-push < mail",
    "git credential-store --file .git/config store",
    "git fast-export --export-marks=.git/config HEAD",
    "git index-pack -o .tether/x.idx pack.pack",
    "git bugreport -o .vscode",
]


def test_plumbing_that_writes_the_file_it_names(tree: Tree, make_ctx: ContextFactory) -> None:
    ws = tree.ws
    _repository(ws)
    (ws / "base.txt").write_text("a\n")
    (ws / "other.txt").write_text("a\n[core]\n\tfsmonitor = evil\n")
    config = (ws / ".git" / "config").read_text()
    git(ws, "merge-file", ".git/config", "base.txt", "other.txt")
    assert (ws / ".git" / "config").read_text() != config  # it wrote git's config
    ctx = make_ctx(ALLOW_GIT, mode="acceptEdits", bash_sandboxed=True)
    assert behaviors(PLUMBING_WRITES, ctx) == dict.fromkeys(PLUMBING_WRITES, "ask")
    denied = make_ctx({"permissions": {"deny": DENIES, "allow": ["Bash(git *)"]}})
    assert bash("git merge-file .env a b", denied).behavior == "deny"
    # Printing instead of writing, or without --in-place: nothing written.
    printing = [
        "git merge-file -p .git/config base.txt other.txt",
        "git interpret-trailers --trailer x=y msg.txt",
    ]
    assert behaviors(printing, ctx) == dict.fromkeys(printing, "allow")


def test_git_commands_without_an_entry_are_asked_with_the_sandbox_off(
    make_ctx: ContextFactory,
) -> None:
    off = make_ctx(ALLOW_GIT)
    for command in ("git merge-recursive HEAD -- HEAD topic", "git for-each-repo --config=x gc"):
        assert bash(command, off).behavior == "ask", command
    assert bash("git for-each-repo --config=x gc", make_ctx(ALLOW_GIT, bash_sandboxed=True)) == (
        Decision("allow", "Bash(git *)", "allowed by Bash(git *)")
    )


@pytest.mark.parametrize(
    ("command", "written"),
    [("git maintenance register", ".gitconfig"), ("git maintenance start", ".gitconfig")],
)
def test_git_maintenance_writes_the_users_config(
    command: str, written: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    decision = bash(command, make_ctx(ALLOW_GIT, bash_sandboxed=True))
    assert decision.behavior == "ask"
    assert str(tree.home / written) in decision.reason


# 17. `--pathspec-from-file`: a read of its file, whatever the subcommand.


def test_a_pathspec_file_is_read_and_shown_in_complaints(
    tree: Tree, make_ctx: ContextFactory
) -> None:
    ws = tree.ws
    _repository(ws)
    (ws / ".env").write_text("KEY=hunter2\n")
    shown = git(ws, "rm", "--pathspec-from-file=.env")
    assert "hunter2" in shown.stderr  # git names the pathspec it could not match
    ctx = make_ctx({"permissions": {"deny": DENIES, "allow": ["Bash(git *)"]}})
    commands = [
        "git rm -q --pathspec-from-file=.env",
        "git restore --pathspec-from-file .env",
        "git reset --pathspec-from=secrets/api.key",
        "git stash push --pathspec-from-file=.env",
        "git -C src add --pathspec-from-fi=../.env",
        "git diff --pathspec-from-file=secrets/list",
    ]
    assert behaviors(commands, ctx) == dict.fromkeys(commands, "deny")


def test_the_paths_a_pathspec_file_names_may_be_any_file(make_ctx: ContextFactory) -> None:
    ctx = make_ctx({"permissions": {"deny": DENIES, "allow": ["Bash(git *)"]}})
    # What rm and checkout write, and what diff shows, is named inside: may be a denied file.
    for command in (
        "git rm --pathspec-from-file=paths.txt",
        "git checkout --pathspec-from-file=paths.txt",
        "git diff --pathspec-from-file=paths.txt",
    ):
        assert bash(command, ctx).behavior == "ask", command
    # Staging and committing show nothing of them.
    assert bash("git commit --pathspec-from-file=paths.txt -m x", ctx).behavior == "allow"
    # `--pathspec-f` is ambiguous (git refuses it), `--pathspec-file-nul` is a flag.
    assert bash("git commit --pathspec-file-nul -m x", ctx).behavior == "allow"


# 18. Tracked content shown by path in a revision.


def test_revisions_show_tracked_denied_files(tree: Tree, make_ctx: ContextFactory) -> None:
    ws = tree.ws
    _repository(ws)
    assert "KEY=1" in git(ws, "grep", "KEY", "HEAD").stdout  # .env is tracked here
    assert "KEY=1" in git(ws, "log", "-L1,1:.env").stdout
    ctx = make_ctx({"permissions": {"deny": DENIES, "allow": ["Bash(git *)"]}})
    asked = [
        "git log -L1,1:.env",
        "git log -L :main:secrets/api.key",
        "git log --oneline -L 1,+3:.env main",
        "git grep KEY HEAD",
        "git grep -e KEY main~2",
        "git grep KEY HEAD:secrets",
        "git grep -n KEY v1.0 -- .",
        "git grep KEY src",  # `src` may be a revision
        "git grep KEY ./src src/ '*.env'",  # a pathspec's `*` crosses `/`: any depth
    ]
    assert behaviors(asked, ctx) == dict.fromkeys(asked, "ask")
    fine = [
        "git log -L1,5:src/app.py",
        "git grep KEY HEAD -- src",
        "git grep KEY -- src",
        "git grep KEY ./src src/",
        "git grep KEY ./src src/ '*.py'",  # git lists the tracked files they match
    ]
    assert behaviors(fine, ctx) == dict.fromkeys(fine, "allow")
