"""`tether cost`: what the ledger recorded, grouped by tool, model, session, task, agent or
day, as a table with a bar chart, or as JSON."""

from __future__ import annotations

import argparse
import json
import sys

from rich.console import Console

from tether.cli.cost_view import cost_lines, cost_table
from tether.config.settings import tether_home
from tether.ledger import GROUPINGS, LedgerError, LedgerFile, breakdown, ledger_path, parse_since


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="tether cost",
        description="What sessions, subagents and workers spent, from the cost ledger. A tool "
        "call's cost is what it made the session pay: its share of the output of the reply "
        "that asked for it, and the tokens its result took up in every later request.",
    )
    parser.add_argument("--by", choices=GROUPINGS, default="tool", help="group by (default: tool)")
    parser.add_argument("--since", help="only from this date (YYYY-MM-DD) or time (ISO 8601, UTC)")
    parser.add_argument("--session", help="only this session's spend")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args(argv)
    try:
        since = None if args.since is None else parse_since(args.since)
    except ValueError as e:
        parser.error(str(e))
    path = ledger_path(tether_home())
    if not path.exists():
        lines = []
    else:
        try:
            ledger = LedgerFile(path, read_only=True)
            try:
                lines = breakdown(ledger, args.by, since=since, session_id=args.session)
            finally:
                ledger.close()
        except LedgerError as e:
            print(f"tether cost: {e}", file=sys.stderr)
            return 1
    total = sum(line.cost_usd for line in lines)
    if args.json:
        body = {
            "by": args.by,
            "since": since,
            "total_usd": total,
            "lines": [line.as_json() for line in lines],
        }
        print(json.dumps(body, indent=2))
        return 0
    if not lines:
        print("nothing recorded" + ("" if since is None else f" since {args.since}"))
        return 0
    console = Console(highlight=False)
    console.print(cost_table(lines, args.by))
    console.print("\n".join(cost_lines(lines, "Share of the cost")), markup=False)
    return 0
