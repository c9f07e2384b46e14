"""One call that succeeded as the headway check reads it (`headway.Headway.made`): what is
worked out of its output, and the paths it names with what they hold, each once however many
`Headway`s check the call. After a compaction two do (what was shown since, and the whole
turn): done for each, the output's masks and hashes were the check's whole cost twice
(bench/headway_bench.py)."""

from __future__ import annotations

import hashlib
import json
import os
import posixpath
import re
import shlex
from collections.abc import Callable, Iterator

from tether.core.headway_text import line_keys
from tether.protocol import ToolUseBlock

DIGITS = re.compile(r"[0-9]+")
"""Numbers in a call's strings, left out where a call is new only if asked differently."""

VARYING = re.compile(r"[0-9A-Fa-f]*[0-9][0-9A-Fa-f]*")
"""A number, or a hex run with a digit in it (an id, a hash, a time): masked where what a call
showed is compared."""

CLOCK = re.compile(
    r"(?<![\w:])(?:[0-9]{4}-[0-9]{2}-[0-9]{2}(?:[T ][0-9]{2}:[0-9]{2}(?::[0-9]{2})?"
    r"(?:[.,][0-9]+)?(?:Z|[+-][0-9]{2}:?[0-9]{2})?)?"
    r"|[0-9]{1,2}:[0-9]{2}:[0-9]{2}(?:[.,][0-9]+)?|1[0-9]{9}(?:[0-9]{3}){0,3})(?![\w:])"
)
"""A time of day, a date, or a count of (milli-, micro-, nano)seconds since 1970 (`date`,
`date +%s`, a log's stamps): the clock's figures, new at every call however often it is
asked, are masked where a call asked anew by its numbers is looked at for figures none
showed (`CallLook.numbers`)."""

WORD = re.compile(r"\w+")
"""A word of a question, masked where it comes back in the answer (`CallLook.answer`)."""

_SHELL_WORDS = 64
"""How many words of a Bash command are looked at as paths."""

_REDIRECT = re.compile(r"^[0-9]*[<>|&;()]+")
"""A redirection or an operator written against a word (`>out.txt`, `2>err`, `(cd`)."""

_ALTERNATIVES = 256
"""How many words of a call's input are masked by one pattern (`_alternation`): beyond, each
word of the output is looked up (a Write's content has thousands)."""

_LISTED_LINES = 400
"""How many lines of a search's output are looked at for the files it lists."""

_FILE_WORD = re.compile(r"(?<![\w./-])[\w-]*(?:[./][\w-]+)+(?![\w/-])")
"""A word of an output that may be a file's name (`libunits.a`, `out/x86/unit_3.o`)."""

_OUTPUT_CHARS = 4096
"""How much of an output is looked at for the files it names (a step's report is short)."""

_DELEGATING = frozenset({"Task", "Agent"})
"""Tools whose `prompt` hands work to a subagent: the files it names are named by the call."""

_BEFORE_NAMES = "`'\"([{<"
_AFTER_NAMES = "`'\")]}>,;:!?."
"""What stands around a file's name in a task's words (quotes, a sentence's full stop)."""

_NOT_FILES = ("/dev/", "/proc/", "/sys/")
"""Where a path names no file whose change is headway (`/dev/null` written to, a clock)."""

State = tuple[int, bytes] | None
"""A path's content as compared: its size and a hash (None: nothing that could be read)."""

_LINE = re.compile(r"^ *([0-9]+)\t(.*)$", re.M)
"""A line as Read shows it, with its text."""


