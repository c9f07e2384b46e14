"""Built-in event handlers, each off unless enabled in settings:

    {"tether": {"eventLog": ".tether/events.jsonl", "toolStats": true, "slowToolMs": 5000}}

- `eventLog`: a view of the event log (`tether.observe`): the session's records, subagents'
  included, appended to this file too (relative to the project); `tether.cli` attaches it.
- `toolStats`: calls, errors, total and average time per tool, given at the end of the session.
- `slowToolMs`: a notice whenever a tool call takes longer than this many milliseconds.

They subscribe to the in-process bus like any other handler.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Final, cast

from tether.hooks.bus import EventBus
from tether.protocol import ConfigError, ToolFinished
from tether.slotted import Slotted

SETTINGS_KEY = "tether"


class BuiltinSettings(Slotted):
    __slots__ = ("event_log", "slow_tool_ms", "tool_stats")
    event_log: Final[Path | None]
    """Where the session's event records are appended too (`tether.observe`); None: nowhere."""
    tool_stats: Final[bool]
    """Give per-tool call statistics at the end of the session."""
    slow_tool_ms: Final[int | None]
    """Give a notice when a tool call takes longer than this; None: never."""

    def __init__(
        self,
        event_log: Path | None = None,
        tool_stats: bool = False,
        slow_tool_ms: int | None = None,
    ) -> None:
        self.event_log = event_log
        self.tool_stats = tool_stats
        self.slow_tool_ms = slow_tool_ms


def read_builtin_settings(settings_data: Mapping[str, Any], *, base_dir: Path) -> BuiltinSettings:
    """The built-ins' settings from the merged settings; a relative log path is relative to
    `base_dir` (the project). Wrong types are a `ConfigError` naming the key."""
    block = settings_data.get(SETTINGS_KEY)
    if block is None:
        return BuiltinSettings()
    if not isinstance(block, dict):
        raise ConfigError(f'settings key "{SETTINGS_KEY}" must be an object')
    block = cast(dict[str, Any], block)
    log = block.get("eventLog")
    if log is not None and (not isinstance(log, str) or not log.strip()):
        raise ConfigError(f'settings key "{SETTINGS_KEY}.eventLog" must be a file path')
    stats = block.get("toolStats", False)
    if not isinstance(stats, bool):
        raise ConfigError(f'settings key "{SETTINGS_KEY}.toolStats" must be true or false')
    slow = block.get("slowToolMs")
    if slow is not None and (isinstance(slow, bool) or not isinstance(slow, int) or slow <= 0):
        raise ConfigError(
            f'settings key "{SETTINGS_KEY}.slowToolMs" must be a positive number of milliseconds'
        )
    return BuiltinSettings(
        event_log=base_dir / Path(log).expanduser() if log else None,
        tool_stats=stats,
        slow_tool_ms=slow,
    )


class _ToolTally(Slotted):
    __slots__ = ("calls", "errors", "total_ms")
    calls: int
    errors: int
    total_ms: int

    def __init__(self, calls: int = 0, errors: int = 0, total_ms: int = 0) -> None:
        self.calls = calls
        self.errors = errors
        self.total_ms = total_ms


class ToolStats(Slotted):
    """Calls, errors and time per tool, from `ToolFinished` events."""

    __slots__ = ("tallies",)
    tallies: dict[str, _ToolTally]

    def __init__(self) -> None:
        self.tallies = {}

    def __call__(self, event: ToolFinished) -> None:
        tally = self.tallies.setdefault(event.name, _ToolTally())
        tally.calls += 1
        tally.errors += int(event.is_error)
        tally.total_ms += event.duration_ms

    def render(self) -> str | None:
        """A small table, busiest tool first; None before any tool ran."""
        if not self.tallies:
            return None
        rows = sorted(self.tallies.items(), key=lambda item: (-item[1].total_ms, item[0]))
        width = max(4, *(len(name) for name, _ in rows))
        lines = [f"{'tool':<{width}}  calls  errors     total       avg"]
        for name, t in rows:
            lines.append(
                f"{name:<{width}}  {t.calls:>5}  {t.errors:>6}  {_duration(t.total_ms):>8}"
                f"  {_duration(t.total_ms // t.calls):>8}"
            )
        return "Tool calls this session:\n" + "\n".join(lines)


class SlowToolTimer:
    """A notice for each tool call that took longer than the threshold."""

    def __init__(self, threshold_ms: int, emit_notice: Callable[[str], None]) -> None:
        self.threshold_ms = threshold_ms
        self._emit_notice = emit_notice

    def __call__(self, event: ToolFinished) -> None:
        if event.duration_ms > self.threshold_ms:
            self._emit_notice(
                f"{event.name} took {_duration(event.duration_ms)} "
                f"(slow-tool threshold {_duration(self.threshold_ms)})"
            )


class BuiltinHandlers:
    """The enabled built-ins: `attach` them to the session's bus, `finish` at session end."""

    def __init__(self, settings: BuiltinSettings, emit_notice: Callable[[str], None]) -> None:
        self.settings = settings
        self._emit_notice = emit_notice
        self.stats = ToolStats() if settings.tool_stats else None
        self.timer = (
            SlowToolTimer(settings.slow_tool_ms, emit_notice) if settings.slow_tool_ms else None
        )

    @property
    def enabled(self) -> bool:
        return self.stats is not None or self.timer is not None

    def attach(self, bus: EventBus) -> None:
        if self.stats is not None:
            bus.subscribe(ToolFinished, self.stats)
        if self.timer is not None:
            bus.subscribe(ToolFinished, self.timer)

    def finish(self) -> None:
        """At session end: give the tool statistics."""
        if self.stats is not None:
            summary = self.stats.render()
            if summary is not None:
                self._emit_notice(summary)


def builtin_handlers(
    settings_data: Mapping[str, Any], *, emit_notice: Callable[[str], None], base_dir: Path
) -> BuiltinHandlers:
    """The built-in handlers the settings enable (see the module docstring for the keys)."""
    return BuiltinHandlers(read_builtin_settings(settings_data, base_dir=base_dir), emit_notice)


def _duration(ms: int) -> str:
    return f"{ms} ms" if ms < 1000 else f"{ms / 1000:.1f} s"
