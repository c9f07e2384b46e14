"""In a repository whose history once held `.env`, a `git diff`, `git log` or `git show` is
judged on the files it prints, asked of git (git_shown.py): not on all of history. Real
repositories, real git."""

from __future__ import annotations

from pathlib import Path

import pytest

from tether.permissions import decide

from .test_git_history import _ctx, _git


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    ws = tmp_path_factory.mktemp("shown") / "ws"
    (ws / "src").mkdir(parents=True)
    (ws / "src" / "app.py").write_text("print('hi')\n")
    (ws / ".env").write_text("S=1\n")
    (ws / "README.md").write_text("# r\n")
    _git(ws, "init", "-q", "-b", "main")
    _git(ws, "add", "-A")
    _git(ws, "commit", "-qm", "with the secret")
    _git(ws, "rm", "-q", "--cached", ".env")
    (ws / ".gitignore").write_text(".env\n")
    _git(ws, "add", ".gitignore")
    _git(ws, "commit", "-qm", "untrack")
    (ws / "src" / "app.py").write_text("print('more')\n")
    _git(ws, "commit", "-qam", "more")
    (ws / "src" / "app.py").write_text("print('changed')\n")  # a change not staged
    return ws


@pytest.mark.parametrize(
    "command",
    [
        "git diff",
        "git diff | cat",
        "git diff --stat -p",
        "git diff --cached",
        "git diff -- src",
        "git log -p src/app.py",
        "git log -p -- src/app.py",
        "git log -1 -p",
        "git log -n 1 -p --oneline",
        "git show",
        "git show HEAD --stat -p",
        "git diff HEAD~1 HEAD",
    ],
)
def test_what_does_not_print_the_denied_file_is_allowed(command: str, repo: Path) -> None:
    decision = decide("Bash", {"command": command}, _ctx(repo))
    assert decision.behavior == "allow", (command, decision)


@pytest.mark.parametrize(
    "command",
    [
        "git log -p",
        "git log -2 -p",
        "git show HEAD~1",
        "git diff HEAD~2",
        "git diff HEAD~2 HEAD -- .",
        "git log -p --all",
        "git log -p -- .env",
        "git show HEAD~2:.env",
        "git log -p -G S",
        "git log -p $REV",
    ],
)
def test_what_may_print_the_denied_file_is_asked(command: str, repo: Path) -> None:
    decision = decide("Bash", {"command": command}, _ctx(repo))
    assert decision.behavior != "allow", (command, decision)
