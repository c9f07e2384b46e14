"""`tether cost`: what the ledger recorded, grouped by tool, model, session, task, agent or
day, as a table with a bar chart, or as JSON. It only reads the ledger (never creates or
changes it), so a read-only home or a full disk can still be read."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from rich.console import Console

from tether.cli.cost_view import Shown, cost_lines, cost_table, shown
from tether.cli.session_refs import SessionRefError, check_ref, resolve_session
from tether.config.settings import tether_home
from tether.ledger import (
    GROUPINGS,
    CacheUnknown,
    Grouping,
    LedgerError,
    LedgerFile,
    Line,
    breakdown,
    cache_unknown,
    ledger_path,
    parse_since,
    session_ids,
    unpriced,
)

DEFAULT_LIMIT = 20
"""Lines shown at most unless `--limit` says otherwise; the rest summed in one line."""


class _Refused(Exception):
    """Said on stderr as it is, with its exit status."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


def main(argv: list[str]) -> int:
    """0: shown; 1: the ledger cannot be read, or has no such session; 2: bad arguments."""
    parser = _parser()
    args = parser.parse_args(argv)
    if args.by is None:
        # One session's view is its whole spend, model by model (its tools' share is only
        # part of it, and a session that ran no tool has none): `--by tool` still gives that.
        args.by = "model" if args.session is not None else "tool"
    try:
        since = None if args.since is None else parse_since(args.since)
    except ValueError as e:
        parser.error(str(e))
    try:
        project = None if args.project is None else str(Path(args.project).resolve())
        lines, free, unknown = _lines(
            ledger_path(tether_home()), args.by, since, args.session, project
        )
    except _Refused as e:
        print(f"tether cost: {e}", file=sys.stderr)
        return e.status
    view = shown(lines, args.limit)
    if args.json:
        body = {
            "by": args.by,
            "since": since,
            "total_usd": view.total_usd,
            "lines": [line.as_json() for line in view.lines],
            "more_lines": view.more_lines,
            "more_usd": view.more_usd,
            "unpriced_models": [{"model": model, "calls": calls} for model, calls in free],
            "cache_reads_unreported": {
                "calls": unknown.unreported,
                "possible_saving_usd_estimated": unknown.possible_saving,
                "unpriced_calls": unknown.unreported_unpriced,
            },
            "cache_reads_estimated_calls": unknown.estimated,
        }
        print(json.dumps(body, indent=2))
        return 0
    if not lines:
        print("nothing recorded" + ("" if since is None else f" since {args.since}"))
        return 0
    _print(view, args.by)
    for model, calls in free:
        print(
            f"{model}: {calls} model call(s) at no known price, counted as $0 "
            "(a local server's, or a model the catalogue lacks): the totals leave them out"
        )
    for note in _cache_notes(unknown):
        print(note)
    return 0


def _cache_notes(unknown: CacheUnknown) -> list[str]:
    """What the totals say of cache reads no endpoint reported."""
    notes: list[str] = []
    priced = unknown.unreported - unknown.unreported_unpriced
    if priced:
        notes.append(
            f"{priced} model call(s) to an endpoint that reports no cache reads: "
            "priced as plain input, as the session's own total is; a prompt cache may have "
            f"saved up to ${unknown.possible_saving:.4f} of it (estimated, not in the totals)"
        )
    if unknown.unreported_unpriced:
        # No price, so no saving to estimate: a figure of $0 would say none was possible.
        notes.append(
            f"{unknown.unreported_unpriced} model call(s) to an endpoint that reports no cache "
            "reads, of a model with no known price: what a prompt cache may have saved on "
            "them is unknown"
        )
    if unknown.estimated:
        notes.append(
            f"{unknown.estimated} model call(s) recorded by an older tether have estimated "
            "cache reads (their endpoint reported none), priced as such in the totals"
        )
    return notes


def _lines(
    path: Path, by: Grouping, since: str | None, session: str | None, project: str | None = None
) -> tuple[list[Line], list[tuple[str, int]], CacheUnknown]:
    """The lines, the models (with their calls) that no price was known for, and the calls
    whose cache reads their endpoint did not report."""
    try:
        if session is not None:
            check_ref(session)
    except SessionRefError as e:
        raise _Refused(str(e), 2) from None
    if not path.exists():
        if session is not None:
            raise _Refused(f"no session {session!r} in the cost ledger (nothing recorded)", 1)
        return [], [], CacheUnknown()
    try:
        ledger = LedgerFile(path, read_only=True)
        try:
            session_id = None
            if session is not None:
                session_id = resolve_session(session, session_ids(ledger, session))
                if session_id is None:
                    raise _Refused(f"no session {session!r} in the cost ledger {path}", 1)
            lines = breakdown(ledger, by, since=since, session_id=session_id, project=project)
            free = unpriced(ledger, since=since, session_id=session_id, project=project)
            unknown = cache_unknown(ledger, since=since, session_id=session_id, project=project)
            return lines, free, unknown
        finally:
            ledger.close()
    except SessionRefError as e:
        raise _Refused(str(e), 2) from None
    except LedgerError as e:
        raise _Refused(str(e), 1) from None


def _print(view: Shown, by: Grouping) -> None:
    console = Console(highlight=False)
    console.print(cost_table(view, by))
    chart = cost_lines(view.lines, "Share of the cost", view, columns=console.width)
    console.print("\n".join(chart), markup=False)


def _count(value: str) -> int:
    try:
        n = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {value!r}") from None
    if n < 0:
        raise argparse.ArgumentTypeError("must be 0 (all) or more")
    return n


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tether cost",
        description="What sessions, subagents and workers spent, from the cost ledger. A tool "
        "call's cost is what it made the session pay: its share of the output of the reply "
        "that asked for it, and the tokens its result took up in every later request.",
    )
    parser.add_argument(
        "--by",
        choices=GROUPINGS,
        default=None,
        help="group by (default: tool; with --session: model, the session's whole spend)",
    )
    parser.add_argument("--since", help="only from this date (YYYY-MM-DD) or time (ISO 8601, UTC)")
    parser.add_argument(
        "--session",
        help="only this session's spend (its id, or its first characters), by model unless "
        "--by says otherwise",
    )
    parser.add_argument(
        "--project",
        help="only the spend of sessions run for this project (a directory; a task worktree's "
        "is its project's); --by task and --by agent name each line's project",
    )
    parser.add_argument(
        "--limit",
        type=_count,
        default=DEFAULT_LIMIT,
        help=f"the most expensive N lines, the rest summed in one (default {DEFAULT_LIMIT}; "
        "0: all)",
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    return parser
