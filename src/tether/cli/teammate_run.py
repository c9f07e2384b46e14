"""One teammate's process (`tether team run TEAM MEMBER`, started by `tether team up`): its
session built as a headless run's is (the project's tools, rules, hooks and sandbox; what no
rule allows is denied), resumed when the roster names an earlier one, with `SendMessage`; then
the `Teammate` loop until shutdown, or SIGTERM, SIGINT or SIGHUP (the turn stopped, the session
saved; then the process ends by that signal: `serve_teammate` returns -N, as `Popen` says it).
Output goes to the member's log file."""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path
from typing import TypeVar, cast, get_args

from tether.agents.definitions import AgentDefinition
from tether.cli.setup import Built, RunOptions, build
from tether.core.session import Session
from tether.permissions.rules import Mode
from tether.protocol import ConfigError, Notice
from tether.store.mailbox import Member, TeamStore
from tether.teams.link import TeamLink, events_file
from tether.teams.membership import STORE_PATIENCE_S
from tether.teams.patience import Patience
from tether.teams.protocol import MemberProtocol, Transition
from tether.teams.send_tool import send_message_tool
from tether.teams.teammate import Teammate

TEAMMATE_ENV = "TETHER_TEAMMATE"
"""Set in a teammate's environment: its member name."""

T = TypeVar("T")


class StartStopped(Exception):
    """A stop signal came while the teammate was starting."""


class StopSignals:
    """SIGTERM, SIGINT and SIGHUP, handled from the process's first moment (a `team down` right
    after `up` comes while it starts): a stop cuts short the start-up step under way that can
    be (`step`: connecting the MCP servers), or ends the start after the one that cannot (its
    session being built); once the teammate serves, it stops the teammate."""

    def __init__(self) -> None:
        self.seen: list[int] = []
        self.mate: Teammate | None = None
        self._task = asyncio.current_task()
        self._cuttable = False

    def install(self) -> None:
        loop = asyncio.get_running_loop()
        # SIGHUP too: the terminal `team up` ran in closed, or a `kill -HUP`.
        for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            loop.add_signal_handler(signum, self._on_signal, signum)

    def reason(self, signum: int) -> str:
        return f"stopped by {signal.Signals(signum).name}"

    def _on_signal(self, signum: int) -> None:
        self.seen.append(signum)
        if self.mate is not None:
            self.mate.stop(self.reason(signum))
        elif self._cuttable and len(self.seen) == 1 and self._task is not None:
            self._task.cancel()

    def check(self) -> None:
        """StartStopped when a stop came (between two start-up steps)."""
        if self.seen:
            raise StartStopped

    async def step(self, work: Awaitable[T]) -> T:
        """`work`, cut short by a stop (StartStopped)."""
        self.check()
        self._cuttable = True
        try:
            return await work
        except asyncio.CancelledError:
            if self.seen and self._task is not None and self._task.uncancel() == 0:
                raise StartStopped from None
            raise
        finally:
            self._cuttable = False


def plan_exit(lead: str) -> str:
    """How a teammate in plan mode leaves it (it has no ExitPlanMode: its lead approves)."""
    return (
        "To leave plan mode, send your plan to the lead: SendMessage(to="
        f'"{lead}", message={{"type": "plan_approval_request", "plan": "..."}}); you may '
        "write once the lead approves it"
    )


def read_only_says(agent: str) -> str:
    """What a teammate of a read-only agent type is told, and its denials end with."""
    return (
        f"You are a read-only {agent} agent: you cannot change files, in any mode. Tell the "
        "lead what should change (SendMessage)"
    )


def read_only_type(agent: AgentDefinition | None) -> bool:
    """Whether the agent is of a type that only reads (the built-in Explore and Plan): not
    plan mode, which a file's `permissionMode: plan` asks for (`read_only` too, there)."""
    return agent is not None and agent.read_only and agent.path is None


