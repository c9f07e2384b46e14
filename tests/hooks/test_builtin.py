"""Built-in handlers: event log, tool statistics, slow-tool notices; off unless enabled."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tether.hooks import BuiltinSettings, EventBus, builtin_handlers
from tether.hooks.builtin import read_builtin_settings
from tether.protocol import ConfigError, ToolFinished, ToolStarted


def finished(name: str, ms: int, *, error: bool = False) -> ToolFinished:
    return ToolFinished(call_id="c", name=name, content="", is_error=error, duration_ms=ms)


def test_nothing_is_enabled_by_default(tmp_path: Path) -> None:
    handlers = builtin_handlers({"model": "x"}, emit_notice=print, base_dir=tmp_path)
    assert handlers.settings == BuiltinSettings()
    assert not handlers.enabled


def test_settings_keys(tmp_path: Path) -> None:
    data = {"tether": {"eventLog": "logs/events.jsonl", "toolStats": True, "slowToolMs": 5000}}
    assert read_builtin_settings(data, base_dir=tmp_path) == BuiltinSettings(
        event_log=tmp_path / "logs" / "events.jsonl", tool_stats=True, slow_tool_ms=5000
    )


@pytest.mark.parametrize(
    ("block", "message"),
    [
        ("on", 'settings key "tether" must be an object'),
        ({"eventLog": 3}, 'settings key "tether.eventLog" must be a file path'),
        ({"toolStats": "yes"}, 'settings key "tether.toolStats" must be true or false'),
        ({"slowToolMs": -1}, 'settings key "tether.slowToolMs" must be a positive number'),
        ({"slowToolMs": True}, 'settings key "tether.slowToolMs" must be a positive number'),
    ],
)
def test_bad_settings_name_the_key(block: Any, message: str, tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=message):
        read_builtin_settings({"tether": block}, base_dir=tmp_path)


async def test_tool_stats_are_given_at_session_end(tmp_path: Path) -> None:
    notices: list[str] = []
    bus = EventBus()
    handlers = builtin_handlers(
        {"tether": {"toolStats": True}}, emit_notice=notices.append, base_dir=tmp_path
    )
    handlers.attach(bus)
    await bus.publish(ToolStarted(call_id="c", name="Read", input={}))
    for event in (
        finished("Read", 10),
        finished("Bash", 1500),
        finished("Bash", 2501, error=True),
        finished("Read", 30),
    ):
        await bus.publish(event)
    assert notices == []
    handlers.finish()
    assert notices == [
        "Tool calls this session:\n"
        "tool  calls  errors     total       avg\n"
        "Bash      2       1     4.0 s     2.0 s\n"
        "Read      2       0     40 ms     20 ms"
    ]


def test_no_stats_when_no_tool_ran(tmp_path: Path) -> None:
    notices: list[str] = []
    handlers = builtin_handlers(
        {"tether": {"toolStats": True}}, emit_notice=notices.append, base_dir=tmp_path
    )
    handlers.finish()
    assert notices == []


async def test_slow_tool_notice(tmp_path: Path) -> None:
    notices: list[str] = []
    bus = EventBus()
    builtin_handlers(
        {"tether": {"slowToolMs": 1000}}, emit_notice=notices.append, base_dir=tmp_path
    ).attach(bus)
    for event in (finished("Read", 999), finished("Read", 1000), finished("Bash", 61_250)):
        await bus.publish(event)
    assert notices == ["Bash took 61.2 s (slow-tool threshold 1.0 s)"]
