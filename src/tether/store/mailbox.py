"""`MailboxStore`: a team's durable mailboxes, one per member, whatever keeps them.

The contract every mailbox store keeps (one contract test suite runs against each):

- **Durable.** `send` returns once the message is stored: a message to a member that is not
  running is kept and delivered when it starts, in the order it was sent.
- **At least once.** `receive` hands a message to one consumer and holds it for that consumer
  until `ack`. A message held longer than `reclaim_after_s` without an ack (its consumer was
  killed) is handed to the next consumer that asks. A consumer therefore acks only after the
  message is safe elsewhere (in its session file), and drops a message whose `id` it has
  already handled: ids are the sender's, unique per message, so a redelivery is recognised.
- **No sleep-polling where the store can wait.** `receive(block_s=...)` waits on the store
  itself (Redis: `XREADGROUP ... BLOCK`); a store that cannot wait polls with backoff.

The protocol rules (who may send what, and when) are `tether.teams`'s; a store only keeps and
hands over messages. Methods block (SQLite, a socket): call them from a thread in async code.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field

from tether.store.store_url import absent_store, store_location

DEFAULT_RECLAIM_AFTER_S = 30.0
"""How long a received message may stay unacknowledged before another consumer gets it."""


class Message(BaseModel):
    """One message between members of a team, as a mailbox keeps it."""

    model_config = ConfigDict(frozen=True, extra="ignore", defer_build=True)

    id: str = Field(default_factory=lambda: uuid.uuid4().hex)
    """The sender's id for this message: a redelivery carries the same one."""
    sender: str
    recipient: str
    kind: str = "message"
    """What it is to the protocol (`message`, `request`, `reply`, `shutdown_request`, ...):
    `tether.teams` gives the kinds their meaning."""
    text: str = ""
    reply_to: str | None = None
    """The id of the message this one answers."""
    data: dict[str, Any] = Field(default_factory=dict[str, Any])
    """Whatever else the kind carries (a plan, an approval, a summary)."""
    sent_at: float = Field(default_factory=time.time)


class Delivery(BaseModel):
    """A message handed to a consumer, and the store's handle to acknowledge it."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    message: Message
    receipt: str
    """The store's own id of this copy (a SQLite row, a Redis stream entry): what `ack`
    takes."""
    attempt: int = 1
    """How many times it has been handed out (above 1: a redelivery)."""


class MailboxError(Exception):
    """A request the store refuses as asked (an unknown receipt, a malformed message): said
    as it is."""


class MailboxStore(Protocol):
    team: str
    url: str
    """Where it is, for messages (a Redis URL without its password)."""

    def send(self, message: Message) -> Message:
        """Store the message in its recipient's mailbox; returned once durable. A message
        whose sender posted its id already is not stored again (a send run again after a
        crash); another sender's under the same id is its own, and stored."""
        ...

    def posted(self, sender: str, message_id: str) -> bool:
        """Whether `sender` stored a message of this id (acknowledged since or not)."""
        ...

    def receive(
        self,
        member: str,
        consumer: str,
        *,
        max_count: int = 16,
        block_s: float = 0.0,
        reclaim_after_s: float = DEFAULT_RECLAIM_AFTER_S,
    ) -> list[Delivery]:
        """Up to `max_count` messages for `member`, oldest first, handed to `consumer`:
        messages another consumer held unacknowledged for `reclaim_after_s` first, then new
        ones (`reclaim_after_s=0`: everything held, as a consumer starting again after a
        crash takes back its own). Waits up to `block_s` when there is none. A stored entry
        that cannot be read (not valid JSON, not a message) is never dropped: it is handed
        over as a `kind="invalid"` message carrying the raw text, why in `data["error"]`, and
        acknowledged like any other. `MailboxesLost` (once): the store lost messages it had
        accepted (a Redis server back without its data)."""
        ...

    def ack(self, member: str, receipts: Sequence[str]) -> None:
        """The messages are handled: they are never handed out again."""
        ...

    def unread(self, member: str) -> int:
        """Messages for `member` not yet acknowledged (held ones included)."""
        ...

    def close(self) -> None: ...


