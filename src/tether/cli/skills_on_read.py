"""Skills whose front matter names `paths` (`tether.skills.Skill.paths`), offered to the model
the first time it reads or edits a file one of their globs matches, as Claude Code activates
its conditional skills: until then they are neither in the system prompt's list nor loadable
by the Skill tool; then a reminder with that tool's result names them, once per session. The
globs are relative to the directory the session started in (a file outside it activates
nothing) and match as a `.claude/rules` rule's do (`tether.path_globs`)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tether.core.lifecycle import reminder
from tether.protocol import TextBlock
from tether.skills import SkillCatalog
from tether.text_files import real_path
from tether.tools.context import ToolContext


def skills_on_read(
    context: ToolContext, catalog: SkillCatalog, start: Path
) -> Callable[[], list[TextBlock]]:
    """A pending-input source: the skills of `catalog` with `paths` that a file the model has
    read or written since it last ran matches (relative to `start`), not offered before."""
    base = real_path(start)
    seen: set[Path] = set()

    def take() -> list[TextBlock]:
        found: list[str] = []
        for path in list(context.files.reads):
            if path in seen:
                continue
            seen.add(path)
            real = real_path(path)
            if not real.is_relative_to(base) or real == base:
                continue  # Claude Code matches only files below its working directory
            for skill in catalog.activate(real.relative_to(base).as_posix()):
                if skill.model_invocable:
                    found.append(f"- {skill.name}: {' '.join(skill.description.split())}")
        if not found:
            return []
        text = (
            "These skills now apply, for the files just read or edited; load one with the "
            "Skill tool when it fits the task:\n" + "\n".join(found)
        )
        return [TextBlock(text=reminder(text))]

    return take
