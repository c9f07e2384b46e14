"""A command's clean `git merge` of two branches the repository had, both changing a start
file, keeps the merged file (no commit held it whole); a merge result a command changed, or a
conflict it resolved by hand, is moved aside as before."""

from __future__ import annotations

from pathlib import Path

from .conftest import Layout, bash_runner, end_session, needs_bwrap, sandboxed_context
from .test_repo_content import IDENTITY, disabled, git

pytestmark = needs_bwrap

SETTINGS = ".vscode/settings.json"
LINES = ['  "a": 1,', '  "b": 2,', '  "c": 3,', '  "d": 4,', '  "e": 5']


def settings(*changed: tuple[int, str]) -> str:
    lines = list(LINES)
    for at, text in changed:
        lines[at] = text
    return "{\n" + "\n".join(lines) + "\n}\n"


def two_branches(ws: Path, theirs: tuple[int, str]) -> None:
    """`main` changes line a of the settings; `feature`, from their common commit, `theirs`."""
    git(ws, "init", "-q", "-b", "main")
    (ws / ".vscode").mkdir()
    (ws / SETTINGS).write_text(settings())
    git(ws, "add", "-A")
    git(ws, "commit", "-qm", "first")
    git(ws, "checkout", "-qb", "feature")
    (ws / SETTINGS).write_text(settings(theirs))
    git(ws, "commit", "-qam", "feature")
    git(ws, "checkout", "-q", "main")
    (ws / SETTINGS).write_text(settings((0, '  "a": 10,')))
    git(ws, "commit", "-qam", "main")


async def test_a_clean_merge_of_two_branches_keeps_the_merged_file(boundary: Layout) -> None:
    ws = boundary.workspace
    two_branches(ws, (3, '  "d": 40,'))
    boundary.hand_over()
    ctx = sandboxed_context(boundary)
    out = await bash_runner(ctx)(command=f"git {IDENTITY} merge -q --no-edit feature && echo OK")
    await end_session(ctx)
    assert "OK" in out.content, out.content
    assert "moved aside" not in out.content, out.content
    assert (ws / SETTINGS).read_text() == settings((0, '  "a": 10,'), (3, '  "d": 40,'))
    assert disabled(ws) == []
    assert git(ws, "status", "--porcelain") == ""


async def test_a_merge_a_command_changed_or_resolved_is_moved_aside(boundary: Layout) -> None:
    ws = boundary.workspace
    two_branches(ws, (3, '  "d": 40,'))
    boundary.hand_over()
    ctx = sandboxed_context(boundary)
    run = bash_runner(ctx)
    changed = f"git {IDENTITY} merge -q --no-edit feature && echo '// more' >> {SETTINGS}; echo end"
    out = await run(command=changed)
    assert "moved aside" in out.content, out.content
    assert disabled(ws) == [f"{SETTINGS}.tether-disabled"]
    await end_session(ctx)


async def test_a_conflict_resolved_inside_is_moved_aside(boundary: Layout) -> None:
    ws = boundary.workspace
    two_branches(ws, (0, '  "a": 20,'))
    boundary.hand_over()
    ctx = sandboxed_context(boundary)
    resolved = (
        f"git {IDENTITY} merge -q --no-edit feature; "
        f"git show feature:{SETTINGS} > {SETTINGS}.x; sed 's/20/30/' {SETTINGS}.x > {SETTINGS}; "
        f"rm {SETTINGS}.x; git add -A; git {IDENTITY} commit -qm merged; echo end"
    )
    out = await bash_runner(ctx)(command=resolved)
    await end_session(ctx)
    assert "moved aside" in out.content, out.content
    assert disabled(ws) == [f"{SETTINGS}.tether-disabled"]
