"""A context made by a library caller, who gives no `git_run_paths`, guards what git's
configuration runs programs from as the CLI's does: the repositories' include targets (missing
ones too) and hooks directories are read from the writable roots at the first write judged.
Measured before: `printf ... > .gitconfig.local`, a file `.git/config` includes, was allowed by
`Bash(printf *)` through `decide` with a hand-made context (the CLI's was asked)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tether.permissions import PermissionContext, decide, load_rules


def _context(tmp_path: Path, **given: object) -> PermissionContext:
    ws = tmp_path / "ws"
    subprocess.run(["git", "init", "-q", str(ws)], check=True)
    with (ws / ".git" / "config").open("a") as out:
        out.write("[include]\n\tpath = ../.gitconfig.local\n[core]\n\thooksPath = tools/hooks\n")
    settings = {"permissions": {"allow": ["Bash(printf *)", "Write"]}}
    rules = load_rules([(ws / ".claude" / "settings.json", settings)], seed_yaml=None)
    return PermissionContext(
        mode="default",
        rules=rules,
        workspace=ws,
        cwd=ws,
        home=tmp_path,
        **given,  # type: ignore[arg-type]
    )


def test_a_library_context_reads_what_git_runs_from(tmp_path: Path) -> None:
    ctx = _context(tmp_path)
    calls = [
        ("Bash", {"command": "printf '[core]\\n\\tfsmonitor = x\\n' > .gitconfig.local"}),
        ("Write", {"file_path": ".gitconfig.local", "content": "[core]\n"}),
        ("Bash", {"command": "printf x > tools/hooks/pre-commit"}),
        ("Bash", {"command": "printf x > notes.txt"}),
    ]
    assert [decide(t, c, ctx).behavior for t, c in calls] == ["ask", "ask", "ask", "allow"]


def test_paths_given_are_the_callers_say(tmp_path: Path) -> None:
    """An explicit tuple (the CLI reads them once per session) is used as given."""
    ctx = _context(tmp_path, git_run_paths=())
    call = {"command": "printf x > .gitconfig.local"}
    assert decide("Bash", call, ctx).behavior == "allow"
