"""The instruction files a session tells the model of after its start: a subdirectory's
`CLAUDE.md` on the first read there (`tether.cli.nested_instructions`), a rule with `paths` on
the first read or edit of a file it matches (`tether.cli.rules_on_read`); InstructionsLoaded
hooks told of those and, as the session starts, of its system prompt's files
(`tether.cli.hook_watch`)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tether.cli.hook_watch import nested_told, rules_told, watch_surroundings
from tether.cli.nested_instructions import nested_instructions
from tether.cli.rules_on_read import rules_on_read
from tether.config.instructions import Instructions
from tether.core.session import Session


def attach_instruction_sources(
    session: Session,
    instructions: Instructions,
    *,
    read_denied: Callable[[Path], bool],
    workspace: Path,
    settings_root: Path,
    home: Path,
    user_home: Path,
    trusted: bool,
) -> None:
    """Wire them on `session`: the project's own files only in a `trusted` workspace (the
    user's rules always); none a Read deny rule covers (`read_denied`)."""
    agent = session.agent
    tool_context = agent.tool_context
    known = instructions.files
    watched = watch_surroundings(
        session,
        workspace=settings_root,
        home=home,
        user_home=user_home,
        instruction_files=known,
        imported_by=dict(instructions.imported_by),
    )
    if trusted:  # as the project's own instruction files: only in a trusted workspace
        told = nested_told(watched, user_home)
        agent.inputs.append(nested_instructions(tool_context, workspace, known, read_denied, told))
    # Rules with `paths`: the user's always, the project's only in a trusted workspace.
    scoped = [r for r in instructions.scoped_rules if trusted or r[1] == workspace]
    told_rule = rules_told(watched, user_home)
    agent.inputs.append(rules_on_read(tool_context, scoped, workspace, read_denied, told_rule))
