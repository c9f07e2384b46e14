"""The session's events out of the process (`tether.observe`): the event log under
`$TETHER_HOME`, its `eventLog` view, and the `webhooks` sinks, attached to a built session."""

from __future__ import annotations

import asyncio
import atexit
import sys
import threading
import time
import weakref
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Final

from tether.agents import SubagentRunner
from tether.cli.teams_tools import TEAMMATE_ENV
from tether.cli.terminal_text import terminal_safe
from tether.config.settings import Settings
from tether.core.session import Session
from tether.hooks.builtin import read_builtin_settings
from tether.observe.hub import EventContext, EventHub, Sink
from tether.observe.log_file import AppendFile
from tether.observe.records import LOG_NAME, MAIN_AGENT, EventRecord, log_dir
from tether.observe.webhook_settings import WebhookConfig, usable_webhooks
from tether.protocol import Record
from tether.slotted import Slotted

if TYPE_CHECKING:
    from tether.observe.otel_sink import OtelSink
    from tether.teams.board import TaskBoard  # only a team's session has one

WORKER_CLAIM_ENV = "TETHER_TASK_CLAIM"
"""`tether.teams.board.CLAIM_ENV`: set in the sessions a worker runs its tasks in."""
TELEMETRY_ENVS = ("TETHER_ENABLE_TELEMETRY", "CLAUDE_CODE_ENABLE_TELEMETRY")
"""`tether.observe.otel_config.ENABLE_ENVS`: looked at here so that a session without them
imports nothing of OpenTelemetry, not even its configuration."""
FLUSH_AT_EXIT_S = 3.0
"""How long the webhooks are given at the process's exit to send what is queued."""


class _ProcessSinks(Slotted):
    """The webhook sinks of this process, one per configuration, shared by its sessions (a
    REPL's after /clear, a worker's one per task): a session's end does not wait for them;
    the process's exit gives them `FLUSH_AT_EXIT_S` and says what they lost."""

    __slots__ = ("_registered", "log", "otel", "owner", "sinks", "told")
    sinks: dict[WebhookConfig, Sink]
    log: Path | None
    owner: EventContext | None
    otel: OtelSink | None
    """OpenTelemetry's sink, made by the first session that has telemetry on."""
    told: set[str]
    """The telemetry settings' notes already said (once a process)."""
    _registered: bool

    def __init__(
        self,
        sinks: dict[WebhookConfig, Sink] | None = None,
        log: Path | None = None,
        owner: EventContext | None = None,
        otel: OtelSink | None = None,
        told: set[str] | None = None,
        _registered: bool = False,
    ) -> None:
        self.sinks = {} if sinks is None else sinks
        self.log = log
        self.owner = owner
        self.otel = otel
        self.told = set() if told is None else told
        self._registered = _registered

    def usable(self, settings: Settings, env: Mapping[str, str]) -> tuple[WebhookConfig, ...]:
        """The webhooks of `settings` that can be used; each that cannot is said once."""
        webhooks, problems = usable_webhooks(settings.data, env)
        for problem in problems:
            if problem not in self.told:
                self.told.add(problem)
                _tell(problem)
        return webhooks

    def telemetry(self, env: Mapping[str, str]) -> OtelSink | None:
        """The process's OpenTelemetry sink when `env` turns telemetry on (the SDK imported
        then, and only then); a `ConfigError` names a bad variable, and what tether cannot
        export as asked is said once and left out."""
        if self.otel is not None or not any(env.get(name) for name in TELEMETRY_ENVS):
            return self.otel
        from tether.observe.otel_config import ENABLE_ENVS, read_otel_config

        assert set(ENABLE_ENVS) == set(TELEMETRY_ENVS)
        config = read_otel_config(env)
        for note in config.notes:  # what is asked for and cannot be exported: said, not fatal
            if note not in self.told:
                self.told.add(note)
                _tell(note)
        if not config.enabled:
            return None
        from tether.observe.otel_sink import open_otel_sink  # the SDK: only when enabled

        self.otel = open_otel_sink(config)
        self.register()
        return self.otel

    def register(self) -> None:
        if not self._registered:
            self._registered = True
            atexit.register(self.close)

    def shared(self, config: WebhookConfig) -> Sink:
        self.register()
        sink = self.sinks.get(config)
        if sink is None:
            from tether.observe.webhooks import WebhookSink  # hmac and hashlib: only when used

            sink = self.sinks[config] = WebhookSink(config, on_circuit=_tell)
        return _Borrowed(sink)

    def close(self) -> None:
        deadline = time.monotonic() + FLUSH_AT_EXIT_S
        for hub in list(_OPEN_HUBS):  # sessions never closed, or whose close was cut short:
            _OPEN_HUBS.discard(hub)  # their records written and offered to the sinks first
            for report in hub.close(max(0.0, deadline - time.monotonic())):
                _tell(report)
        otel, self.otel = self.otel, None
        exporting = None
        if otel is not None:  # exported alongside the webhooks' flush, by the same deadline
            exporting = threading.Thread(target=_close_otel, args=(otel, deadline), daemon=True)
            exporting.start()
        if self.sinks:
            sinks, self.sinks = list(self.sinks.values()), {}
            log = AppendFile(self.log) if self.log is not None else None
            hub = EventHub(log, sinks=sinks, on_error=_tell, owner=self.owner)
            # losses said, and logged as webhook_dropped
            for report in hub.close(max(0.0, deadline - time.monotonic())):
                _tell(report)
        if exporting is not None:
            exporting.join(max(0.0, deadline - time.monotonic()) + 0.5)


