"""Esc Esc at an empty prompt: rewind the conversation to before one of the messages sent in
this session, with the files Write and Edit changed since then put back, as Claude Code does.

Each message the REPL sends gets a checkpoint: the uuid its entry in the session file takes and
the files' change counts when its turn began (`Snapshots.mark`). Rewinding to one puts the
files back (`Snapshots.rewind`; changes made through Bash are not known), then the session goes
on from the message before it, as `--resume-session-at` does: the next entry's `parentUuid`
is that message's, so the file keeps both branches and records where the new one starts. The
chosen message comes back in the prompt, to edit or send again.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from prompt_toolkit import PromptSession
from prompt_toolkit.patch_stdout import patch_stdout
from rich.console import Console
from rich.text import Text

from tether.cli.repl_sessions import opening
from tether.cli.terminal_text import terminal_safe

if TYPE_CHECKING:
    from tether.cli.setup import RunOptions
    from tether.cli.startup import Ready
    from tether.core.session import Session

NOTHING_TO_REWIND = "Nothing to rewind to yet: no message was sent in this session."
PICK_QUESTION = "rewind to before which message? (number, Enter for none) "


@dataclass
class Checkpoint:
    """A message sent, and the point its turn began at."""

    uuid: str
    text: str
    files: dict[Path, int] = field(default_factory=lambda: dict[Path, int]())
    """`Snapshots.mark()` when its turn began."""


@dataclass(frozen=True)
class Rewound:
    """What a rewind asks of the REPL: go on as `options` say, `text` back in the prompt."""

    options: RunOptions
    text: str


class Checkpoints:
    """The messages the REPL sent in the current session, oldest first."""

    def __init__(self) -> None:
        self.taken: list[Checkpoint] = []

    def take(self, session: Session, text: str) -> str:
        """A checkpoint for the message `text` about to be sent; the uuid its entry takes."""
        files = session.agent.tool_context.files.snapshots.mark()
        checkpoint = Checkpoint(uuid=str(uuid.uuid4()), text=text, files=files)
        self.taken.append(checkpoint)
        return checkpoint.uuid

    def clear(self) -> None:
        """Another session took this one's place (/clear, /resume)."""
        self.taken.clear()


async def rewind(
    console: Console,
    prompt: PromptSession[str],
    ready: Ready,
    checkpoints: Checkpoints,
    model_spec: str | None,
) -> Rewound | None:
    """List the messages sent, ask which to rewind to, put the files back; the session to go
    on with, or None (nothing chosen, or what could not be done said on `console`)."""
    from tether.cli.repl_commands import permission_mode

    taken = checkpoints.taken
    if not taken:
        console.print(Text(NOTHING_TO_REWIND, style="dim"))
        return None
    console.print(Text("Rewind: the conversation and the files go back to before", style="bold"))
    for number, checkpoint in enumerate(taken, 1):
        console.print(Text(f"  {number}. {_one_line(checkpoint.text)}"), highlight=False)
    answer = await _pick(prompt)
    if not answer:
        return None
    if not answer.isdigit() or not 1 <= int(answer) <= len(taken):
        console.print(Text(f"No message {answer!r} to rewind to.", style="yellow"))
        return None
    place = int(answer) - 1
    chosen = taken[place]
    session = ready.session
    try:
        parent = _branch_point(session, chosen.uuid)
        restored = _put_files_back(session, chosen.files)
    except _Refused as e:
        console.print(Text(f"✗ Cannot rewind: {terminal_safe(str(e))}", style="red"))
        return None
    del taken[place:]
    for earlier in taken:
        # Their marks counted changes of the session that ends here; the next one's snapshots
        # start from what the files are now, so each earlier point can put back what follows.
        earlier.files = {}
    if restored:
        names = ", ".join(terminal_safe(_shorten(p, session)) for p in sorted(restored))
        console.print(Text(f"↺ Files put back: {names}", style="cyan"), highlight=False)
    else:
        console.print(Text("↺ No file was changed since then.", style="dim"))
    options = opening(
        ready.options,
        resume=session.session_id if parent is not None else None,
        resume_at=parent,
        model=model_spec or ready.options.model,
        permission_mode=permission_mode(session),
    )
    return Rewound(options=options, text=chosen.text)


class _Refused(Exception):
    pass


def _branch_point(session: Session, entry_uuid: str) -> str | None:
    """The message before the entry `entry_uuid` of the session's file (None: it was the
    first). Raises _Refused when the file does not hold it."""
    from tether.protocol import HarnessError
    from tether.store import load_session

    path = session.recorder.path if session.recorder is not None else None
    if path is None:
        raise _Refused("this session is not saved, so it cannot go on from an earlier message")
    try:
        loaded = load_session(path)
    except HarnessError as e:
        raise _Refused(str(e)) from None
    for entry in loaded.branch:
        if entry.uuid == entry_uuid:
            return entry.parent
    raise _Refused(f"the session file {path} does not hold that message")


def _put_files_back(session: Session, mark: dict[Path, int]) -> list[Path]:
    """Every file Write and Edit changed since `mark`, as it was then; the files put back.
    Raises _Refused, having changed nothing, when a snapshot from then is gone."""
    snapshots = session.agent.tool_context.files.snapshots
    try:
        snapshots.changed_since(mark)  # all or nothing: a dropped snapshot refuses first
        restored = snapshots.rewind(mark)
    except LookupError as e:
        raise _Refused(str(e)) from None
    failed: list[str] = []
    for path, content in restored.items():
        try:
            if content is None:
                path.unlink(missing_ok=True)
            else:
                path.write_bytes(content)
        except OSError as e:
            failed.append(f"{path}: {e.strerror or e}")
    if failed:
        raise _Refused("could not put back " + "; ".join(failed))
    return list(restored)


async def _pick(prompt: PromptSession[str]) -> str:
    """The answer, read by a prompt of its own (the message prompt keeps its history)."""
    picker: PromptSession[str] = PromptSession(input=prompt.input, output=prompt.output)
    with patch_stdout(raw=True):
        try:
            return (await picker.prompt_async(PICK_QUESTION)).strip()
        except (KeyboardInterrupt, EOFError):
            return ""


def _one_line(text: str, width: int = 80) -> str:
    line = " ".join(text.split())
    return terminal_safe(line if len(line) <= width else line[: width - 1] + "…")


def _shorten(path: Path, session: Session) -> str:
    try:
        return str(path.relative_to(Path(session.started().cwd)))
    except ValueError:
        return str(path)
