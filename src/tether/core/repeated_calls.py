"""A model that makes no progress, call after call: told, then stopped.

A model can get stuck answering an error with the very call that caused it (a denied command
asked again, an Edit whose `old_string` is not in the file, a path that does not exist), and
nothing but the turn limit ends that, which `-p` has none of by default: the turn would run,
and cost, for ever. Claude Code has no guard of its own here (its turn limit is the only
bound); Gemini CLI stops a request after 5 identical calls in a row. Counting only replies
that repeat the previous one exactly was stepped around by any small change (two failing
calls in turn, `./` in a path, a changing `offset`, `false # try N`, spaces in `old_string`,
a call that works beside the failing one), so two measures are kept over a turn's replies:

- the same call failing the same way: a call's *signature* is its tool and its input
  normalized (paths resolved lexically, shell comments and runs of blanks dropped, numbers
  left out), and a failure is counted with its error, normalized the same way (the input's
  own words in it as normalized, blanks collapsed): a signature that failed with the same
  error `NOTE_AT` times in the last `WINDOW` replies is told, and at `STOP_AT` the turn ends,
  whatever came between. A failing call whose error changes (a test run with one failure
  fewer after each fix, a build after an edit) is work going on, not a repeat;
- no progress at all: a reply with a failing call makes progress when one of its calls
  succeeds with an outcome (signature and result) not seen before in the turn; after `NOTE_AT`
  such replies in a row without any the model is told, and at `STUCK_STOP_AT` the turn ends.
  A reply whose calls all succeed is never counted: reading a file again after a compaction
  took it out of the conversation is work, not a loop.

The turn ends with an error that says why (the session is kept: the next prompt goes on). A
model polling for what a background command or subagent of the session will produce (`test -f
ready`, BashOutput with nothing new) is not cut short while one runs: it is told to end its
reply instead (the end of the background work wakes it, in `-p` too), and only stopped at
`WAITING_STOP_AT`, a bound that no plausible wait reaches.

Neither measure bounds a loop whose every reply holds something unseen: a call that always
gives a new output (`echo $RANDOM`, `date +%N`, a TodoWrite with a counter) beside a failing
call varied by a counter in a string, or the same failing call every third reply. So a third
measure counts *headway*, which the model could act on, not merely output it has not seen: a
reply makes headway when one of its calls succeeds and changes the workspace (Write, Edit,
NotebookEdit, Revert), hands a subagent or an MCP tool, whose work is not seen, or a search
tool a task or query not asked before in the turn (numbers in it aside), shows a part of a file
(Read's offset and limit) not shown before, shows what no call of the turn showed (its
numbers and hex ids masked: a log paged with `sed -n`, another commit, a search for another
name; not a clock, a counter or a random number), or names a path (a tool's `*path` or `url`,
an existing file in a Bash command) not named before in the turn (since its last compaction:
what was read before is gone) or changed since it was (a Bash `sed -i`, a build's output). From
`IDLE_NOTE_AT` replies in a row without headway the model is told, and at `IDLE_STOP_AT` the
turn ends: the bound on every loop above, whatever it varies, and far from legitimate loops
(each test or build rerun follows an edit; exploring reads new files). A loop that writes new
content, names a new existing file or URL, or asks a subagent, an MCP tool or a search something
new in words every reply is work as far as the guard can tell, bounded only by `--max-turns` and
`--max-budget-usd`.
"""

from __future__ import annotations

import hashlib
import json
import os
import posixpath
import re
import shlex
from collections import deque
from collections.abc import Iterator, Sequence
from pathlib import Path

from tether.protocol import HarnessError, ToolResultBlock, ToolUseBlock

NOTE_AT = 3
"""From this many failures of one call (or replies in a row without progress), each reply's
results say so."""

STOP_AT = 8
"""At this many failures of one call in the last `WINDOW` replies, the turn ends."""

WINDOW = 20
"""How many of the latest replies a call's failures are counted over."""

STUCK_STOP_AT = 10
"""At this many replies in a row without progress, the turn ends (`HarnessError`)."""

IDLE_NOTE_AT = 20
"""From this many replies in a row without headway, each reply's results say so."""

IDLE_STOP_AT = 30
"""At this many replies in a row without headway, the turn ends (`HarnessError`)."""

