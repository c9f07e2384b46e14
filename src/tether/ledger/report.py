"""What `tether cost` and `/cost` show: the ledger's spend grouped one way."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import UTC, date, datetime
from typing import Any, Literal, get_args

from tether.ledger.db import LedgerError, LedgerFile

Grouping = Literal["tool", "model", "session", "task", "agent", "day"]
GROUPINGS: tuple[Grouping, ...] = get_args(Grouping)

_KEYS: dict[Grouping, str] = {
    "tool": "tool",
    "model": "model",
    "session": "session_id",
    "task": "task_id",
    "agent": "agent_id",
    "day": "substr(at, 1, 10)",
}
_WHOSE: dict[Grouping, tuple[str, str]] = {
    "task": ("team, project", "GROUP BY 1, 2, 3"),
    "agent": (
        "team, CASE WHEN COUNT(DISTINCT project) = 1 THEN MIN(project) END",
        "GROUP BY 1, 2",
    ),
}
"""Groupings said as `team/key`, each with the project beside it and the grouping: a task's id
is only unique within one team of one project, so a task is grouped by all three; an agent is
one process, whose runs may each be in their own directory (an eval worker copies a case's
project per run), so an agent is grouped by team and id, its project shown when it has one."""


@dataclass(frozen=True)
class Line:
    """One group: how many calls, the tokens by kind, and what they cost."""

    key: str
    calls: int
    input_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int
    output_tokens: int
    """Whole, as every token count (a tool's are its shares of its turns' output, summed and
    rounded: `meter.py`)."""
    cost_usd: float
    project: str | None = None
    """The project a task or an agent's line is of (`--by task|agent`; None when unknown)."""

    def as_json(self) -> dict[str, Any]:
        """The line's fields; `project` only for a line that has one."""
        fields = asdict(self)
        if self.project is None:
            del fields["project"]
        return fields


def parse_since(text: str) -> str:
    """A `--since` date (YYYY-MM-DD) or time (ISO 8601, UTC when no offset is given) as the
    ledger's timestamps compare; `ValueError` says what is expected."""
    try:
        if len(text) == 10:
            return date.fromisoformat(text).isoformat()
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise ValueError(
            f"--since {text!r}: expected a date (2026-12-01) or a time (2026-12-01T09:30)"
        ) from None
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC).replace(tzinfo=None)
    return moment.isoformat(timespec="milliseconds")


def breakdown(
    ledger: LedgerFile,
    by: Grouping,
    *,
    since: str | None = None,
    session_id: str | None = None,
    project: str | None = None,
) -> list[Line]:
    """The spend grouped `by` one of `GROUPINGS`, most expensive first, of one `project`'s
    sessions when given. Tools are grouped from their calls (each call's cost, see
    `meter.py`); everything else from model calls."""
    if by not in _KEYS:
        raise LedgerError(f"cannot group by {by!r}: one of {', '.join(GROUPINGS)}")
    where, parameters = _filters(since, session_id, project)
    if by == "tool":
        sql = (
            "SELECT tool, NULL, NULL, COUNT(*), SUM(input_tokens), SUM(cache_read_tokens), "
            "SUM(cache_write_tokens), SUM(output_tokens), "
            "SUM(output_cost + input_cost + cache_read_cost + cache_write_cost) "
            f"FROM tool_calls {where} GROUP BY tool"
        )
    else:
        whose, group = _WHOSE.get(by, ("NULL, NULL", "GROUP BY 1"))
        sql = (
            f"SELECT {_KEYS[by]}, {whose}, COUNT(*), SUM(input_tokens), SUM(cache_read_tokens), "
            "SUM(cache_write_tokens), SUM(output_tokens), SUM(cost) "
            f"FROM model_calls {where} {group}"
        )
    lines = [
        Line(
            _key(key, team),
            int(str(calls)),
            int(str(plain)),
            int(str(read)),
            int(str(written)),
            round(float(str(output))),
            float(str(cost)),
            None if project is None else str(project),
        )
        for key, team, project, calls, plain, read, written, output, cost in ledger.read(
            sql, parameters
        )
    ]
    return sorted(lines, key=lambda line: (-line.cost_usd, line.key, line.project or ""))


