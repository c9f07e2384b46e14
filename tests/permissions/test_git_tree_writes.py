"""With the sandbox off, git commands that write the working tree from commits are asked only
when git says they write a file that changes what later sessions run; git's staging and search
commands read only what git tracks (or does not ignore), so an ignored `.env` stops nothing.
Real repositories, real git."""

from __future__ import annotations

from pathlib import Path

import pytest

from tether.permissions import decide

from .test_git_history import _ctx, _git

ORDINARY = [
    "git switch feature",
    "git checkout feature",
    "git checkout -b x feature",
    "git checkout -- src/app.py",
    "git restore src/app.py",
    "git merge feature",
    "git rebase feature",
    "git cherry-pick feature",
    "git reset --hard HEAD",
    "git stash pop",
    "git stash",
    "git add .",
    "git add -A",
    "git commit -am wip",
    "git grep TODO",
    "git grep -n print -- src",
    "git add . && git commit -m wip",
]

PROTECTED = [
    "git checkout evil",
    "git switch evil",
    "git merge evil",
    "git cherry-pick evil",
    "git rebase evil",
    "git reset --hard evil",
    "git checkout evil -- .",
    "git restore --source evil .",
    "git checkout -f evil",
]


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    ws = tmp_path_factory.mktemp("tree") / "ws"
    (ws / "src").mkdir(parents=True)
    (ws / "src" / "app.py").write_text("print('hi')\n")
    (ws / ".gitignore").write_text(".env\n")
    (ws / ".env").write_text("S=1\n")
    _git(ws, "init", "-q", "-b", "main")
    _git(ws, "add", "-A")
    _git(ws, "commit", "-qm", "init")
    _git(ws, "checkout", "-qb", "feature")
    (ws / "src" / "app.py").write_text("print('feature')\n")
    _git(ws, "commit", "-qam", "feature")
    _git(ws, "checkout", "-q", "main")
    _git(ws, "checkout", "-qb", "evil")
    (ws / ".claude").mkdir()
    (ws / ".claude" / "settings.json").write_text('{"permissions": {"allow": ["Bash"]}}\n')
    _git(ws, "add", ".claude/settings.json")
    _git(ws, "commit", "-qm", "evil")
    _git(ws, "checkout", "-q", "main")
    return ws


@pytest.mark.parametrize("mode", ["default", "acceptEdits"])
@pytest.mark.parametrize("command", ORDINARY)
def test_ordinary_git_work_is_allowed(command: str, mode: str, repo: Path) -> None:
    decision = decide("Bash", {"command": command}, _ctx(repo, mode=mode))
    assert decision.behavior == "allow", decision


@pytest.mark.parametrize("command", PROTECTED)
def test_writing_a_protected_file_from_a_commit_is_asked(command: str, repo: Path) -> None:
    decision = decide("Bash", {"command": command}, _ctx(repo, mode="acceptEdits"))
    assert decision.behavior == "ask", decision


@pytest.mark.parametrize(
    "command",
    [
        "git pull ../elsewhere main",  # what it merges is not fetched yet
        "git checkout feature && git merge evil",  # git answers for the repository as it is
        "git merge $BRANCH",
    ],
)
def test_what_git_cannot_tell_yet_is_asked(command: str, repo: Path) -> None:
    decision = decide("Bash", {"command": command}, _ctx(repo, mode="acceptEdits"))
    assert decision.behavior == "ask", decision


@pytest.mark.parametrize(
    "command",
    [
        "git add -f .",
        "git stash --all",
        "git grep --untracked --no-exclude-standard S",
        "printf '' > .gitignore && git add .",
        "git rm -q --cached .gitignore && git add .",
        "git checkout feature -- .gitignore && git add -A",
    ],
)
def test_staging_that_may_take_in_an_ignored_denied_file_is_stopped(
    command: str, repo: Path
) -> None:
    decision = decide("Bash", {"command": command}, _ctx(repo, mode="acceptEdits"))
    assert decision.behavior != "allow", decision


def test_an_untracked_denied_file_git_does_not_ignore_is_stopped(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "a.txt").write_text("a\n")
    _git(ws, "init", "-q")
    _git(ws, "add", "a.txt")
    _git(ws, "commit", "-qm", "init")
    (ws / ".env").write_text("S=1\n")
    for command in ("git add .", "git add -A", "git stash -u", "git grep --untracked S"):
        decision = decide("Bash", {"command": command}, _ctx(ws))
        assert decision.behavior != "allow", (command, decision)
    for command in ("git commit -am wip", "git grep S", "git stash"):
        decision = decide("Bash", {"command": command}, _ctx(ws))
        assert decision.behavior == "allow", (command, decision)


@pytest.mark.parametrize(
    "command",
    [
        "git grep --no-ind S",
        "git grep --untr S",
        "git grep --no-exclude S",
        "git add --forc .",
        "git add --fo -A",
        "git stash --al",
        "git grep -O S",
        "git add -Af .",
    ],
)
def test_abbreviated_or_unknown_options_do_not_take_the_ignore_shortcut(
    command: str, repo: Path
) -> None:
    decision = decide("Bash", {"command": command}, _ctx(repo, mode="acceptEdits"))
    assert decision.behavior != "allow", decision


def test_pathspecs_are_given_to_git_as_written(repo: Path) -> None:
    for command in ("git grep KEY -- '*.py'", "git add '*.py'", "git checkout 'fea*'"):
        decision = decide("Bash", {"command": command}, _ctx(repo, mode="acceptEdits"))
        assert "could not judge" not in decision.reason, decision


@pytest.mark.parametrize(
    "command",
    [
        "git pull --rebase",  # no remote, no upstream: nothing to merge
        "git pull",
        "git rebase -i main",
        "git rebase --interactive --autosquash main",
        "git cherry-pick abc123",  # no such commit: git stops first
        "git revert nosuch",
        "git cherry-pick evil abc123",  # git reads every revision before it picks one
        "git rebase -i nosuch",
        "git merge --no-ff nosuch",  # "not something we can merge"
        "git merge nosuch evil",  # git reads every revision before it merges
    ],
)
def test_what_writes_nothing_or_what_is_there_is_allowed(command: str, repo: Path) -> None:
    decision = decide("Bash", {"command": command}, _ctx(repo, mode="acceptEdits"))
    assert decision.behavior == "allow", decision


@pytest.mark.parametrize(
    "command",
    [
        "git rebase -i evil",
        "git cherry-pick main..evil",
        "git fetch -q . evil:fetched && git cherry-pick fetched",
    ],
)
def test_a_missing_revision_does_not_hide_a_protected_write(command: str, repo: Path) -> None:
    decision = decide("Bash", {"command": command}, _ctx(repo, mode="acceptEdits"))
    assert decision.behavior == "ask", decision


def test_a_pull_from_a_configured_remote_is_asked(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "a.txt").write_text("a\n")
    _git(ws, "init", "-q")
    _git(ws, "add", "a.txt")
    _git(ws, "commit", "-qm", "init")
    _git(ws, "remote", "add", "origin", str(tmp_path / "elsewhere"))
    for command in ("git pull", "git pull --rebase"):
        decision = decide("Bash", {"command": command}, _ctx(ws, mode="acceptEdits"))
        assert decision.behavior == "ask", (command, decision)
