"""What the `Edit` deny rules name is read-only inside the sandbox: a command whose path led
elsewhere when the permission engine judged it (a symlink a background command keeps
swapping) cannot write there when it runs, nor can a script the rules allow. Everything else
stays writable. As root and as an unprivileged caller."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from tether.permissions.read_denials import read_deny_matcher
from tether.permissions.rules import RuleSet, parse_rule
from tether.sandbox.denied_reads import DeniedScan, ReadDenials
from tether.tools.context import ToolContext

from .conftest import Layout, SandboxWrapper, bash_runner, end_session, needs_bwrap

pytestmark = needs_bwrap


def context(layout: Layout, *rules: str) -> ToolContext:
    ruleset = RuleSet(
        tuple(parse_rule(r, "deny", source="test", project_root=layout.workspace) for r in rules)
    )
    match, prefixes, names = read_deny_matcher(
        ruleset, workspace=layout.workspace, home=layout.home, tool="Edit"
    )
    scan = DeniedScan(ReadDenials(match, prefixes, names))
    sandbox = dataclasses.replace(layout.sandbox(), edit_scan=scan)
    return ToolContext(
        workspace=layout.workspace,
        scratch_dir=layout.scratch,
        command_wrapper=SandboxWrapper(sandbox, layout),
    )


async def test_a_write_through_a_link_to_an_edit_denied_path_fails(boundary: Layout) -> None:
    ws = boundary.workspace
    for name in ("guide", "lib"):
        (ws / name).mkdir()
        (ws / name / "page.md").write_text("orig\n")
    (ws / "keep.lock").write_text("pinned\n")
    (ws / "current").symlink_to("guide")  # swapped from "lib" after the engine's decision
    boundary.hand_over()
    ctx = context(boundary, "Edit(guide/**)", "Edit(*.lock)")
    run = bash_runner(ctx)
    outcome = await run(
        command="for p in current/page.md guide/page.md guide/new.md keep.lock; do "
        'echo evil >> "$p" 2>/dev/null && echo "wrote $p"; done; '
        "mv current/page.md x.md 2>/dev/null && echo moved; "
        "echo fine >> lib/page.md && echo fine > other.md && echo end"
    )
    assert outcome.content.splitlines()[-1] == "end", outcome.content
    assert "wrote" not in outcome.content
    assert "moved" not in outcome.content
    assert (ws / "guide" / "page.md").read_text() == "orig\n"
    assert not (ws / "guide" / "new.md").exists()
    assert (ws / "keep.lock").read_text() == "pinned\n"
    assert (ws / "lib" / "page.md").read_text() == "orig\nfine\n"
    assert (ws / "other.md").read_text() == "fine\n"
    await end_session(ctx)


async def test_an_edit_denied_path_a_command_made_is_moved_aside(boundary: Layout) -> None:
    """Not left for later commands to write (`edit_sweep.py`): moved aside, its content kept."""
    ws = boundary.workspace
    boundary.hand_over()
    ctx = context(boundary, "Edit(dist/**)")
    run = bash_runner(ctx)
    made = await run(command="mkdir dist && echo v1 > dist/app.js && echo made")
    assert made.content.startswith("made\n"), made.content
    assert "Edit(dist/**)" in made.content
    assert not (ws / "dist").exists()
    assert (ws / "dist.tether-disabled" / "app.js").read_text() == "v1\n"
    await end_session(ctx)


def test_read_deny_matcher_reads_the_tool_it_is_given(tmp_path: Path) -> None:
    rules = RuleSet(
        (
            parse_rule("Edit(a/**)", "deny", source="test", project_root=tmp_path),
            parse_rule("Read(b/**)", "deny", source="test", project_root=tmp_path),
        )
    )
    edit, _, _ = read_deny_matcher(rules, workspace=tmp_path, home=tmp_path, tool="Edit")
    read, _, _ = read_deny_matcher(rules, workspace=tmp_path, home=tmp_path)
    assert (edit(f"{tmp_path}/a/x"), edit(f"{tmp_path}/b/x")) == ("Edit(a/**)", None)
    assert (read(f"{tmp_path}/b/x"), read(f"{tmp_path}/a/x")) == ("Read(b/**)", None)
