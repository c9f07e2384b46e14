"""`tether sessions list|show ID|rm ID`: the sessions kept for a project, and the picker that
`tether --resume` without an id shows."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TextIO

from tether.cli.terminal_text import terminal_safe
from tether.config.project import project_root
from tether.config.settings import sessions_home
from tether.core.carried import is_tether_text
from tether.protocol import (
    ConfigError,
    ImageBlock,
    Message,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    UrlImageSource,
)
from tether.store import (
    LoadedSession,
    SessionInfo,
    find_session,
    list_sessions,
    load_session,
    remove_session,
)
from tether.teams.records import WORKTREES_DIR

SHOWN_RESULT_CHARS = 300


def main(argv: list[str]) -> int:
    """0: done; 2: no such session or a broken file name."""
    args = _parser().parse_args(argv)
    workspace = project_root(args.cwd or Path.cwd(), user_home=Path.home())
    home = sessions_home()
    skipped: list[str] = []
    try:
        return _run(args, home, workspace, skipped)
    finally:
        for line in skipped:
            print(f"tether: {terminal_safe(line)}", file=sys.stderr)


def _run(args: argparse.Namespace, home: Path, workspace: Path, skipped: list[str]) -> int:
    try:
        if args.command == "list":
            sessions = list_sessions(home, workspace, skipped)
            if args.json:
                print(json.dumps([_info_json(s) for s in sessions], ensure_ascii=False))
            else:
                print_sessions(sessions, workspace, sys.stdout)
        elif args.command == "show":
            loaded = load_session(find_session(home, workspace, args.id, skipped))
            if args.json:
                print_json(loaded, sys.stdout)
            else:
                print_transcript(loaded, sys.stdout)
        else:
            path = find_session(home, workspace, args.id, skipped)
            title = load_session(path).title
            remove_session(path)
            print(f"Removed session {path.stem}" + (f" ({terminal_safe(title)})" if title else ""))
    except ConfigError as e:
        print(f"tether: error: {terminal_safe(str(e))}", file=sys.stderr)
        return 2
    return 0


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="tether sessions", description=__doc__)
    sub = p.add_subparsers(dest="command", required=True)
    listing = sub.add_parser("list", help="this project's sessions, newest first")
    show = sub.add_parser("show", help="print a session's conversation")
    show.add_argument("id", help="a session id or a unique prefix of one")
    rm = sub.add_parser("rm", help="delete a session (and its subagents' transcripts)")
    rm.add_argument("id", help="a session id or a unique prefix of one")
    for command in (listing, show, rm):
        command.add_argument("--cwd", type=Path, help="the project (default: here)")
    for command in (listing, show):
        command.add_argument("--json", action="store_true", help="print JSON")
    return p


def print_sessions(sessions: Sequence[SessionInfo], workspace: Path, out: TextIO) -> None:
    if not sessions:
        print(f"No sessions yet in {workspace}.", file=out)
        return
    now = datetime.now(UTC)
    for n, info in enumerate(sessions, 1):
        fork = f"  (fork of {info.forked_from[:8]})" if info.forked_from else ""
        title = terminal_safe(info.title or "(untitled)")
        where = _elsewhere(info, workspace)
        print(
            f"{n:>3}. {info.session_id}  {_ago(now, info.updated):>8}  "
            f"{info.entries:>5} entries  {title}{fork}{where}",
            file=out,
        )


def _elsewhere(info: SessionInfo, workspace: Path) -> str:
    """Where a session kept with the project's worked, when not in the project itself: a
    task's worktree (a worker's session), said with its task."""
    if info.cwd is None or Path(info.cwd) == workspace:
        return ""
    try:
        inside = Path(info.cwd).relative_to(workspace / WORKTREES_DIR)
    except ValueError:
        return f"  (in {terminal_safe(info.cwd)})"
    task = terminal_safe(inside.as_posix())
    return f"  (task {task}, worktree {terminal_safe(f'{WORKTREES_DIR}/{task}')})"


def pick_session(workspace: Path, out: TextIO = sys.stdout, read: TextIO = sys.stdin) -> str | None:
    """Ask which session to resume (`tether --resume` without an id); None when there is none
    or the user chose nothing."""
    skipped: list[str] = []
    sessions = list_sessions(sessions_home(), workspace, skipped)[:20]
    for line in skipped:
        print(f"tether: {terminal_safe(line)}", file=sys.stderr)
    if not sessions:
        print(f"No sessions to resume in {workspace}.", file=out)
        return None
    print("Sessions in this project, newest first:", file=out)
    print_sessions(sessions, workspace, out)
    while True:
        print("Resume which one? (number or id, Enter to cancel) ", end="", file=out, flush=True)
        answer = read.readline().strip()
        if not answer:
            return None
        if answer.isdigit() and 1 <= int(answer) <= len(sessions):
            return sessions[int(answer) - 1].session_id
        if any(s.session_id.startswith(answer) for s in sessions):
            return answer
        print(f"  no session {answer!r} in the list", file=out)


def print_transcript(loaded: LoadedSession, out: TextIO) -> None:
    from tether.core.resume import restore  # the history as the session would send it

    print(f"session  {loaded.session_id}", file=out)
    if loaded.title:
        print(f"title    {terminal_safe(loaded.title)}", file=out)
    print(f"file     {loaded.path}", file=out)
    if loaded.forked_from:
        print(f"forked   from {loaded.forked_from[0]}", file=out)
    restored = restore(loaded, light=False)
    for warning in restored.damage:
        print(f"warning  {terminal_safe(warning)}", file=out)
    for message in restored.history.messages:
        print(file=out)
        print(terminal_safe(describe_message(message)), file=out)


def describe_message(message: Message) -> str:
    lines: list[str] = []
    for block in message.content:
        if isinstance(block, TextBlock) and message.role == "user" and is_tether_text(block.text):
            # Context tether added for the model (a reminder, a compaction's stand-in): not
            # the user's words, so not shown as a `>` turn; its size says it was there.
            lines.append(f"  [added by tether for the model: {len(block.text):,} characters]")
        elif isinstance(block, TextBlock):
            prefix = "> " if message.role == "user" else ""
            lines.append(prefix + block.text.replace("\n", "\n" + " " * len(prefix)))
        elif isinstance(block, ThinkingBlock):
            lines.append(f"(thinking: {len(block.thinking)} characters)")
        elif isinstance(block, ToolUseBlock):
            lines.append(f"⏺ {block.name}({json.dumps(block.input, ensure_ascii=False)[:200]})")
        elif isinstance(block, ToolResultBlock):
            body = block.content
            if len(body) > SHOWN_RESULT_CHARS:
                body = body[:SHOWN_RESULT_CHARS] + f"… ({len(block.content)} characters)"
            mark = "✗" if block.is_error else "⎿"
            lines.append(f"  {mark} " + body.replace("\n", "\n    "))
            lines.extend(f"    {image_label(image)}" for image in block.images)
        elif isinstance(block, ImageBlock):
            lines.append(("> " if message.role == "user" else "") + image_label(block))
    return "\n".join(lines)


def image_label(image: ImageBlock) -> str:
    """How an image is shown in a listing: its kind and size, not its data."""
    source = image.source
    if isinstance(source, UrlImageSource):
        return f"[image: {source.url}]"
    size = len(source.data) * 3 // 4
    return f"[image: {source.media_type.removeprefix('image/')}, about {size:,} bytes]"


def print_json(loaded: LoadedSession, out: TextIO) -> None:
    from tether.core.resume import restore

    restored = restore(loaded, light=False)
    messages = [
        {
            "role": m.role,
            "content": [
                b.model_dump(mode="json", exclude={"input_error", "raw_input", "input_refused"})
                for b in m.content
            ],
        }
        for m in restored.history.messages
    ]
    body = {
        "session_id": loaded.session_id,
        "title": loaded.title,
        "path": str(loaded.path),
        "forked_from": loaded.forked_from[0] if loaded.forked_from else None,
        "warnings": list(restored.damage),
        "messages": messages,
    }
    print(json.dumps(body, ensure_ascii=False), file=out)


def _info_json(info: SessionInfo) -> dict[str, object]:
    return {
        "session_id": info.session_id,
        "title": info.title,
        "updated": info.updated.isoformat(),
        "entries": info.entries,
        "forked_from": info.forked_from,
        "cwd": info.cwd,
        "path": str(info.path),
    }


def _ago(now: datetime, then: datetime) -> str:
    seconds = max(0, int((now - then).total_seconds()))
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{seconds // size}{unit} ago"
    return "just now"
