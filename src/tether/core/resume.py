"""Continuing a session from its file.

`resume_session` claims the file before reading it: the writer's lock keeps a second process
from mixing its entries in. When another process holds it, this one continues in a fork (a
new file that starts as a copy of the conversation), so both go on and neither loses work;
when the file cannot be written, the session goes on unsaved and says so once.

`restore` rebuilds the history (repaired: see `replay`), the plan and what the session cost.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

from tether.core.boundary import without_thinking
from tether.core.history import History
from tether.core.plan_tracker import PlanTracker
from tether.core.recording import WAITING, SessionRecorder
from tether.core.replay import RecordRepair
from tether.protocol import HarnessError, Usage
from tether.store import (
    AssistantRecord,
    CompactionRecord,
    EntryWatcher,
    EstimateRecord,
    LoadedSession,
    Record,
    SessionInUse,
    SessionWriter,
    SpendRecord,
    UserRecord,
    WindowRecord,
    fork_session,
    load_session,
)
from tether.store.branch import REWIND_TYPE
from tether.store.write_errors import not_writable
from tether.tools.context import TodoItem

UNFINISHED_AT_EXIT = (
    "tether stopped before this tool call finished (the process ended); its outcome is "
    "unknown. Check the state it would have changed before relying on it."
)


FULL_BYTES_PER_TOKEN = 8
"""Bytes of a session file kept in full per token of the model's window when a session is
resumed: a token is three to four bytes of JSON, so twice what any request could send."""


@dataclass(frozen=True)
class Restored:
    history: History
    usage: Usage
    """What the conversation's model calls used, together."""
    cost_usd: float
    """What they cost, each priced on its own (see `restore`'s `price`)."""
    side_usage: Usage
    side_cost_usd: float
    """What subagents and compaction summaries used and cost (recorded as spend entries)."""
    todos: tuple[TodoItem, ...]
    damage: tuple[str, ...]
    """What of the file was not resumed as written, one sentence each (empty when intact)."""
    windows: dict[str, WindowRecord]
    """Context windows endpoints reported, by model id (the newest for each)."""
    estimates: dict[str, float]
    """Characters a token took in the accepted requests, by model id (the newest for each)."""
    api_ms: int = 0
    """What the conversation's model calls took, together (their entries' `durationMs`)."""
    lines_added: int = 0
    lines_removed: int = 0
    """The lines the session's file changes added and removed (their results' entries'
    `toolUseResult`), those rewound from too: Claude Code's cost totals."""
    by_model: dict[str, tuple[Usage, float]] = field(default_factory=dict[str, tuple[Usage, float]])
    """The conversation's model calls by the model that answered them: what each used and
    cost together (Claude Code's `modelUsage` goes on from them)."""
    wall_ms: int = 0
    """The session's wall time by its newest reply, rewound-from ones too; 0: none recorded."""


