"""Skills whose front matter names `paths` (`tether.skills.Skill.paths`), offered to the model
the first time a file one of their globs matches is read or edited, as Claude Code activates
its conditional skills: until then they are neither in the system prompt's list nor loadable
by the Skill tool, nor listed or run as `/name`; then a reminder with that tool's result names
them, once per session. The globs are relative to the directory the session started in (a file
outside it activates nothing) and match as a `.claude/rules` rule's do (`tether.path_globs`).

A subagent's reads and edits activate them too, for the session, as in Claude Code (where the
activated skills are the process's, whichever agent touched the file): a subagent is never
given the Skill tool, so the main agent is told, with its next request."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tether.core.lifecycle import reminder
from tether.protocol import TextBlock
from tether.skills import Skill, SkillCatalog
from tether.text_files import real_path
from tether.tools.context import ToolContext


def skills_on_read(
    context: ToolContext, catalog: SkillCatalog, start: Path
) -> Callable[[], list[TextBlock]]:
    """A pending-input source: the skills of `catalog` with `paths` that a file read or
    written in the session (by the model or its subagents) has matched since it last ran,
    relative to `start`. Each is activated when the file is seen, so that `/name` runs it at
    once; the model is told at its next request."""
    base = real_path(start)
    seen: set[Path] = set()
    activated: list[Skill] = []

    def watch(path: Path) -> None:
        if path in seen:
            return
        seen.add(path)
        real = real_path(path)
        if real.is_relative_to(base) and real != base:  # Claude Code: below its directory only
            activated.extend(catalog.activate(real.relative_to(base).as_posix()))

    context.files.watchers.append(watch)

    def take() -> list[TextBlock]:
        found = [
            f"- {skill.name}: {' '.join(skill.description.split())}"
            for skill in activated
            if skill.model_invocable
        ]
        activated.clear()
        if not found:
            return []
        text = (
            "These skills now apply, for the files just read or edited; load one with the "
            "Skill tool when it fits the task:\n" + "\n".join(found)
        )
        return [TextBlock(text=reminder(text))]

    return take