WAITING_STOP_AT = 40
"""The bound for every count while background work of the session runs."""

_WRITES = frozenset({"Write", "Edit", "MultiEdit", "NotebookEdit", "Revert"})
"""Tools whose success changed the workspace."""

_DELEGATES = frozenset({"Task", "Agent"})
"""Tools that hand work to a subagent, which has a guard of its own."""

_SEARCHES = frozenset({"Grep", "Glob", "WebSearch", "ToolSearch"})
"""Tools that answer a question: one not asked before (numbers aside) is headway, as a
subagent's task is (forty searches for forty names are work, not a loop)."""

_PAGED = frozenset({"Read"})
"""Tools that show a file a part at a time: a part not shown before is headway (a long log
paged through a hundred lines at a time). Past the end they fail, so a file bounds it."""

_DIGITS = re.compile(r"[0-9]+")
"""Numbers in a call's strings, left out where a call is new only if asked differently."""

_VARYING = re.compile(r"[0-9A-Fa-f]*[0-9][0-9A-Fa-f]*")
"""A number, or a hex run with a digit in it (an id, a hash, a time): masked where what a call
showed is compared (`_shows_new`)."""

_SHELL_WORDS = 64
"""How many words of a Bash command are looked at as paths."""

_REDIRECT = re.compile(r"^[0-9]*[<>|&;()]+")
"""A redirection or an operator written against a word (`>out.txt`, `2>err`, `(cd`)."""

_NOT_FILES = ("/dev/", "/proc/", "/sys/")
"""Where a path names no file whose change is headway (`/dev/null` written to, a clock)."""

_DEPTH = 16
"""Input nested deeper than this is cut in a signature (it stays whole in the call)."""


