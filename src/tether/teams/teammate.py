"""A teammate: a named member of a team whose session lives as long as the team, fed by its
mailbox.

The loop: receive (a blocking read on a store connection of its own), put the messages into
the session (as a turn's prompt when idle; while a turn runs, before its next model call, the
steering path), acknowledge each once the session holds it and its model was given it (its
file then keeps it: a crash loses nothing; a turn killed before its reply runs again at the
next start), and run turns until nothing is left. A prompt refused as too long is taken back
out of the session: several messages run again one at a time; one that no turn can read (too
long alone, blocked by a UserPromptSubmit hook) is told to its sender, then acknowledged. A
message whose id the session already holds (a redelivery after a crash) is acknowledged and
not shown again. When a turn ends and nothing waits, the
`TeammateIdle` hooks run (exit 2 keeps it working, their reason its next prompt; `continue:
false` stops it), then the lead gets an idle notification. A request that times out is told
to the model as an error. A shutdown the teammate approved ends the loop after its turn; so
does `stop()` (SIGTERM), which interrupts the turn. What becomes of each message (letters,
acknowledgements, the current task) is `intake.py`'s; what an idle teammate does, `idle.py`'s.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
from collections.abc import Callable
from dataclasses import dataclass, field

from tether.core.session import Session
from tether.protocol import (
    ErrorOccurred,
    ResponseStarted,
    TurnFinished,
    UserInput,
)
from tether.store.mailbox import Delivery, Message, TeamStore
from tether.store.task_records import StoreDamaged, StoreLost
from tether.teams.claims import STOPPED
from tether.teams.idle import when_idle
from tether.teams.intake import Intake
from tether.teams.letters import held_ids, timed_out
from tether.teams.link import TeamLink
from tether.teams.membership import STORE_PATIENCE_S
from tether.teams.processes import process_start
from tether.teams.receiving import StorePatienceOut, receive_for_ever
from tether.teams.unread import Ended, ended

RECEIVE_BLOCK_S = 2.0
"""How long one read of the mailbox waits for a message (the store wakes it at once when one
comes); the loop notices a stop within this."""
RESUMED_TURN = (
    "<system-reminder>Your process stopped before this turn was done (it was killed or "
    "stopped) and has been started again: carry on with the messages above that you had not "
    "finished, as you would have.</system-reminder>"
)
"""The prompt that runs again a turn a killed run left unfinished."""


@dataclass
class Teammate:
    link: TeamLink
    inbox: TeamStore
    """A store connection for receiving only (a blocking read must not hold up sending)."""
    session: Session
    say: Callable[[str], None] = lambda _: None
    shutdown_done: str | None = None
    """The shutdown request that ended its last run (`team down`): done, not replayed."""
    store_patience_s: float | None = STORE_PATIENCE_S
    """How long the store may stay unreachable before the teammate stops (None: for ever)."""
    consumer: str = field(default_factory=lambda: f"{socket.gethostname()}:{os.getpid()}")
    _arrived: asyncio.Queue[list[Delivery]] = field(default_factory=asyncio.Queue[list[Delivery]])
    _stop: asyncio.Event = field(default_factory=asyncio.Event)
    _stop_reason: str | None = None
    _working: bool = False
    _kept: bool = False
    """Whether the running turn's prompt reached the session (a hook did not block it)."""
    _sent: bool = False
    """Whether the running turn's prompt reached the model (the endpoint began its answer),
    or the turn is over: until then a prompt refused as too long may be taken back out of the
    session, so the messages it holds are not acknowledged yet."""
    _timeouts: list[str] = field(default_factory=list[str])
    """Requests of its that timed out while no turn ran: told with the next prompt."""
    _wake: asyncio.Event = field(default_factory=asyncio.Event)
    intake: Intake = field(init=False)

    def __post_init__(self) -> None:
        self.intake = Intake(
            self.link, self.inbox, self.session, self.say, shutdown_done=self.shutdown_done
        )

    @property
    def name(self) -> str:
        return self.link.member

    @property
    def stop_reason(self) -> str | None:
        """Why it stopped (a hook, a signal, a store out of reach); None: a shutdown it
        approved, or not stopped."""
        return self._stop_reason

    def stop(self, reason: str, *, interrupt: bool = True) -> None:
        """Stop: the running turn is interrupted (or, `interrupt=False`, let finish), the loop
        ends (unread messages stay in the mailbox for the next start)."""
        self._stop_reason = self._stop_reason or reason
        self._stop.set()
        if interrupt and self._working:
            self.session.interrupt_next_turn(reason)

    async def run(self) -> None:
        self.intake.held = held_ids(self.session.messages)
        # Its start-up is done and its loop starts: the mark `team up` waits for (`loop_pid`,
        # this process's own), with its state, no longer `starting` (kept until stored, should
        # the store be out of reach).
        await self.link.publish(
            pid=os.getpid(),
            pid_started=process_start(os.getpid()),
            host=socket.gethostname(),
            loop_pid=os.getpid(),
            start_by=None,
            session_id=self.session.session_id,
            spend_usd=self.session.cost_usd,
        )
        self._note_restart()
        self.link.on_timeout.append(self._timed_out)
        receiving = asyncio.create_task(self._receive())
        watching = asyncio.create_task(self.link.watch_deadlines())
        unfinished = self._unfinished()
        if unfinished:
            await self.intake.resumed()  # `team status` names what it works on again
        try:
            await self._serve(unfinished)
        finally:
            for task in (receiving, watching):
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task

    def _timed_out(self, request: Message) -> None:
        """Its request got no reply in time: its model is told, in the turn that runs (steered
        in) or with the next one."""
        if self._working:
            self.session.steer(timed_out(request))
        else:
            self._timeouts.append(timed_out(request))
            self._wake.set()

    async def stopped(self) -> None:
        """Record that its process ends: called last, once the session is closed (its
        SessionEnd hooks done), so that the roster never says stopped while it still runs."""
        with contextlib.suppress(Exception):
            await self.link.publish(**STOPPED, spend_usd=self.session.cost_usd)
        await self.link.close()

    def _note_restart(self) -> None:
        """Every state change is an event: a start that finds the member in another state
        than its log's last line left it (an owed shutdown done since, a stop) says so."""
        last = self.link.last_event()
        state = self.link.protocol.state
        if last is not None and last.get("after") != state:
            before = str(last.get("after"))
            self.link.note_event(before, state, f"started again (pid {os.getpid()})")

    def _unfinished(self) -> list[str]:
        """The prompt that finishes a turn an earlier run left undone (its session ends with
        what the model was given and never answered: a message it held, the results of its
        tools, an interruption), or none."""
        newest = self.session.messages[-1:]
        # The model's calls still open: one its resume left to run again (`SendMessage`).
        if not newest or (newest[0].role != "user" and not newest[0].tool_uses()):
            return []
        self.say("its last turn was left unfinished: running it again")
        return [RESUMED_TURN]

    async def _serve(self, prompt: list[str]) -> None:
        while not self._stop.is_set() and not self.link.protocol.stopping:
            if not prompt:
                prompt = await self._next_prompt()
                if not prompt:
                    continue
            prompt = await self._turn(prompt)
            if prompt or not self._arrived.empty() or self._stop.is_set():
                continue
            if self.link.protocol.stopping:
                break
            prompt = await self._idle()

    async def _next_prompt(self) -> list[str]:
        """Wait for messages (or a request's timeout, or a stop); their texts."""
        getting = asyncio.create_task(self._arrived.get())
        stopping = asyncio.create_task(self._stop.wait())
        waking = asyncio.create_task(self._wake.wait())
        try:
            await asyncio.wait({getting, stopping, waking}, return_when="FIRST_COMPLETED")
        finally:
            stopping.cancel()
            waking.cancel()
            self._wake.clear()
            if not getting.done():
                getting.cancel()
        batch = getting.result() if getting.done() and not getting.cancelled() else []
        return await self._texts(batch)

    async def _texts(self, batch: list[Delivery]) -> list[str]:
        """The texts of requests that timed out and of new messages (redeliveries of held ones
        acknowledged and dropped)."""
        await self.intake.know_senders(batch)
        now = self.link.clock()
        self.link.expire_due()
        texts, self._timeouts = self._timeouts, []
        return texts + await self.intake.letters(batch, now)

    async def _turn(self, prompt: list[str]) -> list[str]:
        """Run one turn on `prompt`; messages arriving meanwhile are steered in. Returns what
        the turn did not take (steering it ended before reading). A prompt refused as too long
        for the window (taken back out of the session) runs again one part at a time when it
        has several; the messages no turn could read are told to their senders."""
        ended = await self._one_turn(prompt)
        left = self.session.take_queued()
        if ended.withdrawn and len(prompt) > 1:
            for part in prompt:
                left += await self._turn([part])
        elif ended.unread is not None and not self._stop.is_set():
            # (stopped before its prompt was kept: the mailbox gives it again next start)
            await self.intake.not_read(prompt, ended.unread)
        return left

    async def _one_turn(self, prompt: list[str]) -> Ended:
        session = self.session
        self._working = True
        self._sent = False
        feeding = asyncio.create_task(self._steer_arrivals())
        kept = asyncio.Event()
        self._kept = False
        session.prompt_kept.append(self._keep)
        session.prompt_kept.append(kept.set)
        showing = asyncio.create_task(self._show_when_kept(kept))
        finished: TurnFinished | None = None
        try:
            async for event in session.submit(UserInput(text="\n\n".join(prompt))):
                if isinstance(event, ResponseStarted):
                    self._sent = True  # the endpoint took it: it can no longer be taken back
                elif isinstance(event, ErrorOccurred):
                    self.say(f"error: {event.message}")
                elif isinstance(event, TurnFinished):
                    finished = event
                    self.say(f"turn finished ({event.subtype}): {event.result[:200]}")
                await self.intake.ack_held(sent=self._sent)
        finally:
            session.prompt_kept.remove(kept.set)
            session.prompt_kept.remove(self._keep)
            kept.set()  # a prompt a hook blocked is never kept: the waiter ends all the same
            await showing
            self._working = False
            # The feeder steers what it took, then stops at this mark: no message taken from
            # the queue is dropped half-handled (a cancellation could land mid-batch).
            self._arrived.put_nowait([])
            await feeding
        self._sent = True
        await self.intake.ack_session_held()
        await self.link.publish(spend_usd=session.cost_usd)
        return ended(session.prompt_withdrawn, self._kept, finished)

    def _keep(self) -> None:
        self._kept = True

    async def _show_when_kept(self, kept: asyncio.Event) -> None:
        """Show the prompt's task in `team status` as soon as the session holds it, not at
        the next event (which may be the model's reply)."""
        await kept.wait()
        await self.intake.ack_held(sent=self._sent)

    async def _steer_arrivals(self) -> None:
        while batch := await self._arrived.get():
            texts = await self._texts(batch)
            for text in texts:
                self.session.steer(text)
            if texts:  # status shows them once the model is given them
                self.say(f"{len(texts)} message(s) came during the turn: steered in")

    async def _idle(self) -> list[str]:
        return await when_idle(
            self.session,
            self.link,
            say=self.say,
            stop=self.stop,
            no_current=self.intake.no_current,
        )

    async def _receive(self) -> None:
        """Read the mailbox for ever; the first read takes back what a killed predecessor
        held (a teammate is its mailbox's only consumer). A store that cannot be reached for
        longer than `store_patience_s` stops the teammate once its turn is done: its session
        is saved, and `team up` starts it again where it stopped."""
        try:
            async for batch in receive_for_ever(
                self.inbox,
                self.name,
                self.consumer,
                block_s=RECEIVE_BLOCK_S,
                say=self.say,
                restore=self._restore,
                take_back_held=True,
                patience_s=self.store_patience_s,
            ):
                if batch:
                    await self._arrived.put(batch)
        except (StorePatienceOut, StoreDamaged, StoreLost) as e:
            self.say(f"{e}: stopping once its turn is done")
            self.stop(str(e), interrupt=False)

    async def _restore(self) -> None:
        await self.link.publish(spend_usd=self.session.cost_usd)
