"""Esc Esc at an empty prompt: rewind the conversation to before one of its messages, with the
files Write and Edit changed since then put back where a checkpoint of them is kept, as Claude
Code does ("checkpoints persist across sessions").

After each message's turn in the REPL, what the files it changed held when it began is kept
beside the session file (`file_history`, as the SDK's file checkpoints), with the text typed.
A message queued while the agent worked is one like any other: its checkpoint is the files as
they were when it reached the model. Every message the user sent in the conversation being
resumed is offered, in its order: those with such a checkpoint (this REPL's, an earlier
REPL's) take the files back too; for the others (sent with `-p` or through the SDK, which keep
none here) only the conversation goes back, and the REPL says so.
Rewinding puts the files back (changes made through Bash are not known), then the session goes
on from the message before, as `--resume-session-at` does: the next entry's `parentUuid` is that
message's, so the file keeps both branches and records where the new one starts. The chosen
message comes back in the prompt, to edit or send again.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from prompt_toolkit import PromptSession
from prompt_toolkit.patch_stdout import patch_stdout
from rich.console import Console
from rich.text import Text

from tether.cli.file_history import FileHistory, file_history_dir
from tether.cli.repl_sessions import opening
from tether.cli.terminal_text import terminal_safe

if TYPE_CHECKING:
    from tether.cli.setup import RunOptions
    from tether.cli.startup import Ready
    from tether.core.session import Session

NOTHING_TO_REWIND = "Nothing to rewind to yet: no message was sent in this session."
PICK_QUESTION = "rewind to before which message? (number, Enter for none) "
CONVERSATION_ONLY = "(conversation only)"
FILES_STAY = (
    "↺ Only the conversation goes back: no checkpoint of the files was kept for that message "
    "(it was not sent in a REPL), so they stay as they are now."
)


@dataclass(frozen=True)
class Checkpoint:
    """A message of the session that can be rewound to."""

    uuid: str
    text: str
    files: bool = True
    """Whether a checkpoint of the files is kept for it (else only the conversation goes back)."""


@dataclass(frozen=True)
class Rewound:
    """What a rewind asks of the REPL: go on as `options` say, `text` back in the prompt."""

    options: RunOptions
    text: str


class Checkpoints:
    """The marks of the messages whose turns run in this process, until their checkpoints
    are kept beside the session file."""

    def __init__(self) -> None:
        self._running: dict[str, tuple[str, dict[Path, int]]] = {}

    def take(self, session: Session, text: str) -> str:
        """A checkpoint for the message `text` about to be sent; the uuid its entry takes."""
        files = session.agent.tool_context.files.snapshots.mark()
        entry = str(uuid.uuid4())
        self._running[entry] = (text, files)
        return entry

    def keep(self, session: Session) -> list[str]:
        """After a turn: for each message of it (its prompt, then the queued ones in the
        order they reached the model), what the files changed since it held then, kept
        beside the session file; what went wrong, a sentence each."""
        running, self._running = self._running, {}
        path = session.recorder.path if session.recorder is not None else None
        if path is None:
            return []  # not saved: nothing to resume, nothing to rewind to
        lost: list[str] = []
        snapshots = session.agent.tool_context.files.snapshots
        for entry, (text, mark) in running.items():
            try:
                FileHistory(file_history_dir(path)).record(entry, snapshots.held_at(mark), text)
            except LookupError as e:
                lost.append(f"no checkpoint of this message: {e}")
            except OSError as e:
                lost.append(f"no checkpoint of this message: {e.strerror or e}")
        return lost

    def clear(self) -> None:
        """Another session took this one's place (/clear, /resume)."""
        self._running.clear()


def kept_checkpoints(session: Session) -> list[Checkpoint]:
    """Every message the user sent in the conversation the session goes on from, oldest
    first, each with whether its files' checkpoint is kept. Raises _Refused when the session
    file cannot be read."""
    from tether.cli.seen_messages import typed_text
    from tether.protocol import HarnessError
    from tether.store import load_session
    from tether.store.records import UserRecord

    path = session.recorder.path if session.recorder is not None else None
    if path is None or not path.exists():
        return []
    try:
        prompts = FileHistory(file_history_dir(path)).prompts()
        loaded = load_session(path)
        sent: list[Checkpoint] = []
        for place, record in loaded.placed_records():
            entry = loaded.branch[place].uuid
            said = typed_text(record.blocks) if isinstance(record, UserRecord) else None
            if entry in prompts:
                sent.append(Checkpoint(entry, prompts[entry] or said or ""))
            elif said is not None:
                sent.append(Checkpoint(entry, said, files=False))
    except HarnessError as e:
        raise _Refused(str(e)) from None
    except OSError as e:
        raise _Refused(f"cannot read the checkpoints of {path}: {e.strerror or e}") from None
    return sent


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

    session = ready.session
    try:
        taken = kept_checkpoints(session)
    except _Refused as e:
        console.print(Text(f"✗ Cannot rewind: {terminal_safe(str(e))}", style="red"))
        return None
    if not taken:
        console.print(Text(NOTHING_TO_REWIND, style="dim"))
        return None
    console.print(Text("Rewind: the conversation and the files go back to before", style="bold"))
    for number, checkpoint in enumerate(taken, 1):
        line = Text(f"  {number}. {_one_line(checkpoint.text)}")
        if not checkpoint.files:
            line.append(f"  {CONVERSATION_ONLY}", style="dim")
        console.print(line, highlight=False)
    answer = await _pick(prompt)
    if not answer:
        return None
    if not answer.isdigit() or not 1 <= int(answer) <= len(taken):
        console.print(Text(f"No message {answer!r} to rewind to.", style="yellow"))
        return None
    chosen = taken[int(answer) - 1]
    try:
        parent = _branch_point(session, chosen.uuid)
        restored = _put_files_back(session, chosen.uuid) if chosen.files else None
    except _Refused as e:
        console.print(Text(f"✗ Cannot rewind: {terminal_safe(str(e))}", style="red"))
        return None
    if restored is None:
        console.print(Text(FILES_STAY, style="yellow"))
    elif restored:
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


def _put_files_back(session: Session, entry: str) -> list[Path]:
    """Every file Write and Edit changed since the message `entry`, as it was then; the files
    that differ now, put back. Raises _Refused, having changed nothing, when a snapshot from
    then cannot be read."""
    path = session.recorder.path if session.recorder is not None else None
    try:
        state = FileHistory(file_history_dir(path)).state_at(entry) if path else None
    except OSError as e:
        raise _Refused(f"a file checkpoint cannot be read: {e.strerror or e}") from None
    if state is None:
        raise _Refused("no file checkpoint of that message is kept")
    restored: list[Path] = []
    failed: list[str] = []
    for file, content in state.items():
        try:
            if _holds(file, content):
                continue
            if content is None:
                file.unlink(missing_ok=True)
            else:
                file.write_bytes(content)
            restored.append(file)
        except OSError as e:
            failed.append(f"{file}: {e.strerror or e}")
    if failed:
        raise _Refused("could not put back " + "; ".join(failed))
    return restored


def _holds(file: Path, content: bytes | None) -> bool:
    """Whether `file` holds `content` now (None: it does not exist)."""
    try:
        return file.read_bytes() == content
    except FileNotFoundError:
        return content is None


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