class RepeatedFailures:
    """The counts, over one turn's replies, of calls failing again and replies going nowhere."""

    __slots__ = (
        "_asked",
        "_compactions",
        "_failed",
        "_idle",
        "_named",
        "_parts",
        "_seen",
        "_shown",
        "_stuck",
    )

    def __init__(self) -> None:
        self._failed: deque[frozenset[str]] = deque(maxlen=WINDOW)
        """Each of the latest replies' failing signatures."""
        self._seen: set[bytes] = set()
        """The outcomes (signature and result) of the turn's calls that succeeded."""
        self._named: dict[str, tuple[int, int] | None] = {}
        """The paths the turn's calls that succeeded named, with their modification time and
        size when last named (None: not a file that could be looked at)."""
        self._asked: set[str] = set()
        """The signatures, numbers left out, of the turn's subagent, MCP and search calls
        that succeeded."""
        self._shown: set[bytes] = set()
        """What the turn's calls that succeeded showed, numbers masked (see `_shows_new`)."""
        self._parts: set[tuple[str, str]] = set()
        """The parts of files shown (path, and the range asked) since the last compaction."""
        self._compactions = 0
        self._stuck = 0
        self._idle = 0

    def saw(
        self,
        calls: Sequence[ToolUseBlock],
        results: Sequence[ToolResultBlock],
        *,
        waiting_on: Sequence[str] = (),
        delegated: bool = False,
        cwd: Path | None = None,
        compactions: int = 0,
    ) -> str | None:
        """Count one reply's calls with their results: a reminder for the model once it
        repeats itself, None otherwise; `HarnessError` at a bound. `waiting_on`: the
        session's background commands and subagents still running (and other work it waits
        on), by id; `delegated`: work handed to others (teammates) is under way, which counts
        as headway while it lasts (a lead checking on its team until it reports is bounded by
        that work, however long it takes); `cwd`: where
        relative paths in a Bash command start (None: they are not looked at); `compactions`:
        how many the conversation has had (a file read before one is new again after it)."""
        if compactions != self._compactions:
            self._compactions = compactions
            self._named.clear()
            self._parts.clear()
            self._shown.clear()
        by_id = {result.tool_use_id: result for result in results}
        failing: set[str] = set()
        progress = headway = False
        for call in calls:
            result = by_id.get(call.id)
            if result is None:
                continue
            key = signature(call)
            if result.is_error:
                failing.add(f"{key}\0{_error_text(call, result.content)}")
                continue
            outcome = hashlib.blake2b(
                f"{key}\0{result.content}".encode("utf-8", "surrogatepass"), digest_size=16
            ).digest()
            if outcome not in self._seen:
                self._seen.add(outcome)
                progress = True
            if self._headway(call, cwd) or self._shows_new(call, result.content):
                headway = True
        self._failed.append(frozenset(failing))
        self._stuck = 0 if progress or not failing else self._stuck + 1
        self._idle = 0 if headway or delegated else self._idle + 1
        repeats = max((self._failures(key) for key in failing), default=0)
        stop_at, stuck_at, idle_at = (
            (WAITING_STOP_AT,) * 3 if waiting_on else (STOP_AT, STUCK_STOP_AT, IDLE_STOP_AT)
        )
        if repeats >= stop_at:
            raise HarnessError(
                f"stopped: the model made the same failing call {repeats} times in its last "
                f"{len(self._failed)} replies ({_named(calls, failing)}); the session is kept: "
                "say what to do differently and go on"
            )
        if self._stuck >= stuck_at:
            raise HarnessError(
                f"stopped: the model made no progress in {self._stuck} replies in a row (each "
                f"call failed or gave what it had given before: {_named(calls, set())}); the "
                "session is kept: say what to do differently and go on"
            )
        if self._idle >= idle_at:
            raise HarnessError(
                f"stopped: the model changed no file and looked at nothing new in {self._idle} "
                f"replies in a row ({_named(calls, set())}); the session is kept: say what to "
                "do differently and go on"
            )
        counts = (repeats, self._stuck, self._idle)
        return _reminder(calls, failing, counts, (stop_at, stuck_at, idle_at), waiting_on)

    def _failures(self, key: str) -> int:
        return sum(1 for reply in self._failed if key in reply)

    def _shows_new(self, call: ToolUseBlock, content: str) -> bool:
        """Whether a call that succeeded showed what no call of the turn showed before, its
        numbers (and hex runs with them) masked: a log paged with `sed -n`, a search for
        another name, another commit shown; not a clock, a counter or a random number."""
        shown = _masked(f"{call.name}\0{content}")
        if shown in self._shown:
            return False
        self._shown.add(shown)
        return True

    def _headway(self, call: ToolUseBlock, cwd: Path | None) -> bool:
        """Whether a call that succeeded is headway (the module's docstring); the paths it
        names are noted either way."""
        headway = call.name in _WRITES
        if call.name in _PAGED:
            part = json.dumps([call.input.get(k) for k in ("offset", "limit")], default=str)
            for path in _paths(call, cwd):
                if (path, part) not in self._parts:
                    self._parts.add((path, part))
                    headway = True
        if call.name in _DELEGATES or call.name in _SEARCHES or call.name.startswith("mcp__"):
            # What they do is not seen: a task or a query not asked before (a counter in it
            # aside) is headway; the same again, whatever it answers, is not.
            asked = _DIGITS.sub("#", signature(call))
            headway = asked not in self._asked
            self._asked.add(asked)
        for path in _paths(call, cwd):
            try:
                stat = os.stat(path)
                state: tuple[int, int] | None = (stat.st_mtime_ns, stat.st_size)
            except (OSError, ValueError):
                state = None
            if path not in self._named or (state is not None and self._named[path] != state):
                headway = True
            self._named[path] = state
        return headway


def _masked(text: str) -> bytes:
    return hashlib.blake2b(
        _VARYING.sub("#", text).encode("utf-8", "surrogatepass"), digest_size=16
    ).digest()


def _paths(call: ToolUseBlock, cwd: Path | None) -> Iterator[str]:
    """The paths a call names, made absolute and lexically normal: a tool's `*path` and `url`
    strings, and the words of a Bash command that name an existing file (from `cwd`)."""
    for key, value in call.input.items():
        if not isinstance(value, str) or not value.strip():
            continue
        if key == "url":
            yield value.strip()
        elif key.endswith("path") and value.strip().startswith("/"):
            yield from _file(posixpath.normpath(value.strip()))
        elif key.endswith("path") and cwd is not None:
            yield from _file(posixpath.normpath(posixpath.join(str(cwd), value.strip())))
        elif key == "command" and call.name == "Bash" and cwd is not None:
            for word in _words(value)[:_SHELL_WORDS]:
                word = _REDIRECT.sub("", word).rstrip("|&;()")
                if not word or word.startswith("-") or any(c in word for c in "$*?`{"):
                    continue
                path = posixpath.normpath(posixpath.join(str(cwd), word))
                if os.path.lexists(path):
                    yield from _file(path)