def restore(
    loaded: LoadedSession,
    *,
    light: bool = True,
    full_bytes: int = 0,
    price: Callable[[str | None, Usage], float] | None = None,
) -> Restored:
    """The history a session file holds, as it was when written (compactions included), the
    plan as TodoWrite last set it, and the session's spend (its entries off the branch too: a
    rewind does not give back what was spent). Damage anywhere in the file is
    repaired (see `replay`) and said in `damage`. With `light`, the bulk of what a compaction
    took out of the view is not kept in memory (see `History.lighten_compacted`), nor, with
    `full_bytes` too, the bulk of messages further than that many bytes of the file from the
    branch's end (see `History.lighten_newest`): memory holds one entry in full at a time, the
    newest `full_bytes` of the conversation, and the head and tail of the strings before it.
    Each model call's usage is priced by `price`, at the rates of the model that answered it
    (None: not named), as it is read and added up, not kept."""
    history = History()
    usage, cost, api_ms = Usage(), 0.0, 0
    by_model: dict[str, tuple[Usage, float]] = {}

    def count(record: AssistantRecord, used: Usage) -> float:
        spent = price(record.model, used) if price is not None else 0.0
        if record.model is not None:
            was_used, was_spent = by_model.get(record.model, (Usage(), 0.0))
            by_model[record.model] = (was_used + used, was_spent + spent)
        return spent

    lines = [0, 0]  # added, removed
    wall_ms = 0  # what the replies say the session's wall time was, each run's included
    side_usage, side_cost = Usage(), 0.0
    problems: list[str] = []
    windows: dict[str, WindowRecord] = {}
    estimates: dict[str, float] = {}
    repair = RecordRepair()
    tail = loaded.tail_start(full_bytes) if light and full_bytes > 0 else 0
    # The prompts a compaction could carry from the folded part: a tenth of the window, at
    # the most characters a token could take (see `compaction.PROMPTS_SHARE`).
    history.folded.prompt_chars = full_bytes // 10
    read = 0  # the place of the newest entry read: what the repair yields is that or older

    def placed() -> Iterator[Record]:
        nonlocal read, wall_ms
        for read, record in loaded.placed_records(problems):  # noqa: B007
            if isinstance(record, AssistantRecord):  # read before a repair could drop it
                wall_ms = max(wall_ms, record.session_wall_ms)
            elif isinstance(record, UserRecord):  # counted as read: a repair keeps no counts
                lines[0] += record.lines_added
                lines[1] += record.lines_removed
            yield record

    plan = PlanTracker()
    for record in _untrusted_thinking_dropped(repair.repaired(placed())):
        if isinstance(record, UserRecord):
            plan.saw(history.replay_user(record.blocks))
            if read < tail:
                history.lighten_newest()
                history.fold()
        elif isinstance(record, AssistantRecord):
            plan.saw(history.replay_assistant(record.message, record.model))
            if read < tail:
                history.lighten_newest()
                history.fold()
            api_ms += record.duration_ms
            if record.usage is not None:
                usage = usage + record.usage
                cost += count(record, record.usage)
                history.last_usage = record.usage
        elif isinstance(record, CompactionRecord):
            history.replay_compaction(record.summary, record.kept)
            history.last_usage = None
            if light:
                history.lighten_compacted()
        elif isinstance(record, WindowRecord):
            windows[record.model] = record
        elif isinstance(record, EstimateRecord):
            estimates[record.model] = record.chars_per_token
        else:
            assert isinstance(record, SpendRecord)
            side_usage = side_usage + record.usage
            side_cost += record.cost_usd
    for record in loaded.spent_records(problems):  # rewound from: spent all the same
        if isinstance(record, AssistantRecord):
            api_ms += record.duration_ms
            wall_ms = max(wall_ms, record.session_wall_ms)
        elif isinstance(record, UserRecord):  # and the files changed, changed
            lines[0] += record.lines_added
            lines[1] += record.lines_removed
        if isinstance(record, AssistantRecord) and record.usage is not None:
            usage = usage + record.usage
            cost += count(record, record.usage)
        elif isinstance(record, SpendRecord):
            side_usage = side_usage + record.usage
            side_cost += record.cost_usd
    damage = (*loaded.warnings, *(f"session file {loaded.path}: {p}" for p in problems))
    repairs = repair.repairs.sentences()
    if repairs:
        damage = (*damage, f"session file {loaded.path}: repaired: {'; '.join(repairs)}")
    return Restored(
        history,
        usage,
        cost,
        side_usage,
        side_cost,
        plan.todos(),
        damage,
        windows,
        estimates,
        api_ms,
        lines[0],
        lines[1],
        by_model,
        wall_ms,
    )


def _untrusted_thinking_dropped(records: Iterator[Record]) -> Iterator[Record]:
    """`records`, each reply whose model cannot be trusted (see `AssistantRecord.
    model_trusted`) without its thinking: an older tether named the session's first model
    on every reply, so after a change of model its label sends another model's signed
    thinking back (the API refuses it: 400 invalid signature), under any model resumed.
    A past turn goes without its thinking; the last reply of a tool loop the file ends in
    cannot (the API asks for its thinking): it keeps its label, as `History.thinking_for`
    judges a trusted one. Such a reply is held, with the results after it, until the next
    reply or the end says which it is."""
    held: list[Record] = []
    for record in records:
        if held and not isinstance(record, UserRecord):
            yield _unthought(held[0])
            yield from held[1:]
            held = []
        if isinstance(record, AssistantRecord) and not record.model_trusted:
            held = [record]
        elif held:
            held.append(record)
        else:
            yield record
    if held:
        first = held[0]
        assert isinstance(first, AssistantRecord)
        yield first if first.message.tool_uses() else _unthought(first)
        yield from held[1:]