def teammate_prompt(
    team: str,
    member: Member,
    lead: str,
    members: list[str],
    *,
    plan: bool = False,
    read_only: bool = False,
) -> str:
    others = ", ".join(n for n in members if n != member.name) or "none yet"
    planning = (
        f"\n\nYou are in plan mode: read-only until the lead approves your plan. {plan_exit(lead)}."
        if plan
        else ""
    )
    if read_only:
        planning += f"\n\n{read_only_says(member.agent or 'read-only')}."
    return (
        f"You are {member.name}, a teammate in team {team!r}. The team lead is {lead}; the "
        f"other members: {others}. Messages from them reach you as <teammate-message> blocks. "
        "Nobody sees your plain text output: to talk to a member, use SendMessage; to answer "
        "a request, use SendMessage with reply_to set to its id. When you finish a piece of "
        "work, tell the lead what you did with SendMessage."
        + planning
        + (f"\n\n{member.prompt}" if member.prompt else "")
    )


def session_for(
    project: Path,
    member: Member,
    link: TeamLink,
    *,
    agent_prompt: str,
    plan: bool,
    read_only: bool = False,
    trust_workspace: bool = False,
) -> Session:
    """Its session, built from what the link knows of its team (read from the store by the
    start-up's patient calls: this makes none)."""
    env = {**os.environ, TEAMMATE_ENV: member.name}
    names = list(link.protocol.members)
    lead = link.protocol.lead
    appended = "\n\n".join(
        p
        for p in (
            agent_prompt,
            teammate_prompt(link.team, member, lead, names, plan=plan, read_only=read_only),
        )
        if p
    )
    options = RunOptions(
        cwd=Path(member.cwd) if member.cwd else project,
        model=member.model,
        env=env,
        append_system_prompt=appended,
        # Plan mode's gate runs only read-only tools: a read-only agent type's for good.
        permission_mode="plan" if plan or read_only else work_mode(member),
        extra_tools=(send_message_tool(link),),
        trust_workspace=trust_workspace,
    )
    built = _built(options, member)
    session = built.session
    link.session = session.session_id  # its messages' ids: this session's (kept on a restart)
    if session.agent.gate is not None:
        session.agent.gate.plan_exit = (
            read_only_says(member.agent or "read-only") if read_only else plan_exit(lead)
        )
        if read_only:
            session.agent.gate.read_only_as = f"a read-only {member.agent or 'read-only'} agent"
    if built.board is not None:  # `team status` names the board task it works on
        built.board.on_task.append(_publisher(link))
    link.events.append(built.record_event)  # its transitions in the event log
    return session


def _publisher(link: TeamLink) -> Callable[[str | None], None]:
    """Tells the roster the board task the teammate works on (told on its event loop)."""
    publishing: set[asyncio.Task[None]] = set()

    def publish(task_id: str | None) -> None:
        sent = asyncio.get_running_loop().create_task(link.publish(board_task=task_id))
        publishing.add(sent)
        sent.add_done_callback(publishing.discard)

    return publish


def work_mode(member: Member) -> Mode | None:
    """The permission mode the teammate works in outside plan mode: its lead's (the roster)."""
    mode = member.permission_mode
    return cast(Mode, mode) if mode in get_args(Mode) and mode != "plan" else None


def _built(options: RunOptions, member: Member) -> Built:
    if member.session_id is None:
        return build(options)
    try:
        return build(replace(options, resume=member.session_id))
    except ConfigError:
        # No file yet (it never got a message): a new session under the same id.
        return build(replace(options, session_id=member.session_id))