def _close_otel(otel: OtelSink, deadline: float) -> None:
    if (report := otel.close(deadline)) is not None:
        _tell(report)


class _Borrowed(Slotted):
    """A process's sink as a session's hub sees it: offered to, not closed with the session."""

    __slots__ = ("sink",)
    sink: Final[Sink]

    def __init__(self, sink: Sink) -> None:
        self.sink = sink

    def offer(self, record: EventRecord) -> None:
        self.sink.offer(record)

    def close(self, deadline: float) -> str | None:
        del deadline
        return None


_PROCESS_SINKS = _ProcessSinks()
_OPEN_HUBS: set[EventHub] = set()
"""The hubs of sessions not closed yet: closed (their queue written) at the end of the
command or at the interpreter's exit, for a library's sessions however they ended."""


def close_process_sinks() -> None:
    """At the end of a command: the sessions still open have their events written, the
    webhooks get `FLUSH_AT_EXIT_S` to send what is queued, and what they lost is said (also
    done at exit, for a library's sessions)."""
    _PROCESS_SINKS.close()


def event_context(session_id: str, env: Mapping[str, str]) -> EventContext:
    """Whose a session's events are: a teammate's (its member name), a worker's (its owner
    name, and the task its claim is on), or the main agent's."""
    task_id = None
    if WORKER_CLAIM_ENV in env:  # the board's module (and its store's) only for a worker's
        from tether.teams.board import lent_claims
        from tether.teams.membership import CLAIM_ENV, OWNER_ENV

        assert CLAIM_ENV == WORKER_CLAIM_ENV
        tasks = list(lent_claims(env))
        if tasks:
            task_id = tasks[0]
            return EventContext(session_id, env.get(OWNER_ENV) or MAIN_AGENT, task_id)
    return EventContext(session_id, env.get(TEAMMATE_ENV) or MAIN_AGENT, task_id)