class CallLook:
    """A call that succeeded with `content` (`key`: its signature; `cwd`: where the relative
    paths of a Bash command start, None: they are not looked at). Each part is worked out
    when first asked for, then kept."""

    __slots__ = (
        "_input_words",
        "_line_keys",
        "_lines",
        "_masked",
        "_numbers",
        "_paths",
        "_shown",
        "_states",
        "asked",
        "call",
        "content",
        "cwd",
        "key",
    )

    def __init__(self, call: ToolUseBlock, content: str, key: str, cwd: str | None) -> None:
        self.call = call
        self.content = content
        self.key = key
        self.cwd = cwd
        self.asked = DIGITS.sub("#", key)
        """The signature with its numbers left out."""
        self._paths: list[str] | None = None
        self._states: dict[str, State] = {}
        self._masked: bytes | None = None
        self._numbers: tuple[bytes, bytes] | None = None
        self._lines: list[int] | None = None
        self._shown: list[tuple[str, str, str]] = []
        self._input_words: frozenset[str] | None = None
        self._line_keys: list[list[int]] | None = None

    def paths(self) -> list[str]:
        """The paths the call names (`named_paths`)."""
        if self._paths is None:
            # Each once: a file a command changes and then shows (`echo x >> f && cat f`) is
            # not also a file unchanged since it was named, whose lines are new places.
            self._paths = list(dict.fromkeys(named_paths(self.call, self.cwd)))
        return self._paths

    def state(self, path: str, read: Callable[[str], State]) -> State:
        """What `path` holds, as `read` finds it the first time it is asked for."""
        if path not in self._states:
            self._states[path] = read(path)
        return self._states[path]

    def input_words(self) -> frozenset[str]:
        """The words of the call's input: what it shows of them echoes what it was given."""
        if self._input_words is None:
            found = (w for v in _strings(self.call.input) for w in WORD.findall(v))
            self._input_words = frozenset(found)
        return self._input_words

    def line_keys(self) -> list[list[int]]:
        """What the call showed, line by line, as `headway_text.SeenLines` compares it (its
        input words masked): worked out once however many `Headway`s check the call."""
        if self._line_keys is None:
            self._line_keys = line_keys(self.content, self.input_words())
        return self._line_keys

    def pattern(self) -> re.Pattern[str] | None:
        """A Grep's pattern, compiled as Python reads it; None when it is not one Python
        reads alike, or one with groups (whose backtracking could cost more than the call)."""
        pattern = self.call.input.get("pattern")
        if not isinstance(pattern, str) or not pattern or "(" in pattern:
            return None
        insensitive = self.call.input.get("-i") is True
        insensitive = insensitive or self.call.input.get("case_insensitive") is True
        try:
            return re.compile(pattern, re.IGNORECASE if insensitive else 0)
        except (re.error, OverflowError, RecursionError):
            return None

    def listed_files(self, most: int) -> list[str]:
        """The first `most` regular files a search's output lists (a path per line, or before
        `:` its count or a matching line), and the file it searched when it names one."""
        where = self.call.input.get("path")
        base = self.cwd
        if isinstance(where, str) and where.strip():
            root = where.strip()
            base = root if root.startswith("/") else posixpath.join(base or "", root)
        found: dict[str, None] = {}
        if base is not None and os.path.isfile(base):
            found[posixpath.normpath(base)] = None
        for line in self.content.splitlines()[:_LISTED_LINES]:
            if len(found) >= most:
                break
            for candidate in (line, line.split(":", 1)[0], line.rsplit(":", 1)[0]):
                if not candidate or candidate.startswith(_NOT_FILES):
                    continue
                if not candidate.startswith("/"):
                    if base is None:
                        continue
                    start = base if os.path.isdir(base) else posixpath.dirname(base)
                    candidate = posixpath.join(start, candidate)
                path = posixpath.normpath(candidate)
                if path in found or os.path.isfile(path):
                    found[path] = None
                    break
        return list(found)

    def output_files(self, most: int) -> list[str]:
        """The first `most` regular files under the working directory that the output names by
        a word with a dot or a slash (`[17/150] AR libunits.a unit_17.o`), the call's own
        paths aside."""
        if self.cwd is None:
            return []
        found: dict[str, None] = {}
        named = set(self.paths())
        for word in _FILE_WORD.findall(self.content[:_OUTPUT_CHARS]):
            path = posixpath.normpath(posixpath.join(self.cwd, word))
            if path in found or path in named or not path.startswith(self.cwd + "/"):
                continue
            if os.path.isfile(path):
                found[path] = None
                if len(found) >= most:
                    break
        return list(found)

    def masked(self) -> bytes:
        """What the call showed, its numbers and hex runs masked, and the words of its own
        input: what echoes what it was asked is not news (`echo qzkf`, "No matches found for
        'qzkf'", a subagent saying "qzkf is not used": each answers a new random word as the
        last one was answered)."""
        if self._masked is None:
            masker = _alternation(self.input_words(), r"\w", VARYING.pattern)
            if masker is None:  # too many words for one pattern: each word looked up
                asked = self.input_words()
                echoed = WORD.sub(lambda m: "#" if m.group() in asked else m.group(), self.content)
                shown = VARYING.sub("#", echoed)
            else:  # one pass: a word of the input, or a number (either way masked)
                shown = masker.sub("#", self.content)
            self._masked = content_hash(f"{self.call.name}\0{shown}")
        return self._masked

    def numbers(self) -> tuple[bytes, bytes]:
        """The call's input as given, numbers and all; and what it showed, the numbers of its
        own input masked."""
        if self._numbers is None:
            call = self.call
            given = json.dumps(call.input, sort_keys=True, default=str)
            tried = content_hash(f"{call.name}\0{given}")
            numbers = frozenset(DIGITS.findall(json.dumps(call.input, default=str)))
            masker = _alternation(numbers, "[0-9]", None)
            shown = CLOCK.sub("@", self.content)
            if not numbers:
                echoed = shown
            elif masker is None:  # too many numbers for one pattern: each looked up
                echoed = DIGITS.sub(lambda m: "#" if m.group() in numbers else m.group(), shown)
            else:
                echoed = masker.sub("#", shown)
            self._numbers = (tried, content_hash(f"{call.name}\0{echoed}"))
        return self._numbers

    def lines(self) -> list[int]:
        """Per path it names, each numbered line Read showed, by path, number and text
        (numbers masked)."""
        if self._lines is None:
            found: list[tuple[str, str]] = _LINE.findall(self.content)
            self._shown = [(path, number, text) for path in self.paths() for number, text in found]
            self._lines = [hash((p, n, VARYING.sub("#", text))) for p, n, text in self._shown]
        return self._lines

    def line_place(self, k: int) -> int:
        """The `k`th of `lines()` by its path and number alone (what it held aside)."""
        path, number, _text = self._shown[k]
        return hash((path, number, None))


