"""`tether events tail [-n N] [-f] [--session ID] [--kind K]... [--agent A] [--task T] [--json]`:
the event log every session writes under `$TETHER_HOME` (`tether.observe`), filtered."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence

from tether.config.settings import tether_home
from tether.observe.reading import LogReader, Wanted, last_records
from tether.observe.records import EventRecord, log_dir
from tether.observe.summary import line
from tether.observe.webhook_settings import event_kinds

POLL_S = 0.2
"""How often `-f` looks for new records."""


def main(argv: list[str]) -> int:
    """0: printed (or followed until interrupted); 1: the log cannot be read; 2: bad
    arguments."""
    args = _parser().parse_args(argv)
    known = event_kinds()
    unknown = sorted(set(args.kind) - known)
    if unknown:
        print(
            f"tether events: unknown event kind(s) {', '.join(unknown)} "
            f"(known: {', '.join(sorted(known))})",
            file=sys.stderr,
        )
        return 2
    home = tether_home()
    wanted = _filter(args.session, args.kind, args.agent, args.task)
    show: Callable[[EventRecord], str] = EventRecord.to_json if args.json else line
    reader = LogReader(home)
    try:
        records = last_records(home, args.lines, wanted, reader)
        if not records and not args.follow:
            print(f"tether events: no matching events in {log_dir(home)}", file=sys.stderr)
        _print(records, show)
        while args.follow:
            time.sleep(POLL_S)
            _print([r for r in reader.read_new() if wanted(r)], show)
    except KeyboardInterrupt:
        pass
    except BrokenPipeError:  # `| head`: the reader has what it wanted
        sys.stderr.close()
    except OSError as e:  # the log's folder a file, no permission: said, not a traceback
        print(f"tether events: cannot read the event log in {log_dir(home)}: {e}", file=sys.stderr)
        return 1
    finally:
        reader.close()
    return 0


def _print(records: Sequence[EventRecord], show: Callable[[EventRecord], str]) -> None:
    if not records:
        return
    sys.stdout.write("".join(f"{show(r)}\n" for r in records))
    sys.stdout.flush()


def _filter(
    sessions: Sequence[str], kinds: Sequence[str], agents: Sequence[str], tasks: Sequence[str]
) -> Wanted:
    kind_set, agent_set, task_set = set(kinds), set(agents), set(tasks)

    def wanted(record: EventRecord) -> bool:
        return (
            (not sessions or any(record.session_id.startswith(s) for s in sessions))
            and (not kind_set or record.kind in kind_set)
            and (not agent_set or record.agent_id in agent_set)
            and (not task_set or record.task_id in task_set)
        )

    return wanted


def _count(value: str) -> int:
    try:
        n = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {value!r}") from None
    if n < 0:
        raise argparse.ArgumentTypeError("must be 0 or more")
    return n


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tether events", description="The event log of every session, subagent and worker."
    )
    commands = parser.add_subparsers(dest="command", required=True)
    tail = commands.add_parser("tail", help="the last events, and new ones with -f")
    tail.add_argument("-n", "--lines", type=_count, default=20, help="how many (default 20)")
    tail.add_argument("-f", "--follow", action="store_true", help="print new events as they come")
    tail.add_argument(
        "--session", action="append", default=[], help="only this session (an id or its start)"
    )
    tail.add_argument("--kind", action="append", default=[], help="only this kind (repeatable)")
    tail.add_argument("--agent", action="append", default=[], help="only this agent id")
    tail.add_argument("--task", action="append", default=[], help="only this task id")
    tail.add_argument("--json", action="store_true", help="the records as JSON lines")
    return parser
