"""A command that makes thousands of start-up files gets a short note: the count, the
directories with the most, the first few paths, and where the whole list is."""

from __future__ import annotations

import re
from pathlib import Path

from .conftest import Layout, bash_runner, end_session, needs_bwrap, sandboxed_context

pytestmark = needs_bwrap


async def test_the_note_on_many_files_moved_aside_is_short(boundary: Layout) -> None:
    ws = boundary.workspace
    (ws / "sub").mkdir()
    boundary.hand_over()
    ctx = sandboxed_context(boundary)
    run = bash_runner(ctx)
    make = (
        "mkdir -p sub/.claude/skills/deploy other/.claude; "
        "for i in $(seq 1 3000); do : > sub/.claude/j$i; done; "
        "echo x > sub/.claude/skills/deploy/SKILL.md; echo '{}' > other/.claude/settings.json; "
        "echo end"
    )
    out = await run(command=make)
    assert out.content.startswith("end"), out.content
    assert len(out.content) < 1500, out.content
    assert "3002 files" in out.content
    assert f"{ws}/sub/.claude (3000)" in out.content
    found = re.search(r"the whole list is in (\S+\.txt)", out.content)
    assert found is not None, out.content
    listed = Path(found.group(1)).read_text().splitlines()
    assert len(listed) == 3002
    assert f"{ws}/sub/.claude/skills/deploy/SKILL.md" in listed
    assert not (ws / "sub" / ".claude" / "skills" / "deploy" / "SKILL.md").exists()
    await end_session(ctx)


async def test_a_few_files_are_named(boundary: Layout) -> None:
    ws = boundary.workspace
    boundary.hand_over()
    ctx = sandboxed_context(boundary)
    run = bash_runner(ctx)
    out = await run(command="mkdir -p a/.claude; echo '{}' > a/.claude/settings.json; echo end")
    assert f"{ws}/a/.claude/settings.json" in out.content, out.content
    assert "whole list" not in out.content
    await end_session(ctx)
