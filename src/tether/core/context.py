"""The system prompt: stable for the whole session, so the cached prefix is reused every turn."""

from __future__ import annotations

import datetime
import platform
from collections.abc import Sequence
from pathlib import Path

from tether.outside_text import encodable, shown_path

BASE_PROMPT = """\
You are tether, a coding agent working in the user's repository through tools. You act; the user \
reviews. Be direct and concise.

How to work:
- Understand before you change: find files with Glob and Grep, read them with Read.
- Read a file before you Edit or Write it; prefer Edit (exact, unique old_string) over rewriting \
whole files. Revert undoes your last change to a file.
- Run commands with Bash: tests, builds, git. The working directory persists between calls; \
environment variables do not. Commands have no stdin: never start anything interactive.
- After a change, verify it: run the relevant tests or the program.
- When several independent tool calls are needed, request them in the same response.
- Paths may be relative to the workspace root or absolute.
- For work of three or more steps, plan it first with TodoWrite and keep the list current.
- When you are done, reply with a short summary of what changed and how it was verified.
"""

STYLED_OPENING = """\
You are tether, an interactive agent that helps users according to your "Output Style", which \
describes how you should respond to user queries. You work in the user's repository through tools.
"""
"""The opening when an output style is chosen (Claude Code changes its first line so)."""


def build_system_prompt(
    workspace: Path,
    *,
    tool_names: Sequence[str],
    append: str | None = None,
    today: datetime.date | None = None,
    instructions: str = "",
    skills: str = "",
    memory: str = "",
    sandbox: str = "",
    base: str | None = None,
    cwd: Path | None = None,
    style: str = "",
    coding: bool = True,
) -> str:
    """Base instructions, then facts about the environment, then the user's additions.
    `sandbox` states the limits Bash commands run under (empty when they run unsandboxed).
    `base` replaces tether's own instructions (`--system-prompt`; empty leaves none).
    `cwd`: where Bash starts, when tether was started below the workspace root.
    `style`: the chosen output style's section, last; it changes the opening, and without
    `coding` tether's own coding instructions ("How to work") are left out.

    Nothing here changes during a session (the date is taken once): the prefix stays cacheable.
    """
    is_git = any((p / ".git").exists() for p in (workspace, *workspace.parents))
    env = "\n".join(
        [
            "Environment:",
            f"- Workspace root: {shown_path(workspace)}",
            *(
                [f"- Working directory (where Bash starts): {shown_path(cwd)}"]
                if cwd and cwd != workspace
                else []
            ),
            f"- Git repository: {'yes' if is_git else 'no'}",
            f"- Platform: {platform.system()} {platform.release()}",
            f"- Date: {(today or datetime.date.today()).isoformat()}",
            f"- Tools: {', '.join(tool_names)}",
        ]
    )
    if base is None and style.strip():
        how = BASE_PROMPT[BASE_PROMPT.index("How to work:") :]
        base = STYLED_OPENING + ("\n" + how if coding else "")
    parts = [BASE_PROMPT if base is None else base.strip(), env]
    parts = [part for part in parts if part]
    if sandbox.strip():
        parts.append(sandbox.strip())
    if skills.strip():
        parts.append(skills.strip())
    if instructions.strip():
        parts.append(
            "Project instructions (from the files named below; follow them, they override the "
            "defaults above):\n\n" + instructions.strip()
        )
    if memory.strip():
        parts.append(
            "Memory from earlier sessions in this project (summaries written when their "
            "context was compacted; may be out of date):\n\n" + memory.strip()
        )
    if append:
        parts.append(append.strip())
    if style.strip():
        parts.append(style.strip())
    # Flags, settings and instruction files may bring text with no UTF-8 form (bytes of argv).
    return encodable("\n\n".join(parts) + "\n")


def prompt_parts(
    instruction_sizes: Sequence[tuple[str, int]],
    *,
    memory: tuple[str, str] | None = None,
    skills: str = "",
    append: str | None = None,
) -> tuple[tuple[str, int], ...]:
    """The parts of a system prompt a user can shorten, each named with its characters: the
    instruction files (as `Instructions.sizes` gives them), the memory file (its name, its
    text as loaded), the skills listing, the appended text."""
    parts = [*instruction_sizes]
    if memory is not None and memory[1].strip():
        parts.append((memory[0], len(memory[1])))
    if skills.strip():
        parts.append(("the skills listing", len(skills)))
    if append and append.strip():
        parts.append(("the appended system prompt", len(append)))
    return tuple(parts)
