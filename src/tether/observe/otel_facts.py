"""What the metrics and the spans both read from the records: a session's facts, a tool call's
permission decision, token counts, times. No OpenTelemetry import here."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import PurePosixPath
from typing import Any

from tether.observe.bounded import changed_lines as changed_lines
from tether.observe.records import EventRecord

USAGE_FIELDS = (
    "input_tokens",
    "output_tokens",
    "cache_read_input_tokens",
    "cache_creation_input_tokens",
)
EDIT_TOOLS = frozenset({"Edit", "MultiEdit", "Write", "NotebookEdit"})
"""Claude Code's code-editing tools: their decisions are `code_edit_tool.decision`."""

_COMMIT = re.compile(r"(?:^|[;&|(\s])git\s+(?:-\S+\s+(?:\S+\s+)?)*commit\b")
_PULL_REQUEST = re.compile(r"(?:^|[;&|(\s])gh\s+pr\s+create\b")
_DENIAL_SOURCES = {"rule": "config", "mode": "config", "hook": "hook", "user": "user_reject"}
_LANGUAGES = {
    ".py": "Python", ".pyi": "Python", ".js": "JavaScript", ".mjs": "JavaScript",
    ".cjs": "JavaScript", ".jsx": "JavaScript", ".ts": "TypeScript", ".tsx": "TypeScript",
    ".go": "Go", ".rs": "Rust", ".java": "Java", ".kt": "Kotlin", ".c": "C", ".h": "C",
    ".cc": "C++", ".cpp": "C++", ".hpp": "C++", ".cs": "C#", ".rb": "Ruby", ".php": "PHP",
    ".swift": "Swift", ".sh": "Shell", ".bash": "Shell", ".md": "Markdown", ".json": "JSON",
    ".yaml": "YAML", ".yml": "YAML", ".toml": "TOML", ".html": "HTML", ".css": "CSS",
    ".sql": "SQL", ".ipynb": "Jupyter Notebook", ".txt": "Text",
}  # fmt: skip


@dataclass(frozen=True)
class SessionFacts:
    """What the records do not repeat: told by `attach_observation` when a session opens."""

    session_id: str
    agent_id: str
    task_id: str | None
    model: str
    provider: str | None


@dataclass(frozen=True)
class Decision:
    """Claude Code's `decision` (accept, reject) and `source` (config, hook, user_temporary,
    user_reject) of a tool call."""

    decision: str
    source: str


def decide(finished: Mapping[str, Any], asked: bool) -> Decision:
    """A finished call's decision: denied (by what), or run (asked the user first or not)."""
    denial = finished.get("denial")
    if isinstance(denial, Mapping):
        by = str(denial.get("decided_by"))  # pyright: ignore[reportUnknownMemberType]
        return Decision("reject", _DENIAL_SOURCES.get(by, by))
    return Decision("accept", "user_temporary" if asked else "config")


def usage_of(value: object) -> dict[str, int]:
    """A usage payload's four counts (0 where absent)."""
    found: Mapping[str, Any] = value if isinstance(value, Mapping) else {}  # pyright: ignore[reportUnknownVariableType]
    return {name: int(found.get(name) or 0) for name in USAGE_FIELDS}


def record_ns(record: EventRecord) -> int:
    """When the event was emitted, in nanoseconds since the epoch."""
    moment = datetime.fromisoformat(record.ts)
    return int(moment.timestamp()) * 1_000_000_000 + moment.microsecond * 1_000


def language_of(tool_input: Mapping[str, Any]) -> str | None:
    path = tool_input.get("file_path") or tool_input.get("notebook_path")
    if not isinstance(path, str):
        return None
    return _LANGUAGES.get(PurePosixPath(path).suffix.lower())


def is_commit(command: str) -> bool:
    return _COMMIT.search(command) is not None


def is_pull_request(command: str) -> bool:
    return _PULL_REQUEST.search(command) is not None
