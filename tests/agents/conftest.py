"""A main session with the Task tool, a journal that records subagent transcripts, and a router
that answers each request with the turns scripted for whoever sent it."""

from __future__ import annotations

import json
import threading
from collections import deque
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tether.agents import AgentCatalog, SubagentRunner, discover_agents, task_tool
from tether.cli.setup import RunOptions, build_session
from tether.core.session import Session
from tether.permissions import Mode
from tether.protocol import ContentBlock, Event, Message, Usage, UserInput
from tether.store import ReplyEntries
from tether.testing import FakeModelServer, RecordedRequest, Turn
from tether.testing.recorded import content_text
from tether.tools.registry import ToolRegistry

MAIN = "main"
"""The route of the main agent's requests (its system prompt starts with tether's own)."""


def write_agent(directory: Path, file_name: str, text: str) -> Path:
    path = directory / file_name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def agent_text(name: str, body: str = "You help.", **fields: str) -> str:
    extra = "".join(f"{key}: {value}\n" for key, value in fields.items())
    return f"---\nname: {name}\ndescription: Does {name} things.\n{extra}---\n{body}\n"


@dataclass
class RecordingJournal:
    """A `Journal` that keeps what it is told, and whether it was closed."""

    agent_id: str
    entries: list[tuple[str, Any]] = field(default_factory=list[tuple[str, Any]])
    closed: bool = False

    def user(
        self, blocks: Sequence[ContentBlock], entry_uuid: str | None = None, structured: Any = None
    ) -> None:
        assert not self.closed
        self.entries.append(("user", tuple(blocks)))

    def assistant(
        self, message: Message, usage: Usage | None, reply: ReplyEntries | None = None
    ) -> None:
        assert not self.closed
        self.entries.append(("assistant", message))

    def compacted(self, summary: Sequence[Message], kept: int) -> None:
        self.entries.append(("compacted", kept))

    def close(self) -> None:
        self.closed = True


def first_user_text(request: RecordedRequest) -> str:
    messages = request.messages()
    return content_text(messages[0].get("content")) if messages else ""


class Router:
    """Scripted turns per sender. The main agent is `MAIN`; a subagent's route is a key found in
    its task prompt (its first user message) or else in its system prompt. A turn may be a
    callable, as anywhere in the fake server's script."""

    def __init__(self) -> None:
        self._routes: dict[str, deque[Turn]] = {}
        self._lock = threading.Lock()

    def add(self, route: str, *turns: Turn) -> Router:
        self._routes.setdefault(route, deque()).extend(turns)
        return self

    def install(self, server: FakeModelServer) -> None:
        total = sum(len(turns) for turns in self._routes.values())
        server.script(*[self.answer] * total)

    def answer(self, request: RecordedRequest) -> Turn:
        route = who(request, self._routes)
        with self._lock:
            turns = self._routes[route]
            if not turns:
                raise AssertionError(f"no turn left for {route!r}")
            return turns.popleft()


def who(request: RecordedRequest, routes: Iterable[str]) -> str:
    """Which route a request belongs to (see `Router`)."""
    if request.system().startswith("You are tether"):
        return MAIN
    names = [name for name in routes if name != MAIN]
    prompt = first_user_text(request)
    for name in names:
        if name in prompt:
            return name
    for name in names:
        if name in request.system():
            return name
    raise AssertionError(f"no route for a request whose prompt is {prompt!r}")


def requests_of(
    server: FakeModelServer, route: str, routes: Iterable[str]
) -> list[RecordedRequest]:
    """The requests of one route, in the order they arrived."""
    routes = list(routes)
    return [r for r in server.requests if who(r, routes) == route]


@dataclass
class Harness:
    session: Session
    runner: SubagentRunner
    usage: list[tuple[Usage, float]]
    journals: list[RecordingJournal]

    async def turn(self, text: str) -> list[Event]:
        return [event async for event in self.session.submit(UserInput(text=text))]


MakeHarness = Callable[..., Harness]


@pytest.fixture
async def harness(
    model_env: FakeModelServer,
    workspace: Path,
    home: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> AsyncIterator[MakeHarness]:
    """Build a main session whose Task tool runs on a runner of the test's own. `settings`
    go to the project's `.tether/settings.json` (the sandbox is off unless they say otherwise)."""
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("TETHER_RETRY_DELAY_MS", "1")
    built: list[Session] = []

    def make(
        *,
        settings: dict[str, Any] | None = None,
        mode: Mode = "bypassPermissions",
        catalog: AgentCatalog | None = None,
        **runner_options: Any,
    ) -> Harness:
        layer = {"sandbox": {"enabled": False}, **(settings or {})}
        (workspace / ".tether").mkdir(exist_ok=True)
        (workspace / ".tether" / "settings.json").write_text(json.dumps(layer))
        # The test's own project: its settings (hooks, the sandbox off) apply.
        options = RunOptions(cwd=workspace, permission_mode=mode, trust_workspace=True)
        session = build_session(options)
        built.append(session)
        usage: list[tuple[Usage, float]] = []
        journals: list[RecordingJournal] = []

        def transcript_for(agent_id: str) -> RecordingJournal:
            journals.append(RecordingJournal(agent_id))
            return journals[-1]

        runner = SubagentRunner(
            catalog or discover_agents(workspace, home=home),
            transcript_for=transcript_for,
            on_usage=lambda u, cost: usage.append((u, cost)),
            **runner_options,
        )
        # The session's own Task tool is swapped for one on this runner, which the tests
        # configure and observe.
        tools = session.agent.tools
        kept = [t for name in tools.names() if name != "Task" and (t := tools.get(name))]
        session.agent.tools = ToolRegistry([*kept, task_tool(runner)])
        return Harness(session, runner, usage, journals)

    yield make
    for session in built:
        await session.aclose()
