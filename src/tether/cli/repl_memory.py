"""`/memory`, as Claude Code's: the instruction files of this session (the user's
`~/.claude/CLAUDE.md`, the project's `CLAUDE.md` and `CLAUDE.local.md`, and every other one it
read: rules, imports, parent directories) listed; the one picked is opened in the user's editor
(`$VISUAL`, `$EDITOR`, else `vi`), created first when it does not exist yet. An edit is read
from the next message on (the instructions are read again and the system prompt rebuilt), as
Claude Code reloads its memory files.

Claude Code's older `#` shortcut (a line starting with `#` saved to a memory file) is gone from
its current releases; such a line is a message, as there."""

from __future__ import annotations

import asyncio
import os
import shlex
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

from prompt_toolkit import PromptSession
from rich.console import Console
from rich.text import Text

from tether.cli.picker_question import ask_picker
from tether.cli.terminal_text import terminal_safe

if TYPE_CHECKING:
    from tether.cli.startup import Ready

PICK_QUESTION = "edit which memory file? (number, Enter for none) "


def memory_files(ready: Ready, home: Path) -> list[tuple[Path, str]]:
    """The files `/memory` offers, each with what it is: the three Claude Code always offers,
    then the others the session read, in reading order."""
    workspace = Path(ready.session.started().cwd)
    offered = [
        (home / ".claude" / "CLAUDE.md", "user memory, for every project"),
        (workspace / "CLAUDE.md", "project memory, checked in"),
        (workspace / "CLAUDE.local.md", "project memory, local (not checked in)"),
    ]
    seen = {path.resolve() for path, _ in offered}
    read = ready.instructions.current.files if ready.instructions is not None else ()
    for path in read:
        if path.resolve() not in seen:
            seen.add(path.resolve())
            offered.append((path, "read by this session"))
    return offered


async def edit_memory(
    console: Console, prompt: PromptSession[str], ready: Ready, home: Path
) -> Path | None:
    """List the memory files, open the one picked in the editor; the file when it changed."""
    workspace = Path(ready.session.started().cwd)
    offered = memory_files(ready, home)
    console.print(Text("Memory files (read into every prompt of this project):", style="bold"))
    for number, (path, what) in enumerate(offered, 1):
        shown = _shown(path, workspace, home)
        missing = "" if path.exists() else ", not created yet"
        console.print(Text(f"  {number}. {shown}  ({what}{missing})"), highlight=False)
    answer = await ask_picker(prompt, PICK_QUESTION)
    if not answer:
        return None
    if not answer.isdigit() or not 1 <= int(answer) <= len(offered):
        console.print(Text(f"No memory file {answer!r}.", style="yellow"))
        return None
    path = offered[int(answer) - 1][0]
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch(exist_ok=True)
        before = path.read_bytes()
    except OSError as e:
        console.print(Text(f"✗ {terminal_safe(str(path))}: {e.strerror or e}", style="red"))
        return None
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
    try:
        command = [*shlex.split(editor), str(path)]
        code = await asyncio.to_thread(subprocess.call, command)
    except (OSError, ValueError) as e:
        console.print(Text(f"✗ Cannot open the editor {editor!r}: {e}", style="red"))
        return None
    if code != 0:
        console.print(Text(f"The editor {editor!r} ended with status {code}.", style="yellow"))
    try:
        changed = path.read_bytes() != before
    except OSError:
        changed = True
    shown = terminal_safe(_shown(path, workspace, home))
    if not changed:
        console.print(Text(f"{shown} not changed.", style="dim"))
        return None
    if ready.instructions is not None:
        ready.instructions.reload()
    console.print(Text(f"✓ Saved {shown}: read from the next message on.", style="cyan"))
    return path


def _shown(path: Path, workspace: Path, home: Path) -> str:
    for base, prefix in ((workspace, ""), (home, "~/")):
        if path.is_relative_to(base):
            return prefix + str(path.relative_to(base))
    return str(path)