def _unthought(record: Record) -> Record:
    assert isinstance(record, AssistantRecord)
    message = without_thinking(record.message)
    return replace(record, message=message, model=None)


@dataclass(frozen=True)
class Resumption:
    """A session file opened to continue: what it holds, and where the session goes on."""

    loaded: LoadedSession
    session_id: str
    """The id the session goes on under: the file's own, or the fork's."""
    recorder: SessionRecorder | None
    """None for a session that writes nothing (`--no-session-persistence`)."""
    forked: bool
    notices: tuple[str, ...]
    """Why it was forked, or why it is not saved: for the user, once."""


def resume_session(
    path: Path,
    *,
    fork: bool,
    directory: Path,
    cwd: Path,
    model: str,
    new_id: Callable[[], str],
    at: str | None = None,
    persist: bool = True,
) -> Resumption:
    """Open `path` to continue it (`fork`: in a new session in `directory`, named by
    `new_id`), from its message `at` when given (what followed it is left on its own
    branch; raises SessionNotFound when there is no such message). Raises SessionNotFound or
    ConfigError when the file cannot be read; never for a file that cannot be written or is
    held by another process. Without `persist`, the file is only read and nothing is
    written (the session id is still the file's, or a fork's new one)."""
    if not persist:
        loaded = load_session(path)
        if at is not None:
            loaded = loaded.up_to(at)
        return Resumption(loaded, new_id() if fork else loaded.session_id, None, fork, ())
    writer: SessionWriter | None = None
    problem: str | None = None
    failure: HarnessError | None = None
    notices: list[str] = []
    in_use = False
    if not fork:
        try:
            writer = SessionWriter.reopen(path, cwd=cwd, last_uuid=None, model=model)
        except SessionInUse as e:
            fork = in_use = True
            notices.append(
                f"{e}: this one continues from its last finished turn, in a new session "
                "forked from it"
            )
        except HarnessError as e:
            problem, failure = str(e), e
            reason = not_writable(e)
            if reason is not None:  # no free space would help: go on in a fork of it
                fork, problem, failure = True, None, None
                notices.append(
                    f"session {path.stem} cannot be written ({reason}): this one continues "
                    "in a new session forked from it"
                )
    try:
        loaded = load_session(path)  # read while we hold the file: nobody appends meanwhile
    except BaseException:
        if writer is not None:
            writer.close()
        raise
    if at is not None:
        try:
            loaded = loaded.up_to(at)
        except BaseException:
            if writer is not None:
                writer.close()
            raise
    elif in_use:  # the other process's turn in progress is its own
        loaded = loaded.at_last_turn_end()
    session_id = loaded.session_id
    if writer is not None:
        writer.last_uuid = loaded.last_uuid
        if at is not None and loaded.last_uuid is not None:
            _record_rewind(writer, notices)
    elif fork:
        session_id = new_id()
        try:
            writer = fork_session(loaded, directory, session_id, cwd=cwd, model=model)
        except HarnessError as e:
            problem, failure = str(e), e
    if writer is not None:
        recorder = SessionRecorder.continuing(writer, title=loaded.title)
    elif not fork:  # the file could not be opened to write: tried again at each entry
        last = loaded.last_uuid
        watchers: list[EntryWatcher] = []

        def reopen() -> SessionWriter:
            opened = SessionWriter.reopen(path, cwd=cwd, last_uuid=last, model=model)
            opened.watchers = watchers  # the recorder's: a mirror added later hears of it
            return opened

        recorder = SessionRecorder.retrying(
            reopen,
            f"{problem}; {WAITING}",
            session_id=session_id,
            watchers=watchers,
            error=failure,
        )
        notices.append(recorder.problem or "")
    else:
        recorder = SessionRecorder.unsaved(
            f"{problem}; this session is not being saved",
            forked_from=loaded.session_id,
            error=failure,
        )
        notices.append(recorder.problem or "")
    return Resumption(loaded, session_id, recorder, fork, tuple(notices))


def _record_rewind(writer: SessionWriter, notices: list[str]) -> None:
    """Say in the file that the session went back to its newest message: resumed, forked or
    listed later, it goes on from there, though nothing is sent after (see `REWIND_TYPE`)."""
    try:
        writer.append(REWIND_TYPE)
    except HarnessError as e:  # the rewind holds for this run; a message sent records it
        notices.append(f"the rewind could not be saved: {e}")
