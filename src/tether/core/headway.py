"""Whether a call that succeeded is headway: what the repeat guard's idle bound counts
(`repeated_calls`, whose docstring says what is and what is not)."""

from __future__ import annotations

import hashlib
import json
import os
import posixpath
import re
import shlex
import stat
from collections.abc import Iterator

from tether.protocol import ToolUseBlock

NUMBERED_AT = 100
"""How many calls the same but for their numbers (`grep E1007`, `git show HEAD~7`, `sed -n
'701,800p'`) are headway in a turn, each showing what the others did not beyond the numbers
asked: a hunt through a hundred codes, commits or pages stays within it; a counter echoed
beside a clock does not go on for ever."""

REWRITTEN_AT = 3
"""How many times a file that one and the same command rewrites is headway in a turn (a
stamp, a log the command tees, the output of `date > now.txt`: the loop's own output)."""

HASHED_BYTES = 16 << 20
"""Files up to this size are compared by content; larger ones by size and modification
time (hashing them after every call would cost more than the call)."""

_WRITES = frozenset({"Write", "Edit", "MultiEdit", "NotebookEdit", "Revert"})
"""Tools whose success changed the workspace."""

_DELEGATES = frozenset({"Task", "Agent"})
"""Tools that hand work to a subagent, which has a guard of its own."""

_SEARCHES = frozenset({"Grep", "Glob", "WebSearch", "ToolSearch"})
"""Tools that answer a question: one not asked before (numbers aside) is headway, as a
subagent's task is (forty searches for forty names are work, not a loop)."""

_PAGED = frozenset({"Read"})
"""Tools that show a file a part at a time: lines not shown before are headway."""

_STREAMED = frozenset({"BashOutput"})
"""Tools that show what a background command printed since they were last asked: the same
call, asked again, shows new lines while the command works (counted as `NUMBERED_AT`)."""

_BOOKKEEPING = frozenset({"TodoWrite"})
"""Tools that show what they were given (a plan): new for their numbers, they show nothing."""

_NUMBERED_LINE = re.compile(r"^ *([0-9]+)\t", re.M)
"""A line as Read shows it (`cat -n`: its number, a tab)."""

_DIGITS = re.compile(r"[0-9]+")
"""Numbers in a call's strings, left out where a call is new only if asked differently."""

_VARYING = re.compile(r"[0-9A-Fa-f]*[0-9][0-9A-Fa-f]*")
"""A number, or a hex run with a digit in it (an id, a hash, a time): masked where what a call
showed is compared."""

_SHELL_WORDS = 64
"""How many words of a Bash command are looked at as paths."""

_REDIRECT = re.compile(r"^[0-9]*[<>|&;()]+")
"""A redirection or an operator written against a word (`>out.txt`, `2>err`, `(cd`)."""

_NOT_FILES = ("/dev/", "/proc/", "/sys/")
"""Where a path names no file whose change is headway (`/dev/null` written to, a clock)."""

_State = tuple[int, bytes] | None
"""A path's content as compared: its size and a hash (None: nothing that could be read)."""


