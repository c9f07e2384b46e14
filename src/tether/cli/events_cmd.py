"""`tether events tail [-n N] [-f] [--session ID] [--kind K]... [--agent A] [--task T] [--json]`:
the event log every session writes under `$TETHER_HOME` (`tether.observe`), filtered."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence

from tether.cli.session_refs import SessionRefError, check_ref, resolve_session
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
    try:
        for ref in args.session:
            check_ref(ref)
    except SessionRefError as e:
        print(f"tether events: {e}", file=sys.stderr)
        return 2
    home = tether_home()
    sessions = _Sessions(args.session)
    wanted = _filter(sessions, args.kind, args.agent, args.task)
    show: Callable[[EventRecord], str] = EventRecord.to_json if args.json else line
    reader = LogReader(home)
    try:
        records = last_records(home, args.lines, wanted, reader)
        try:
            sessions.resolve()  # from here on, each reference is the one session it named
        except SessionRefError as e:
            print(f"tether events: {e}", file=sys.stderr)
            return 2
        records = [r for r in records if sessions.wanted(r.session_id)]
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


class _Sessions:
    """The `--session` references: while the log is first read, the ids each one starts
    (`seen`); then each resolved to its one session (`tether.cli.session_refs`, as `tether
    cost` does). A reference that starts no id yet (`-f` for a session to come) stays a
    start."""

    def __init__(self, refs: Sequence[str]) -> None:
        self.refs = tuple(refs)
        self.seen: dict[str, set[str]] = {ref: set() for ref in self.refs}
        self._ids: set[str] = set()
        self._starts: tuple[str, ...] = self.refs

    def wanted(self, session_id: str) -> bool:
        if not self.refs:
            return True
        if session_id in self._ids:
            return True
        for ref in self._starts:
            if session_id.startswith(ref):
                self.seen[ref].add(session_id)
                return True
        return False

    def resolve(self) -> None:
        """`SessionRefError` when a reference starts several sessions' ids in the log."""
        starts: list[str] = []
        for ref in self.refs:
            one = resolve_session(ref, self.seen[ref])
            if one is None:
                starts.append(ref)
            else:
                self._ids.add(one)
        self._starts = tuple(starts)


def _filter(
    sessions: _Sessions, kinds: Sequence[str], agents: Sequence[str], tasks: Sequence[str]
) -> Wanted:
    kind_set, agent_set, task_set = set(kinds), set(agents), set(tasks)

    def wanted(record: EventRecord) -> bool:
        return (
            (not kind_set or record.kind in kind_set)
            and (not agent_set or record.agent_id in agent_set)
            and (not task_set or record.task_id in task_set)
            and sessions.wanted(record.session_id)
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