def unpriced(
    ledger: LedgerFile,
    *,
    since: str | None = None,
    session_id: str | None = None,
    project: str | None = None,
) -> list[tuple[str, int]]:
    """The models whose calls (in the same selection as `breakdown`'s) used tokens and cost
    nothing: no prices were known for them (a local server, a model the catalogue lacks), so
    every total above leaves them out; each with its number of calls."""
    where, parameters = _filters(since, session_id, project)
    rows = ledger.read(
        f"SELECT model, COUNT(*) FROM model_calls {where} GROUP BY model "
        "HAVING SUM(cost) = 0 AND SUM(input_tokens + cache_read_tokens + cache_write_tokens "
        "+ output_tokens) > 0 ORDER BY model",
        parameters,
    )
    return [(str(model), int(str(calls))) for model, calls in rows]


@dataclass(frozen=True)
class CacheUnknown:
    """The model calls (in `breakdown`'s selection) whose endpoint said nothing of its cache
    reads: `unreported` priced as plain input, `possible_saving` what a prefix cache may have
    saved on them (estimated, in no total); `estimated`: calls of an older ledger whose cache
    reads were estimated and priced so."""

    unreported: int = 0
    possible_saving: float = 0.0
    estimated: int = 0
    unreported_unpriced: int = 0
    """Of the `unreported`, those of a model with no known price: what a cache may have saved
    on them is unknown (0 in `possible_saving`, which is no estimate of it)."""


def cache_unknown(
    ledger: LedgerFile,
    *,
    since: str | None = None,
    session_id: str | None = None,
    project: str | None = None,
) -> CacheUnknown:
    where, parameters = _filters(since, session_id, project)
    rows = ledger.read(
        "SELECT COALESCE(SUM(cache_reads = 'unreported'), 0), "
        "COALESCE(SUM(CASE WHEN cache_reads = 'unreported' THEN possible_saving END), 0), "
        f"COALESCE(SUM(cache_reads = 'estimated'), 0), "
        "COALESCE(SUM(cache_reads = 'unreported' AND cost = 0 AND input_tokens + "
        f"cache_read_tokens + cache_write_tokens + output_tokens > 0), 0) FROM model_calls {where}",
        parameters,
    )
    if not rows:
        return CacheUnknown()
    unreported, saving, estimated, unpriced_calls = (str(value) for value in rows[0])
    return CacheUnknown(int(unreported), float(saving), int(estimated), int(unpriced_calls))


def _key(key: object, team: object) -> str:
    """A line's key: a task's id or an agent's name under its team (`alpha/1`, `alpha/m1`);
    `(none)` for calls made for no task."""
    if key is None:
        return "(none)"
    return f"{team}/{key}" if team is not None else str(key)


def session_ids(ledger: LedgerFile, start: str) -> list[str]:
    """The ids of the sessions recorded whose id starts with `start`."""
    rows = ledger.read(
        "SELECT session_id FROM sessions WHERE substr(session_id, 1, ?) = ? "
        "UNION SELECT DISTINCT session_id FROM model_calls WHERE substr(session_id, 1, ?) = ?",
        (len(start), start, len(start), start),
    )
    return [str(session_id) for (session_id,) in rows]


def _filters(
    since: str | None, session_id: str | None, project: str | None
) -> tuple[str, tuple[object, ...]]:
    clauses: list[str] = []
    parameters: list[object] = []
    if project is not None:  # tool calls have no project of their own: their session's
        clauses.append(
            "session_id IN (SELECT session_id FROM sessions WHERE project = ? "
            "UNION SELECT session_id FROM model_calls WHERE project = ?)"
        )
        parameters.extend((project, project))
    if since is not None:
        clauses.append("at >= ?")
        parameters.append(since)
    if session_id is not None:
        clauses.append("session_id = ?")
        parameters.append(session_id)
    return ("WHERE " + " AND ".join(clauses) if clauses else ""), tuple(parameters)