MemberState = Literal[
    "starting", "idle", "requesting", "waiting", "responding", "stopped", "did_not_start"
]
"""Where a member stands in the protocol (`tether.teams` enforces the moves); `starting`,
`stopped` and `did_not_start` (its process ended, or its start-up ran past its deadline,
before its mailbox loop ran) are its process's."""


class HeldRequest(BaseModel):
    """A request a member sent and has no reply to yet, as the roster keeps it (a restart
    waits on it again)."""

    model_config = ConfigDict(extra="ignore", defer_build=True)

    message: Message
    since: float
    deadline: float | None = None
    """When it times out (wall-clock seconds), None for never."""
    expired: bool = False
    """Timed out already: kept to match a late reply."""


class StartClaim(BaseModel):
    """Who is starting a member's process (`tether team up`, a lead's Task tool): taken
    atomically, so that starters racing start one process; it lapses at `until` or when its
    holder no longer runs."""

    model_config = ConfigDict(extra="ignore", defer_build=True)

    pid: int
    pid_started: str | None = None
    host: str
    until: float
    """Wall-clock seconds."""


class Member(BaseModel):
    """One member of a team as the roster keeps it: who it is, and where it stands now."""

    model_config = ConfigDict(extra="ignore", defer_build=True)

    name: str
    agent: str | None = None
    """The agent definition it runs (`.claude/agents`, `.tether/agents`, a built-in)."""
    model: str | None = None
    prompt: str = ""
    cwd: str | None = None
    worktree: bool = False
    state: MemberState = "starting"
    pending_request: str | None = None
    """The id of the request it waits on a reply to (state `waiting`)."""
    pid: int | None = None
    host: str | None = None
    session_id: str | None = None
    current_task: str | None = None
    board_task: str | None = None
    """The id of the task on the board it holds and works on (claimed with TaskNext)."""
    spend_usd: float = 0.0
    plan_mode: bool | None = None
    """Read-only until the lead approves its plan: True while that is owed (a restart keeps
    it), False once approved or never asked, None before its first start (its agent and
    `--plan` decide)."""
    read_only: bool = False
    """Its agent is of a type that only reads (Explore, Plan): read-only for good, in no plan
    mode (nothing to approve); set by the teammate as it starts."""
    requests_sent: list[HeldRequest] = Field(default_factory=list[HeldRequest])
    """The requests it sent and has had no reply to (those timed out too, for a late reply):
    a restart waits on them again."""
    requests_owed: list[Message] = Field(default_factory=list[Message])
    """The requests it received and has not replied to: a restart still owes them."""
    requests_answered: list[str] = Field(default_factory=list[str])
    """The ids of the requests it replied to last (the newest few): one answered again, in a
    later run, is refused as answered already."""
    plan_answers: dict[str, bool] = Field(default_factory=dict[str, bool])
    """The lead's answers to its plan requests still in `requests_sent` (True: approved), by
    request id, written as the lead sends them: one answered while it does not run is shown
    answered, not awaited, until it starts and takes the answer in."""
    pid_started: str | None = None
    """Its process's start time (as its system counts it), so that a pid used again by
    another process is not taken for it."""
    shutdown_done: str | None = None
    """The id of the shutdown request that ended its last run (`team down`): one left unread
    in its mailbox is not replayed on the next start."""
    start_claim: StartClaim | None = None
    """Held while a process is being started for it, until that process reports in."""
    team_down: StartClaim | None = None
    """On the lead's record: a `tether team down` under way (its process), which no start
    of a teammate may outrun (`tether.teams.down_fence`)."""
    start_by: float | None = None
    """When the process started for it is to have its mailbox loop running (wall-clock
    seconds, its starter's bound): past it, still `starting`, it did not start."""
    loop_pid: int | None = None
    """The pid of its process once that process's mailbox loop runs (its start-up done):
    what `team up` waits for; None while a process starts, or when none runs."""
    permission_mode: str | None = None
    """The permission mode it works in (outside plan mode): its lead's when the lead started
    it, as in Claude Code ("teammates start with the lead's permission settings"); None: the
    project's settings decide."""
    updated_at: float = Field(default_factory=time.time)


