"""The instruction files a session tells the model of after its start: a subdirectory's
`CLAUDE.md` on the first read there (`tether.cli.nested_instructions`), a rule with `paths` on
the first read or edit of a file it matches (`tether.cli.rules_on_read`); InstructionsLoaded
hooks told of those and, as the session starts, of its system prompt's files
(`tether.cli.hook_watch`).

A subagent's own reads bring them into its own context, as in Claude Code: each subagent has
sources of its own (what it has been told is its own, and the main agent is told nothing of
its reads; a file told to the subagent is told to the main agent again when it reads there)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tether.agents import SubagentRunner
from tether.cli.hook_watch import nested_told, rules_told, watch_surroundings
from tether.cli.nested_instructions import nested_instructions
from tether.cli.rules_on_read import rules_on_read
from tether.config.instructions import Instructions
from tether.core.loop import PendingInput
from tether.core.session import Session
from tether.tools.context import ToolContext


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
    subagents: SubagentRunner | None = None,
) -> None:
    """Wire them on `session` and on each agent `subagents` starts: the project's own files
    only in a `trusted` workspace (the user's rules always); none a Read deny rule covers
    (`read_denied`)."""
    agent = session.agent
    known = instructions.files
    watched = watch_surroundings(
        session,
        workspace=settings_root,
        home=home,
        user_home=user_home,
        instruction_files=known,
        imported_by=dict(instructions.imported_by),
    )
    told = nested_told(watched, user_home)
    # Rules with `paths`: the user's always, the project's only in a trusted workspace.
    scoped = [r for r in instructions.scoped_rules if trusted or r[1] == workspace]
    told_rule = rules_told(watched, user_home)

    def sources(tool_context: ToolContext) -> list[PendingInput]:
        """Those of one agent: its own reads, its own record of what it has been told (the
        system prompt's files, `known`, are in every agent's prompt)."""
        found: list[PendingInput] = []
        if trusted:  # as the project's own instruction files: only in a trusted workspace
            found.append(nested_instructions(tool_context, workspace, known, read_denied, told))
        found.append(rules_on_read(tool_context, scoped, workspace, read_denied, told_rule))
        return found

    agent.inputs.extend(sources(agent.tool_context))
    if subagents is not None:
        subagents.inputs_for = sources
