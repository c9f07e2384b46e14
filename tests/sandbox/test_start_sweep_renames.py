"""A directory the tools filled while no command ran (the Write tool, no question for an
innocuous path), renamed by a command into a start-up place: its files keep their own change
times, but the moved directory's is the command's. Judged by the way down: what lies below a
directory that a command brought to its path is the command's. And a start-up directory too
big for the walk's bound is not kept silently."""

from __future__ import annotations

import asyncio
import json
import os
import time
from pathlib import Path

from tether.sandbox import start_sweep
from tether.sandbox.git_sweep import DISABLED
from tether.tools.registry import ToolOutcome

from .conftest import Layout, bash_runner, end_session, needs_bwrap, sandboxed_context

HOOK = '{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "id"}]}]}}'


async def settled(*paths: Path) -> None:
    """Until the tools' changes (the files' and their directories' change times) fall before
    the next command's start, by the sweep's margin: theirs, not a command's."""
    latest = max(os.lstat(p).st_ctime_ns for path in paths for p in (path, *path.parents[:3]))
    remaining = latest + start_sweep.CLOCK_MARGIN_NS + 1_000_000 - time.time_ns()
    if remaining > 0:  # a clock to pass, no event: at most the margin, 20 ms
        await asyncio.sleep(remaining / 1e9)


@needs_bwrap
async def test_a_tool_written_directory_renamed_into_place_is_moved_aside(
    boundary: Layout,
) -> None:
    ws = boundary.workspace
    (ws / "sub" / "y").mkdir(parents=True)
    boundary.hand_over()
    ctx = sandboxed_context(boundary)
    run = bash_runner(ctx)
    assert await run(command="echo first") == ToolOutcome("first", False)
    staged = ws / "sub" / "x" / "settings.json"  # what the Write tool made, no question
    staged.parent.mkdir(parents=True)
    staged.write_text(HOOK)
    kept = ws / "sub" / "y" / ".mcp.json"  # the Write tool's, in a directory there before
    kept.write_text(HOOK)
    boundary.hand_over()
    await settled(staged, kept)
    outcome = await run(command="mv sub/x sub/.claude && touch sub/y/notes && echo end")
    assert outcome.content.startswith("end"), outcome.content
    assert "moved aside" in outcome.content
    assert not (ws / "sub" / ".claude" / "settings.json").exists()
    assert (ws / "sub" / ".claude" / f"settings.json{DISABLED}").read_text() == HOOK
    # A command writing beside a tool's file in a directory it did not bring there: kept.
    assert kept.read_text() == HOOK
    await end_session(ctx)


@needs_bwrap
async def test_a_plugins_hooks_directory_swapped_for_a_tool_written_one_is_moved_aside(
    boundary: Layout,
) -> None:
    ws = boundary.workspace
    (ws / ".claude-plugin").mkdir()
    market = {
        "name": "m",
        "owner": {"name": "o"},
        "plugins": [{"name": "p", "source": "./plugins/p"}],
    }
    (ws / ".claude-plugin" / "marketplace.json").write_text(json.dumps(market))
    (ws / "plugins" / "p" / "hooks").mkdir(parents=True)
    (ws / "plugins" / "p" / "hooks" / "hooks.json").write_text("{}")
    boundary.hand_over()
    ctx = sandboxed_context(boundary)
    run = bash_runner(ctx)
    assert await run(command="echo first") == ToolOutcome("first", False)
    staged = ws / "staging" / "hk" / "hooks.json"
    staged.parent.mkdir(parents=True)
    staged.write_text(HOOK)
    boundary.hand_over()
    await settled(staged)
    outcome = await run(
        command="mv plugins/p/hooks old && mv staging/hk plugins/p/hooks && echo end"
    )
    assert outcome.content.startswith("end"), outcome.content
    hooks = ws / "plugins" / "p" / "hooks"
    assert not (hooks / "hooks.json").exists()
    assert (hooks / f"hooks.json{DISABLED}").read_text() == HOOK
    await end_session(ctx)


def test_a_command_writing_beside_a_tools_file_leaves_it(tmp_path: Path) -> None:
    """Directories on the way that were there at the last sweep, changed by the command (a
    file added beside): the tools' file below them stays theirs."""
    (tmp_path / "sub" / "y").mkdir(parents=True)
    sweep = start_sweep.StartSweep()
    sweep.started((tmp_path,))
    sweep.sweep((tmp_path,))
    sweep.ended()
    kept = tmp_path / "sub" / "y" / ".mcp.json"
    kept.write_text(HOOK)
    asyncio.run(settled(kept))
    sweep.started((tmp_path,))
    (tmp_path / "sub" / "y" / "notes").touch()
    (tmp_path / "sub" / "other").touch()
    sweep.sweep((tmp_path,))
    sweep.ended()
    assert kept.read_text() == HOOK
    assert sweep.take_note() is None


def test_a_start_up_directory_past_the_bound_is_not_kept_silently(tmp_path: Path) -> None:
    """Many files in a `.claude` and a skill below them: everything the command made goes
    aside, however many files come first, and the note names a few and counts the rest."""
    sweep = start_sweep.StartSweep()
    sweep.started((tmp_path,))
    junk = tmp_path / "sub" / ".claude" / "a"
    junk.mkdir(parents=True)
    for n in range(20_050):
        (junk / f"f{n}").touch()
    skill = tmp_path / "sub" / ".claude" / "skills" / "deploy" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("---\nallowed-tools: Bash(wget:*)\n---\n")
    sweep.sweep((tmp_path,))
    sweep.ended()
    assert not skill.exists()
    assert skill.with_name(f"SKILL.md{DISABLED}").exists()
    note = sweep.take_note() or ""
    assert "moved aside" in note
    assert len(note) < 2_000, note[:300]
    assert f"{20_051} files" in note


def test_past_the_walks_bound_commands_are_refused(tmp_path: Path) -> None:
    """A start-up directory bigger than the whole walk's bound: cut, and the cut said."""
    sweep = start_sweep.StartSweep(max_entries=100)
    (tmp_path / "sub" / ".claude").mkdir(parents=True)
    sweep.started((tmp_path,))
    for n in range(150):
        (tmp_path / "sub" / ".claude" / f"f{n}").touch()
    sweep.sweep((tmp_path,))
    sweep.ended()
    assert sweep.cut is not None
    assert "fail closed" in sweep.cut
