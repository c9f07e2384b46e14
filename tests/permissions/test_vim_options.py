"""vim's `-u NONE`, `-u NORC`, `-u DEFAULTS` and `-U NONE` load no vimrc: not code unseen;
any other `-u` value is. `-i FILE` is the viminfo file, which vim writes on exit: a write,
judged as one (a protected path is not written through it)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tether.permissions import decide

from .conftest import ContextFactory

RULES = {"permissions": {"allow": ["Bash(vim *)"], "deny": ["Bash(curl *)", "Edit(.git/**)"]}}


@pytest.mark.parametrize(
    "command",
    [
        "vim -u NONE -c q README.md",
        "vim -u NORC -es -c q",
        "vim -N -u NONE -es -c q",
        "vim -es -u NONE -c '%s/a/b/' -c wq README.md",
        "vim -u DEFAULTS README.md",
        "vim -U NONE README.md",
        "vim -i NONE README.md",
    ],
)
def test_options_that_load_nothing_are_allowed(command: str, make_ctx: ContextFactory) -> None:
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict.behavior == "allow", (command, verdict.reason)


@pytest.mark.parametrize(
    "command",
    [
        "vim -u NONEX README.md",
        "vim -u ./none README.md",
        "vim -u none README.md",
        "vim -U x.vim README.md",
        "vim -u NONE -c '!curl x' README.md",
    ],
)
def test_other_startup_files_stay_unseen(command: str, make_ctx: ContextFactory) -> None:
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict.behavior != "allow", (command, verdict.reason)


@pytest.mark.parametrize(
    "command", ["vim -i .git/config -c q", "ex -i .git/info/x -c q", "view -i.git/config x"]
)
def test_the_viminfo_file_is_a_write(command: str, make_ctx: ContextFactory) -> None:
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict.behavior == "deny", (command, verdict.reason)
    assert ".git/" in verdict.reason


@pytest.mark.skipif(shutil.which("vim") is None, reason="vim is not installed")
def test_vim_writes_its_viminfo_file(tmp_path: Path) -> None:
    """What the table above says, shown with the real program."""
    info = tmp_path / "info"
    subprocess.run(
        ["vim", "-N", "-u", "NONE", "-i", str(info), "-es", "-c", "q"],
        cwd=tmp_path,
        check=False,
        capture_output=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert info.exists()
