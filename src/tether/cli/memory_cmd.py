"""`tether memory list|search|rm`: the memories the sessions of this project saved."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from tether.cli.memory_setup import memory_path, open_store
from tether.cli.terminal_text import terminal_safe
from tether.config.settings import tether_home
from tether.tools.memory_index import saved_minute


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="tether memory",
        description="The memories sessions of this project saved (MemorySave), searched by "
        "meaning and by words.",
    )
    parser.add_argument("--cwd", type=Path, help="the project (default: the current directory)")
    verbs = parser.add_subparsers(dest="verb", required=True)
    listing = verbs.add_parser("list", help="every memory, the newest first")
    listing.add_argument("--json", action="store_true")
    search = verbs.add_parser("search", help="the memories that match a query")
    search.add_argument("query")
    search.add_argument("--limit", type=int, default=10)
    search.add_argument("--json", action="store_true")
    remove = verbs.add_parser("rm", help="remove memories by id")
    remove.add_argument("ids", type=int, nargs="+")
    args = parser.parse_args(argv)
    from tether.memory.store import MemoryFileError

    project = (args.cwd or Path.cwd()).resolve()
    home = tether_home()
    path = memory_path(home, project)
    if not path.exists():
        if args.verb == "rm":
            print(f"tether memory: no memory with id {args.ids[0]}", file=sys.stderr)
            return 1
        print("[]" if args.json else "no memories saved for this project")
        return 0
    try:
        # A search the user asks for tries a remembered-down endpoint again (and says so to
        # the sessions, if it answers); listing and removing never embed.
        store = open_store(path, os.environ, home=home, patient=args.verb == "search")
        try:
            return _run(args, store)
        finally:
            store.close()
    except MemoryFileError as e:
        print(f"tether memory: {terminal_safe(str(e))}", file=sys.stderr)
        return 1


def _run(args: argparse.Namespace, store: object) -> int:
    from tether.memory.store import Memory, MemoryStore

    assert isinstance(store, MemoryStore)
    if args.verb == "rm":  # neither rm nor list needs an embedding
        wanted: list[int] = args.ids
        gone = store.remove(wanted)
        for memory_id in gone:
            print(f"removed memory {memory_id}")
        missing = [i for i in wanted if i not in gone]
        for memory_id in missing:
            print(f"tether memory: no memory with id {memory_id}", file=sys.stderr)
        return 1 if missing else 0
    if args.verb == "list":
        found: list[tuple[Memory, str | None]] = [(m, None) for m in store.list()]
    else:
        ranking = store.search(args.query, args.limit)
        if ranking.words_only:
            print(
                f"tether memory: searching by words only: {terminal_safe(ranking.words_only)}",
                file=sys.stderr,
            )
        found = [(f.memory, f.by) for f in ranking]
    if args.json:
        rows = [
            {"id": m.id, "text": m.text, "tags": list(m.tags), "created_at": m.created_at}
            | ({"matched_by": by} if by else {})
            for m, by in found
        ]
        print(json.dumps(rows, indent=2))
        return 0
    if not found:
        print("no memories saved for this project" if args.verb == "list" else "no match")
    for memory, by in found:
        tags = f" [{', '.join(memory.tags)}]" if memory.tags else ""
        how = f" ({by})" if by else ""
        saved = saved_minute(
            memory.created_at
        )  # to the minute: a correction is often saved the same day
        print(f"{memory.id:>5}  {saved}{tags}{how}  {terminal_safe(memory.text)}")
    return 0