class Headway:
    """What a turn's calls that succeeded did and showed (since its last compaction)."""

    __slots__ = (
        "_asked",
        "_changes",
        "_lines",
        "_named",
        "_numbered",
        "_rewritten",
        "_shown",
        "_shown_exactly",
        "_tried",
    )

    def __init__(self) -> None:
        self._named: dict[str, _State] = {}
        """The paths the turn's calls named, with their content when last named."""
        self._rewritten: dict[tuple[str, str], int] = {}
        """How often a path was found changed after the same command (signature)."""
        self._asked: set[str] = set()
        """The signatures, numbers left out, of the subagent, MCP and search calls."""
        self._shown: set[bytes] = set()
        """What the calls showed, numbers masked."""
        self._shown_exactly: set[bytes] = set()
        """What the calls showed, the numbers of their own input masked."""
        self._tried: set[bytes] = set()
        """The calls' inputs as given, numbers and all."""
        self._numbered: dict[str, int] = {}
        """Per signature (numbers left out), how many of its calls were headway for their
        numbers alone."""
        self._lines: dict[tuple[str, _State], list[tuple[int, int]]] = {}
        """Per file as it was, the lines shown of it (first and last, merged)."""
        self._changes = 0
        """How many changes of files the session made (its subagents' too), when last seen."""

    def forget_seen(self) -> None:
        """A compaction took what was shown out of the conversation: shown again, it is new."""
        self._named.clear()
        self._lines.clear()
        self._shown.clear()
        self._shown_exactly.clear()

    def files_changed(self, changes: int) -> bool:
        """Whether the session's files changed since the last reply: `changes` is how many
        changes it made so far (a subagent's Write and Edit as much as the model's own)."""
        changed = changes > self._changes
        self._changes = max(changes, self._changes)
        return changed

    def made(self, call: ToolUseBlock, content: str, key: str, cwd: str | None) -> bool:
        """Whether `call`, which succeeded with `content`, is headway (`key`: its signature);
        the paths it names and what it showed are noted either way."""
        headway = call.name in _WRITES
        opaque = call.name in _DELEGATES or call.name.startswith("mcp__")
        if opaque or call.name in _SEARCHES:
            # What they do is not seen: a task or a query not asked before (a counter in it
            # aside) is headway; the same again is not, for what it answers alone.
            asked = _DIGITS.sub("#", key)
            headway = headway or asked not in self._asked
            self._asked.add(asked)
        if call.name in _PAGED:
            headway = self._shows_lines(call, content, cwd) or headway
        if self._names_new(call, key, cwd):
            headway = True
        if call.input.get("run_in_background") is True:
            return headway  # it shows its id alone: what the command does shows later
        masked = _hash(_VARYING.sub("#", f"{call.name}\0{content}"))
        if masked not in self._shown:
            self._shown.add(masked)
            headway = True
        numbered = not (opaque or call.name in _PAGED or call.name in _BOOKKEEPING)
        if numbered and self._new_for_numbers(call, content, key):
            headway = True
        return headway

    def _new_for_numbers(self, call: ToolUseBlock, content: str, key: str) -> bool:
        """A call asked anew, by its numbers alone (`grep E1007`, `HEAD~7`), or a background
        command's output asked for again, that showed what none did beyond the numbers it was
        given (an echoed counter is not new): headway up to `NUMBERED_AT` times per signature."""
        tried = _hash(f"{call.name}\0{json.dumps(call.input, sort_keys=True, default=str)}")
        if tried in self._tried and call.name not in _STREAMED:
            return False
        self._tried.add(tried)
        given = set(_DIGITS.findall(json.dumps(call.input, default=str)))
        echoed = _DIGITS.sub(lambda m: "#" if m.group() in given else m.group(), content)
        shown = _hash(f"{call.name}\0{echoed}")
        if shown in self._shown_exactly:
            return False
        self._shown_exactly.add(shown)
        asked = _DIGITS.sub("#", key)
        self._numbered[asked] = self._numbered.get(asked, 0) + 1
        return self._numbered[asked] <= NUMBERED_AT

    def _shows_lines(self, call: ToolUseBlock, content: str, cwd: str | None) -> bool:
        """Whether a Read showed lines of its file not shown before in the turn (of the file
        as it is now: an edit shows it anew). What shows no numbered lines (a picture, a
        notebook) is compared whole, as any call's output is."""
        numbers = [int(n) for n in _NUMBERED_LINE.findall(content)]
        if not numbers:
            return False
        new = False
        for path in _paths(call, cwd):
            shown = self._lines.setdefault((path, _state(path)), [])
            new = _add_range(shown, min(numbers), max(numbers)) or new
        return new

    def _names_new(self, call: ToolUseBlock, key: str, cwd: str | None) -> bool:
        """Whether a call named a path not named before in the turn, or one whose content
        changed since (a `sed -i`, a build's output); a file that the same command changes
        every time is its own output, headway only `REWRITTEN_AT` times."""
        new = False
        for path in _paths(call, cwd):
            state = _state(path)
            if path not in self._named:
                new = True
            elif state is not None and self._named[path] != state:
                count = self._rewritten.get((path, key), 0) + 1
                self._rewritten[(path, key)] = count
                new = new or count <= REWRITTEN_AT
            self._named[path] = state
        return new


def _add_range(shown: list[tuple[int, int]], first: int, last: int) -> bool:
    """Add lines `first`..`last` to `shown`; whether any of them was not in it."""
    new = not any(a <= first and last <= b for a, b in shown)
    if new:
        merged = [(first, last)]
        for a, b in shown:
            if b + 1 < merged[0][0] or merged[0][1] + 1 < a:
                merged.append((a, b))
            else:
                merged[0] = (min(a, merged[0][0]), max(b, merged[0][1]))
        shown[:] = merged
    return new


def _hash(text: str | bytes) -> bytes:
    data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    return hashlib.blake2b(data, digest_size=16).digest()


def _state(path: str) -> _State:
    """A path's content as compared (a directory's: its names); None when it cannot be read."""
    try:
        st = os.stat(path)
        if stat.S_ISDIR(st.st_mode):
            return (-1, _hash("\0".join(sorted(os.listdir(path)))))
        if not stat.S_ISREG(st.st_mode):
            return None
        if st.st_size > HASHED_BYTES:
            return (st.st_size, st.st_mtime_ns.to_bytes(16, "big", signed=True))
        with open(path, "rb") as f:
            return (st.st_size, hashlib.file_digest(f, "blake2b").digest()[:16])
    except (OSError, ValueError):
        return None


def _paths(call: ToolUseBlock, cwd: str | None) -> Iterator[str]:
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
            yield from _file(posixpath.normpath(posixpath.join(cwd, value.strip())))
        elif key == "command" and call.name == "Bash" and cwd is not None:
            for word in _words(value)[:_SHELL_WORDS]:
                word = _REDIRECT.sub("", word).rstrip("|&;()")
                if not word or word.startswith("-") or any(c in word for c in "$*?`{"):
                    continue
                path = posixpath.normpath(posixpath.join(cwd, word))
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