class TeamRecord(BaseModel):
    """A team: its name, its lead and what it is for."""

    model_config = ConfigDict(extra="ignore", defer_build=True)

    name: str
    lead: str = "team-lead"
    description: str = ""
    created_at: float = Field(default_factory=time.time)


class MailboxesLost(MailboxError):
    """The store lost messages it had accepted (a Redis server restarted without its data):
    said once, by the next `receive`; the store goes on with what it has."""


class TeamExists(MailboxError):
    """A team of that name is in use."""


class MemberBusy(MailboxError):
    """A conditional change of a member was refused: its record said why (`update_member`'s
    `unless`)."""


class UnknownMember(MailboxError):
    """No member of that name in the team: the message names the team and its members."""


class RosterStore(Protocol):
    """A team's record and its members, kept beside its mailboxes (same store, same URL)."""

    team: str
    url: str

    def create_team(self, record: TeamRecord) -> TeamRecord:
        """Record the team; `TeamExists` when its name is in use."""
        ...

    def delete_team(self) -> None:
        """Remove the team, its members and its mailboxes."""
        ...

    def team_record(self) -> TeamRecord | None: ...

    def put_member(self, member: Member) -> Member:
        """Add the member, or replace its record."""
        ...

    def update_member(
        self,
        name: str,
        changes: Mapping[str, Any],
        *,
        unless: Callable[[Member], str | None] | None = None,
    ) -> Member:
        """Change fields of one member atomically; `UnknownMember` when there is none. With
        `unless`: a claim, given the record as it is at the change (no other write between),
        refused with `MemberBusy` naming its reason when `unless` gives one."""
        ...

    def members(self) -> list[Member]:
        """Every member, in the order they joined."""
        ...

    def wait_members(
        self, until: Callable[[list[Member]], bool], timeout_s: float, *, recheck_s: float
    ) -> bool:
        """Wait until `until` holds for the members (True), or `timeout_s` passes (False),
        reading them again when the roster changes (the store tells: Redis publishes each
        change, SQLite moves its data version) and at least every `recheck_s` (for what
        `until` also looks at outside the store)."""
        ...

    def close(self) -> None: ...


class TeamStore(MailboxStore, RosterStore, Protocol):
    """A team's mailboxes and roster in one store: what both `open_*` functions return."""

    def send_as(self, message: Message, sender_changes: Mapping[str, Any]) -> Message:
        """`send`, and the sender's record changed (`update_member`'s checks) in the same
        transaction: no reader sees the message before the sender's new state (a reply
        before its sender stops responding). A sender with no record: the message alone."""
        ...


def open_team_store(
    url: str | None, *, project: Path, team: str, read_only: bool = False
) -> TeamStore:
    """A team's mailboxes and roster at `url`, in the URL forms of `open_task_store`
    (`redis://host:port/db`, `sqlite:///abs/path`, a path relative to `project`, None for
    the project's own SQLite file): the same place as the team's task board. A store that
    cannot be used raises `StoreUnavailable` naming it; there is no fallback. `read_only` (a
    command on a team that must exist already): a SQLite file is never made (`StoreAbsent`)."""
    where = store_location(url, project=project, team=team)
    if isinstance(where, str):
        from tether.store.redis_mailbox import RedisMailboxStore

        return RedisMailboxStore(where, team)
    from tether.store.sqlite_mailbox import SqliteMailboxStore

    if read_only and not where.exists():
        raise absent_store(where, url=url, team=team, made_by="`tether team up`")
    return SqliteMailboxStore(where, team)


def open_mailbox_store(url: str | None, *, project: Path, team: str) -> MailboxStore:
    """The team's mailboxes (see `open_team_store`)."""
    return open_team_store(url, project=project, team=team)


def open_roster(url: str | None, *, project: Path, team: str) -> RosterStore:
    """The team's roster (see `open_team_store`)."""
    return open_team_store(url, project=project, team=team)
