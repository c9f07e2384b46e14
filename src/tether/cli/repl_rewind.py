"""Esc Esc at an empty prompt (or `/rewind`): rewind the conversation to before one of its
messages, with the files Write and Edit changed since then put back where a checkpoint of them
is kept, as Claude Code does ("checkpoints persist across sessions"). The list shows what each
message changed in the files (`tether.cli.rewind_changes`); the message picked, the choices
follow (`tether.cli.rewind_choices`): code and conversation, either alone, or a summary of the
conversation from or up to that message.

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
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from prompt_toolkit import PromptSession
from rich.console import Console
from rich.text import Text

from tether.cli.file_history import FileHistory, file_history_dir
from tether.cli.picker_question import ask_picker
from tether.cli.repl_sessions import opening
from tether.cli.rewind_changes import change_lines
from tether.cli.rewind_choices import Choice, choose, summarize
from tether.cli.terminal_text import terminal_safe

if TYPE_CHECKING:
    from tether.cli.setup import RunOptions
    from tether.cli.startup import Ready
    from tether.core.session import Session

NOTHING_TO_REWIND = "Nothing to rewind to yet: no message was sent in this session."
HEADER = "Rewind: restore the code and/or the conversation to the point before…"
PICK_QUESTION = "rewind to before which message? (number, Enter for none) "
CONVERSATION_ONLY = "(conversation only)"
FILES_KEPT = "↺ Only the conversation goes back: the files stay as they are now."
NO_CODE_CHECKPOINT = (
    "No checkpoint of the files was kept for that message (it was not sent in a REPL): "
    "its code cannot be restored."
)
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
    said: str | None = None
    """Its words as the session file holds them (a command's expansion, for one typed)."""
    bash: bool = False
    """Whether a Bash command ran in its turn (what that changed is not known)."""


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
    from tether.store.records import AssistantRecord, UserRecord

    path = session.recorder.path if session.recorder is not None else None
    if path is None or not path.exists():
        return []
    try:
        prompts = FileHistory(file_history_dir(path)).prompts()
        loaded = load_session(path)
        sent: list[Checkpoint] = []
        for place, record in loaded.placed_records():
            entry = loaded.branch[place].uuid
            if isinstance(record, AssistantRecord) and sent:
                if any(use.name == "Bash" for use in record.message.tool_uses()):
                    sent[-1] = replace(sent[-1], bash=True)
                continue
            said = typed_text(record.blocks) if isinstance(record, UserRecord) else None
            if entry in prompts:
                sent.append(Checkpoint(entry, prompts[entry] or said or "", said=said))
            elif said is not None:
                sent.append(Checkpoint(entry, said, files=False, said=said))
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
    cwd = Path(session.started().cwd)
    path = session.recorder.path if session.recorder is not None else None
    changes = change_lines(taken, FileHistory(file_history_dir(path)), cwd) if path else []
    console.print(Text(HEADER, style="bold"))
    width = min(60, max(len(_one_line(c.text)) for c in taken))
    for number, (checkpoint, changed) in enumerate(zip(taken, changes, strict=True), 1):
        line = Text(f"  {number}. {_one_line(checkpoint.text)}")
        if not checkpoint.files:
            line.append(f"  {CONVERSATION_ONLY}", style="dim")
        else:
            line.append(" " * max(2, width - len(_one_line(checkpoint.text)) + 2))
            line.append(changed, style="dim")
        console.print(line, highlight=False)
    answer = await ask_picker(prompt, PICK_QUESTION)
    if not answer:
        return None
    if not answer.isdigit() or not 1 <= int(answer) <= len(taken):
        console.print(Text(f"No message {answer!r} to rewind to.", style="yellow"))
        return None
    picked = int(answer) - 1
    chosen = taken[picked]
    choice = await choose(console, prompt, _one_line(chosen.text, 60))
    if choice is None:
        return None
    if choice in (Choice.SUMMARIZE_FROM, Choice.SUMMARIZE_UP_TO):
        await summarize(console, ready, taken, picked, choice)
        return None
    files = chosen.files and choice is not Choice.CONVERSATION
    if choice is Choice.CODE and not chosen.files:
        console.print(Text(NO_CODE_CHECKPOINT, style="yellow"))
        return None
    try:
        parent = _branch_point(session, chosen.uuid) if choice is not Choice.CODE else None
        restored = _put_files_back(session, chosen.uuid) if files else None
    except _Refused as e:
        console.print(Text(f"✗ Cannot rewind: {terminal_safe(str(e))}", style="red"))
        return None
    if choice is Choice.CONVERSATION:
        console.print(Text(FILES_KEPT, style="cyan"))
    elif restored is None:
        console.print(Text(FILES_STAY, style="yellow"))
    elif restored:
        names = ", ".join(terminal_safe(_shorten(p, session)) for p in sorted(restored))
        console.print(Text(f"↺ Files put back: {names}", style="cyan"), highlight=False)
    else:
        console.print(Text("↺ No file was changed since then.", style="dim"))
    if choice is Choice.CODE:
        return None  # the conversation goes on as it is
    options = opening(
        ready.options,
        resume=session.session_id if parent is not None else None,
        resume_at=parent,
        model=model_spec or ready.options.model,
        permission_mode=permission_mode(session),
    )
    return Rewound(options=options, text=chosen.text)


def keep_spend(before: Session, after: Session) -> None:
    """What `before` spent stays spent in `after`, the session its rewind goes on in, as
    Claude Code's totals do: money and tokens come back from the session file when `after`
    resumes it (its entries off the branch count), not when it starts afresh (a rewind to the
    first message), as the time of the model calls does; the lines edited are not in the
    file."""
    if after.session_id != before.session_id:
        after.usage = after.usage + before.usage
        after.cost_usd += before.cost_usd
        after.api_ms += before.api_ms
    # This process's clock goes on across the rewind: only the earlier runs' time is carried.
    after.earlier_wall_ms = before.earlier_wall_ms
    after.lines_added += before.lines_added
    after.lines_removed += before.lines_removed


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


def _one_line(text: str, width: int = 80) -> str:
    line = " ".join(text.split())
    return terminal_safe(line if len(line) <= width else line[: width - 1] + "…")


def _shorten(path: Path, session: Session) -> str:
    try:
        return str(path.relative_to(Path(session.started().cwd)))
    except ValueError:
        return str(path)