def _file(path: str) -> Iterator[str]:
    if not path.startswith(_NOT_FILES):
        yield path


def _words(command: str) -> list[str]:
    try:
        return shlex.split(command, comments=True)
    except ValueError:  # unbalanced quotes
        return command.split()


def _reminder(
    calls: Sequence[ToolUseBlock],
    failing: set[str],
    counts: tuple[int, int, int],
    bounds: tuple[int, int, int],
    waiting_on: Sequence[str],
) -> str | None:
    repeats, stuck, idle = counts
    stop_at, stuck_at, idle_at = bounds
    if waiting_on and (max(repeats, stuck) >= NOTE_AT or idle >= IDLE_NOTE_AT):
        ids = ", ".join(waiting_on[:3]) + (" and more" if len(waiting_on) > 3 else "")
        return (
            f"Background work is still running ({ids}). Rather than polling for what it will "
            "produce, end your reply now: you will be told when it ends, and can go on then."
        )
    said: list[tuple[int, str]] = []  # the reminder of the nearest bound first
    if repeats >= NOTE_AT:
        said.append(
            (
                stop_at - repeats,
                f"The same call ({_named(calls, failing)}) has now failed {repeats} times, with "
                "the same input give or take small changes, and it will fail again. Do not "
                "repeat it: read the error, then change the approach, or stop and say what is in "
                f"the way. At {stop_at} the turn is ended.",
            )
        )
    if stuck >= NOTE_AT:
        said.append(
            (
                stuck_at - stuck,
                f"Your last {stuck} replies made no progress: every call failed, or gave what it "
                "had given before. Do not try variations of the same thing: read the errors, "
                "then change the approach, or stop and say what is in the way. "
                f"At {stuck_at} such replies in a row the turn is ended.",
            )
        )
    if idle >= IDLE_NOTE_AT:
        said.append(
            (  # said first: whatever the other counts do, this one ends the turn
                -1,
                f"Your last {idle} replies changed no file and looked at nothing new (no file "
                "read, written or edited for the first time). If the task is done, say so and "
                "end your reply; if something is in the way, stop and say what. Do not go on "
                f"repeating yourself: at {idle_at} such replies in a row the turn is ended.",
            )
        )
    return min(said)[1] if said else None


def signature(call: ToolUseBlock) -> str:
    """A call as the guard compares it: its tool and its input, normalized so that small
    changes that cannot change the outcome (a path's `./`, a shell comment, blanks, a number
    such as an offset) give the same signature."""
    return call.name + "\0" + json.dumps(_normal(call.input, "", 0), ensure_ascii=True)


def _normal(value: object, key: str, depth: int) -> object:
    if depth > _DEPTH:
        return "..."
    if isinstance(value, dict):
        items = sorted((str(k), v) for k, v in value.items() if not _numeric(v))  # type: ignore[misc]
        return {k: _normal(v, k, depth + 1) for k, v in items}
    if isinstance(value, list):
        return [_normal(v, key, depth + 1) for v in value if not _numeric(v)]  # type: ignore[misc]
    if isinstance(value, str):
        return _text(value, key)
    return value


def _numeric(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _text(value: str, key: str) -> str:
    if key == "command":
        try:
            return " ".join(shlex.split(value, comments=True))
        except ValueError:  # unbalanced quotes: blanks only
            return " ".join(value.split())
    if key.endswith("path") and value.strip():
        return posixpath.normpath(value.strip())
    return " ".join(value.split())


def _error_text(call: ToolUseBlock, said: str) -> str:
    """A failing call's error as the guard compares it: the input's strings as given replaced
    by their normalized form (an error that quotes `./x` or `x` is the same), blanks collapsed."""
    given = [(str(k), v) for k, v in call.input.items() if isinstance(v, str) and v.strip()]
    for key, value in sorted(given, key=lambda kv: -len(kv[1])):
        said = said.replace(value, _text(value, key))
    return " ".join(said.split())


def _named(calls: Sequence[ToolUseBlock], failing: set[str]) -> str:
    tools = {key.split("\0", 1)[0] for key in failing}
    names = sorted({c.name for c in calls if not failing or c.name in tools})
    return ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