def _alternation(words: frozenset[str], part: str, also: str | None) -> re.Pattern[str] | None:
    """A pattern matching any of `words` whole (not inside a run of `part`), or `also`; None
    when there are too many words for one pattern to be cheaper than a look-up per match."""
    if len(words) > _ALTERNATIVES:
        return None
    # The longest first, so that a word is not matched by one of its own beginnings.
    spelled = "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))
    branches = [f"(?<!{part})(?:{spelled})(?!{part})"] if words else []
    if also is not None:
        branches.append(also)
    return re.compile("|".join(branches)) if branches else None


def content_hash(text: str | bytes) -> bytes:
    data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    return hashlib.blake2b(data, digest_size=16).digest()


def _strings(value: object) -> Iterator[str]:
    """The strings anywhere in a call's input."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():  # type: ignore[misc]
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:  # type: ignore[misc]
            yield from _strings(item)


def named_paths(call: ToolUseBlock, cwd: str | None) -> Iterator[str]:
    """The paths a call names, made absolute and lexically normal: a tool's `*path` and `url`
    strings, and the words of a Bash command or a subagent's task that name an existing file
    (from `cwd`)."""
    for key, value in call.input.items():
        if not isinstance(value, str) or not value.strip():
            continue
        if key == "url":
            yield value.strip()
        elif key.endswith("path") and value.strip().startswith("/"):
            yield from _file(posixpath.normpath(value.strip()))
        elif key.endswith("path") and cwd is not None:
            yield from _file(posixpath.normpath(posixpath.join(cwd, value.strip())))
        elif key == "prompt" and call.name in _DELEGATING and cwd is not None:
            yield from _prompt_files(value, cwd)
        elif key == "command" and call.name == "Bash" and cwd is not None:
            for word in _words(value)[:_SHELL_WORDS]:
                word = _REDIRECT.sub("", word).rstrip("|&;()")
                if not word or word.startswith("-") or any(c in word for c in "$*?`{"):
                    continue
                path = posixpath.normpath(posixpath.join(cwd, word))
                if os.path.lexists(path):
                    yield from _file(path)


def _prompt_files(prompt: str, cwd: str) -> Iterator[str]:
    """The existing files a subagent's task names (`review mod17.py`): the work asked of it,
    which it may do without a call the lead sees (a review finding nothing)."""
    named = (w.lstrip(_BEFORE_NAMES).rstrip(_AFTER_NAMES) for w in prompt.split())
    for word in [w for w in named if "." in w or "/" in w][:_SHELL_WORDS]:
        path = posixpath.normpath(posixpath.join(cwd, word))
        if os.path.isfile(path):
            yield from _file(path)


def _file(path: str) -> Iterator[str]:
    if not path.startswith(_NOT_FILES):
        yield path


def _words(command: str) -> list[str]:
    try:
        return shlex.split(command, comments=True)
    except ValueError:  # unbalanced quotes
        return command.split()
