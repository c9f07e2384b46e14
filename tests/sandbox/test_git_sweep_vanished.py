"""A git file the sweep judged and then found gone (another process's placeholder removed
between the check and the move: two workers' sessions in one project) is skipped, not an
error. Measured before: `FileNotFoundError` from the move ended a worker's session, and its
finished task's result was not recorded."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tether.sandbox.git_sweep import DISABLED, disable_new_git_programs


def _vanishing_git(bin_dir: Path, real_git: str) -> None:
    """A `git` that, asked to read a config file, finds it removed by another process (it
    removes it, as the other process did) and fails, as git does on a missing file."""
    bin_dir.mkdir()
    script = bin_dir / "git"
    script.write_text(
        "#!/bin/sh\n"
        'for a in "$@"; do prev_file="$next"; next="$a"; '
        'if [ "$prev_file" = "--file" ]; then rm -f "$a"; exit 1; fi; done\n'
        f'exec {real_git} "$@"\n'
    )
    script.chmod(0o755)


def test_a_config_worktree_removed_between_the_check_and_the_move_is_skipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_git = shutil.which("git")
    assert real_git is not None
    project = tmp_path / "project"
    subprocess.run([real_git, "init", "-q", str(project)], check=True)
    placeholder = project / ".git" / "config.worktree"
    placeholder.write_text("")  # made after the session's first command: judged
    hook = project / ".git" / "hooks" / "pre-commit"
    hook.write_text("#!/bin/sh\necho ran\n")
    _vanishing_git(tmp_path / "bin", real_git)
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}")

    done, cut = disable_new_git_programs((project,), {})

    assert cut is None
    assert not placeholder.exists()
    assert not (project / ".git" / f"config.worktree{DISABLED}").exists()
    assert not any("config.worktree" in note for note in done)
    # The rest of the sweep still ran: the new hook is disabled.
    assert not hook.exists()
    assert (project / ".git" / f"hooks{DISABLED}" / "pre-commit").is_file()