def attach_observation(
    session: Session,
    settings: Settings,
    *,
    workspace: Path,
    home: Path,
    env: Mapping[str, str],
    subagents: SubagentRunner | None,
    provider: str | None = None,
    board: TaskBoard | None = None,
) -> Callable[[Record], None]:
    """Every event of the session and of its subagents recorded, off the loop, and exported
    as OpenTelemetry when `env` turns it on; returned: what records another event (a team's:
    `tether.protocol.team_events`) as the session's; the settings checked first (a
    `ConfigError` names the key or variable). `provider`: the model's provider, for the
    spans. With `board`, each under the task the agent works on then (a teammate's claim,
    taken and finished as it goes), and the board's task changes too."""
    webhooks = _PROCESS_SINKS.usable(settings, env)
    otel = _PROCESS_SINKS.telemetry(env)
    view = read_builtin_settings(settings.data, base_dir=workspace).event_log
    context = event_context(session.session_id, env)
    log = log_dir(home) / LOG_NAME
    if webhooks:
        _PROCESS_SINKS.log, _PROCESS_SINKS.owner = log, context
    sinks = [_PROCESS_SINKS.shared(config) for config in webhooks]
    if otel is not None:
        from tether.observe.otel_facts import SessionFacts

        sinks.append(_Borrowed(otel))
        otel.session_opened(
            SessionFacts(
                context.session_id,
                context.agent_id,
                context.task_id,
                session.agent.model_id,
                provider,
            )
        )
    hub = EventHub(
        AppendFile(log),
        views=[AppendFile(view, max_bytes=None)] if view is not None else [],
        sinks=sinks,
        on_error=_tell,
        owner=context,
    )
    observe = hub.observer(context)
    session.observers.append(observe)
    _OPEN_HUBS.add(hub)
    _PROCESS_SINKS.register()
    if board is not None:
        board.on_task.append(lambda task_id: setattr(context, "task_id", task_id))
        # its tasks created, claimed, finished, given back: each written before the step
        # returns (the store has it already: a kill must not leave the log without it)
        board.events.append(hub.written_observer(context))
    if subagents is not None:
        subagents.observers.append(
            lambda agent_id, event: hub.observe(context.child(agent_id), event)
        )

    async def finish() -> None:
        if hub not in _OPEN_HUBS:
            return  # closed at the end of the command already
        _OPEN_HUBS.discard(hub)
        for report in await asyncio.to_thread(hub.close, FLUSH_AT_EXIT_S):
            _tell(report)
        if otel is not None:  # every record offered: what the session left open ends
            otel.session_closed(context.session_id)

    session.on_close.append(finish)
    # A session dropped without `aclose` (a library's): when it is collected, its hub writes
    # what is queued and ends its thread, so that neither stays in the process.
    weakref.finalize(session, _dropped_unclosed, hub, otel, context.session_id)
    return observe


def _dropped_unclosed(hub: EventHub, otel: OtelSink | None, session_id: str) -> None:
    if hub not in _OPEN_HUBS:
        return  # closed already
    _OPEN_HUBS.discard(hub)
    ended = (lambda: otel.session_closed(session_id)) if otel is not None else None
    hub.close_soon(then=ended)


def _tell(message: str) -> None:
    print(f"tether: {terminal_safe(message)}", file=sys.stderr)


def process_events(
    home: Path, name: str, *, settings: Settings, env: Mapping[str, str]
) -> tuple[Callable[[Record], None], Callable[[], None]]:
    """What records the events a process makes outside any session (a worker's claims and
    results, `tether tasks add|retry|rm`: `TaskChanged`), filed under `name` as its session
    and agent (and under the task each names): in the event log under `home`, and offered to
    the webhooks and OpenTelemetry of `settings` and `env` (the settings in force where the
    process works: a workspace's own need its trust), the same sinks its sessions share. And
    what closes it: what is queued written within `FLUSH_AT_EXIT_S`, losses said; the
    webhooks send what they hold at the end of the command, as for a session's events. A
    `ConfigError` names a bad webhook or telemetry setting."""
    webhooks = _PROCESS_SINKS.usable(settings, env)
    otel = _PROCESS_SINKS.telemetry(env)
    owner = EventContext(name, name)
    log = log_dir(home) / LOG_NAME
    if webhooks:
        _PROCESS_SINKS.log, _PROCESS_SINKS.owner = log, owner
    sinks = [_PROCESS_SINKS.shared(config) for config in webhooks]
    if otel is not None:
        sinks.append(_Borrowed(otel))
    hub = EventHub(AppendFile(log), sinks=sinks, on_error=_tell, owner=owner)
    record = hub.written_observer(owner)  # the store has each change already
    _OPEN_HUBS.add(hub)
    _PROCESS_SINKS.register()

    def close() -> None:
        if hub not in _OPEN_HUBS:
            return  # closed at the end of the command already
        _OPEN_HUBS.discard(hub)
        for report in hub.close(FLUSH_AT_EXIT_S):
            _tell(report)
        if otel is not None:
            otel.session_closed(name)

    return record, close
