"""Sessions built as the CLI builds them, over the fake model, whose permission questions the
test answers: the questions asked are kept for the test to check."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tether.cli.setup import RunOptions, build_session
from tether.core.session import Session
from tether.permissions import Mode
from tether.protocol import Event, PermissionAnswer, PermissionAsked, UserInput
from tether.testing import FakeModelServer


@dataclass
class Asked:
    session: Session
    answer: str = "allow_once"
    """What the user answers to every question."""
    questions: list[PermissionAsked] = field(default_factory=list[PermissionAsked])

    async def turn(self, text: str) -> list[Event]:
        events: list[Event] = []
        async for event in self.session.submit(UserInput(text=text)):
            events.append(event)
            if isinstance(event, PermissionAsked):
                self.questions.append(event)
                choice: Any = self.answer
                self.session.answer(PermissionAnswer(request_id=event.request_id, choice=choice))
        return events


MakeSession = Callable[..., Asked]


@pytest.fixture
async def asked_session(
    model_env: FakeModelServer, workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[MakeSession]:
    """`asked_session(mode=..., settings={...}, add_dirs=(...), trusted=...)`: settings are
    the user's own (under TETHER_HOME); `trusted` trusts the workspace's own files."""
    user_home = tmp_path / "user-home"
    user_home.mkdir()
    monkeypatch.setenv("HOME", str(user_home))
    monkeypatch.setenv("TETHER_RETRY_DELAY_MS", "1")
    built: list[Session] = []

    def make(
        *,
        mode: Mode = "default",
        settings: dict[str, Any] | None = None,
        add_dirs: tuple[Path, ...] = (),
        answer: str = "allow_once",
        trusted: bool = False,
    ) -> Asked:
        layer = {"sandbox": {"enabled": False}, **(settings or {})}
        (tmp_path / "home" / "settings.json").write_text(json.dumps(layer))
        options = RunOptions(
            cwd=workspace, permission_mode=mode, add_dirs=add_dirs, trust_workspace=trusted
        )
        session = build_session(options)
        session.can_ask = True
        built.append(session)
        return Asked(session, answer)

    yield make
    for session in built:
        await session.aclose()