async def serve_teammate(
    project: Path,
    store: TeamStore,
    inbox: TeamStore,
    member: Member,
    agent: AgentDefinition | None,
    *,
    plan: bool,
    store_patience_s: float | None = STORE_PATIENCE_S,
    trust_workspace: bool = False,
    patience: Patience | None = None,
) -> int:
    """`patience`: how its store calls wait out an outage (every one of them, from its claim
    on, as its mailbox loop's reads do)."""
    stop = StopSignals()
    stop.install()  # before anything is started: a stop at any moment ends what was
    patience = patience or Patience(store.url, store_patience_s, _say)
    try:
        record = await stop.step(patience.acall(store.team_record))
    except StartStopped:
        return stopped_starting(member, stop)
    lead = record.lead if record is not None else "team-lead"
    plan = plan or member.plan_mode is True
    protocol = MemberProtocol(name=member.name, lead=lead, plan_mode=plan)
    link = TeamLink(
        team=store.team,
        member=member.name,
        store=store,
        protocol=protocol,
        events_path=events_file(project, store.team),
        known_team=record,
        known_member=member,
        warn=lambda s: print(s, flush=True),
        patience=patience,
    )
    try:
        await stop.step(link.refresh_members(patience))
    except StartStopped:
        return stopped_starting(member, stop)
    agent_prompt = ""
    read_only = read_only_type(agent)
    if agent is not None:
        agent_prompt = agent.system_prompt
        if member.plan_mode is None:  # its first start: the agent's own mode (later, the roster's)
            plan = plan or (agent.read_only and not read_only)
        protocol.plan_mode = plan
    protocol.read_only_as = f"a read-only {member.agent} agent" if read_only else None
    if read_only:  # read-only for good, in no plan mode (`--plan` or not): nothing to approve
        plan = protocol.plan_mode = False
    if read_only != member.read_only or (read_only and member.plan_mode):
        # for `team status`: what it is, not plan mode
        fixed = {"read_only": read_only} | ({"plan_mode": False} if read_only else {})
        await patience.acall(lambda: store.update_member(member.name, fixed))
    session = await asyncio.to_thread(
        session_for,
        project,
        member,
        link,
        agent_prompt=agent_prompt,
        plan=plan,
        read_only=read_only,
        trust_workspace=trust_workspace,
    )

    try:
        stop.check()  # a stop while it was built: its session is closed, nothing was started
        await _prepare(session, member, stop)
    except StartStopped:
        await session.aclose()
        return stopped_starting(member, stop)

    def on_change(transition: Transition) -> None:
        print(
            f"{member.name}: {transition.before} -> {transition.after} ({transition.cause})",
            flush=True,
        )
        gate = session.agent.gate
        if read_only or gate is None:
            return  # read-only for good, whatever is approved
        if not transition.plan_mode and gate.permissions.mode == "plan":
            # The lead approved its plan: the mode it works in (its lead's), else the default.
            session.set_permission_mode(work_mode(member) or "default")

    protocol.listeners.append(on_change)
    # A shutdown that ended the last run is done, not owed (`team down` recorded it).
    owed = [m for m in member.requests_owed if m.id != member.shutdown_done]
    protocol.restore(member.requests_sent, owed, link.clock(), member.requests_answered)
    mate = Teammate(
        link=link,
        inbox=inbox,
        session=session,
        say=_say,
        shutdown_done=member.shutdown_done,
        store_patience_s=store_patience_s,
    )
    stop.mate = mate
    if stop.seen:  # came between its start and now
        mate.stop(stop.reason(stop.seen[0]))
    print(f"{member.name}: working in team {store.team} ({store.url})", flush=True)
    try:
        await mate.run()
    finally:
        await session.aclose()
        await mate.stopped()
    why = f" ({mate.stop_reason})" if mate.stop_reason else ""
    print(f"{member.name}: stopped{why}", flush=True)
    return -stop.seen[0] if stop.seen else 0


async def _prepare(session: Session, member: Member, stop: StopSignals) -> None:
    for notice in session.startup_notices:  # as -p says them (what an untrusted project skips)
        print(f"{member.name}: {notice}", flush=True)
    # Now, not at the first message: a claim its last run held is taken back before its lease
    # runs out (`cli.board_resume`), and the servers are connected while it waits.
    for event in await stop.step(session.prepare()):
        if isinstance(event, Notice):
            print(f"{member.name}: {event.message}", flush=True)


def _say(line: str) -> None:
    print(line, flush=True)


def stopped_starting(member: Member, stop: StopSignals) -> int:
    """What a teammate stopped while it started says; -N, stopped by signal N."""
    print(f"{member.name}: stopped ({stop.reason(stop.seen[0])}, while starting)", flush=True)
    return -stop.seen[0]
