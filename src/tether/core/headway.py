"""Whether a call that succeeded is headway: what the repeat guard's idle bound counts
(`repeated_calls`, whose docstring says what is and what is not)."""

from __future__ import annotations

import hashlib
import os
import stat
import time
from collections.abc import Mapping
from pathlib import Path

from tether.core.headway_file_lines import FileLines
from tether.core.headway_look import CallLook, State, content_hash

NUMBERED_AT = 100
"""How many calls in a turn are headway only for what they vary: asked anew by their numbers
alone (`grep E1007`, `git show HEAD~7`, a background command's output polled) and showing what
none did beyond the numbers asked; or the same call again showing other text (a random word of
any length, punctuation, blanks, separators); or a question new in words whose answer repeats
one given before (a search for a word that finds nothing, a subagent answering as before). A
hunt through a hundred codes, commits or misses stays within it; a loop varying any of these
does not go on for ever. The allowance is the turn's, whatever the tool: a loop rotating among
six tools is stopped as one tool is (one allowance per tool let it run six times as long)."""

REWRITTEN_AT = 3
"""How many times a file that one and the same command rewrites is headway in a turn (a
stamp, a log the command tees, the output of `date > now.txt`: the loop's own output)."""

HASHED_BYTES = 16 << 20
"""Files up to this size are compared by content; larger ones by size and modification
time (hashing them after every call would cost more than the call). A file is hashed again
only when `os.stat` says it changed (size, times, inode)."""

_WRITES = frozenset({"Write", "Edit", "MultiEdit", "NotebookEdit", "Revert"})
"""Tools that change files: headway when they leave one in a content new in the turn, however
many times they wrote it."""

_DELEGATES = frozenset({"Task", "Agent"})
"""Tools that hand work to a subagent, which has a guard of its own."""

_SEARCHES = frozenset({"Grep", "Glob", "WebSearch", "ToolSearch"})
"""Tools that answer a question: one not asked before (numbers aside) whose answer is new is
headway, as a subagent's task is (forty searches for forty names are work, not a loop); one
whose answer repeats an earlier one spends the turn's allowance (`NUMBERED_AT`)."""

_PAGED = frozenset({"Read"})
"""Tools that show a file a part at a time: lines not shown before are headway."""

_STREAMED = frozenset({"BashOutput"})
"""Tools that show what a background command printed since they were last asked: the same
call, asked again, shows new lines while the command works (counted as `NUMBERED_AT`)."""

_BOOKKEEPING = frozenset({"TodoWrite"})
"""Tools that show what they were given (a plan): they show nothing of the workspace, never
headway by their output (a plan rewritten with a new word every reply is not work)."""

_RACY_NS = 2_000_000_000
"""A file whose modification (or status change) is this recent when it was hashed is hashed
again next time: a rewrite within the file system's clock tick leaves both times as they were."""


class Headway:
    """What a turn's calls that succeeded did and showed (since its last compaction)."""

    __slots__ = (
        "_answered",
        "_asked",
        "_changes",
        "_contents",
        "_file_lines",
        "_hashed",
        "_latest",
        "_lines",
        "_named",
        "_returned",
        "_rewritten",
        "_shown",
        "_shown_exactly",
        "_spent",
        "_tried",
    )

    def __init__(self) -> None:
        self._named: dict[str, State] = {}
        """The paths the turn's calls named, with their content when last named."""
        self._contents: dict[str, set[State]] = {}
        """Per path, every content it was found with in the turn (not forgotten at a
        compaction: a content written again is not new work)."""
        self._latest: dict[str, State] = {}
        """Per path, the content it was last found with."""
        self._returned: set[str] = set()
        """The paths that went back once to a content they held before (a revert: headway
        once per file; flipping again is not)."""
        self._rewritten: dict[tuple[str, str], int] = {}
        """How often a path was found changed after the same command (signature)."""
        self._asked: set[str] = set()
        """The signatures, numbers left out, of the subagent, MCP and search calls."""
        self._shown: set[bytes] = set()
        """What the calls showed, numbers masked."""
        self._answered: set[str] = set()
        """The signatures (numbers left out) whose calls showed an output: another one is
        new only in what varies from run to run (a random word, punctuation, blanks)."""
        self._shown_exactly: set[bytes] = set()
        """What the calls showed, the numbers of their own input masked."""
        self._tried: set[bytes] = set()
        """The calls' inputs as given, numbers and all."""
        self._spent = 0
        """How many of the turn's calls were headway only for what they varied, whatever
        their tool (`NUMBERED_AT`)."""
        self._lines: set[int] = set()
        """The lines Read showed: path, number and text (numbers masked), and path and
        number alone (the lines of a file other calls showed, too)."""
        self._file_lines = FileLines()
        self._changes: dict[str, int] = {}
        """How many changes of each file the session made (its subagents' too), when last
        seen."""
        self._hashed: dict[str, tuple[tuple[int, int, int, int], State]] = {}
        """Per path, what `os.stat` said when it was last hashed (size, mtime, ctime, inode),
        with what it held: the same, the file is not read again."""

    @property
    def spent(self) -> int:
        """How many of the turn's calls were headway only for what they varied, or would
        have been but for the allowance (`NUMBERED_AT`)."""
        return self._spent

    def forget_seen(self) -> None:
        """A compaction took what was shown out of the conversation: shown again, it is new."""
        self._named.clear()
        self._lines.clear()
        self._shown.clear()
        self._answered.clear()
        self._shown_exactly.clear()

    def files_changed(self, changes: Mapping[Path, int]) -> bool:
        """Whether the session changed a file since the last reply to a content it did not
        have before in the turn: `changes` is how many changes of each file it made so far (a
        subagent's Write and Edit as much as the model's own; writing what a file held
        already, or held before, is not new)."""
        changed = False
        for path, count in changes.items():
            name = str(path)
            if count > self._changes.get(name, 0):
                changed = self._new_content(name, self._state(name)) or changed
            self._changes[name] = max(count, self._changes.get(name, 0))
        return changed

    def made(self, look: CallLook) -> bool:
        """Whether `look`'s call, which succeeded, is headway; the paths it names and what it
        showed are noted either way."""
        call = look.call
        if call.name in _BOOKKEEPING:
            return False  # it shows the plan it was given: no news of the workspace
        variant = varied = False
        asked = look.asked
        opaque = call.name in _DELEGATES or call.name.startswith("mcp__")
        questioned = opaque or call.name in _SEARCHES
        new_question = questioned and asked not in self._asked
        if questioned:
            self._asked.add(asked)
        headway, steady = self._names_new(look)
        if call.name in _PAGED:
            new, variant = self._shows_lines(look)
            headway = headway or new
        if call.input.get("run_in_background") is True:
            return headway or new_question  # it shows its id alone: the work shows later
        masked = look.masked()
        if masked not in self._shown:
            self._shown.add(masked)
            # The same call again showing something else: what runs of one make vary (a
            # random word of any length, punctuation, blanks, separators, a subagent's words)
            # is as new as its layout; a loop varies either at will, work is bounded so.
            varied = asked in self._answered
            headway = headway or not varied
            self._answered.add(asked)
            if call.name not in _PAGED:
                headway = self._shows_file_lines(look, steady) or headway
        elif new_question:
            # What they do is not seen: a new question is headway by a new answer; one
            # answered as an earlier one was (a search for a random word finding nothing, a
            # subagent saying the same) is asked anew in words only.
            variant = True
        numbered = not (opaque or call.name in _PAGED)
        if numbered and self._new_for_numbers(look):
            variant = True
        if headway:
            pass  # new lines, a new path or a new answer: not spent from the allowance
        elif variant or varied:
            # Asked anew by its numbers (a page, a code) or its words, or the same asked again
            # showing other text: the turn's allowance, whatever the tool.
            self._spent += 1
            headway = self._spent <= NUMBERED_AT
        return headway

    def _shows_file_lines(self, look: CallLook, steady: list[str]) -> bool:
        """Whether a call showed lines of a file it names at numbers not shown before in the
        turn (`sed -n`, `grep -n`, `head` of a log; Read's own count them as its). Only a file
        unchanged since a call last named it counts: the lines a loop appends to its own log,
        or a file rewritten between calls, are new places of what it makes, not of the file."""
        new = False
        for path in steady:
            for _, number in self._file_lines.places(path, self._named[path], look.content):
                place = hash((path, str(number), None))
                if place not in self._lines:
                    self._lines.add(place)
                    new = True
        return new

    def _new_for_numbers(self, look: CallLook) -> bool:
        """A call asked anew, by its numbers alone (`grep E1007`, `HEAD~7`), or a background
        command's output asked for again, that showed what none did beyond the numbers it was
        given (an echoed counter is not new)."""
        tried, shown = look.numbers()
        if tried in self._tried and look.call.name not in _STREAMED:
            return False
        self._tried.add(tried)
        if shown in self._shown_exactly:
            return False
        self._shown_exactly.add(shown)
        return True

    def _shows_lines(self, look: CallLook) -> tuple[bool, bool]:
        """Whether a Read showed lines of its file not shown before in the turn, by number
        and text (numbers masked: a stamp the loop rewrites shows nothing new), and whether
        it showed lines at numbers shown before with other text (a random word). What shows
        no numbered lines (a picture, a notebook) is compared whole, as any call's output is."""
        new = variant = False
        for k, masked in enumerate(look.lines()):
            if masked in self._lines:
                continue
            self._lines.add(masked)
            place = look.line_place(k)
            if place in self._lines:
                variant = True
            else:
                self._lines.add(place)
                new = True
        return new, variant

    def _names_new(self, look: CallLook) -> tuple[bool, list[str]]:
        """Whether a call named a path not named before in the turn, or left one in a content
        it had not had before in the turn: a write (what it wrote back, or an A/B flip, is
        not new), a `sed -i`, a build's output; a file that the same command changes every
        time is its own output, headway only `REWRITTEN_AT` times. With the paths named for
        the first time or holding what they held when last named (`_shows_file_lines`)."""
        new = False
        steady: list[str] = []
        for path in look.paths():
            state = look.state(path, self._state)
            if path not in self._named:
                new = True
                steady.append(path)
                self._new_content(path, state)
            elif look.call.name in _WRITES:
                new = self._new_content(path, state) or new
            elif state is not None and self._new_content(path, state):
                count = self._rewritten.get((path, look.key), 0) + 1
                self._rewritten[(path, look.key)] = count
                new = new or count <= REWRITTEN_AT
            elif state is not None and self._named[path] == state:
                steady.append(path)
            self._named[path] = state
        return new, steady

    def _new_content(self, path: str, state: State) -> bool:
        """Whether `path` holds a content it did not hold before in the turn, or went back to
        an earlier one for the first time (noted)."""
        seen = self._contents.setdefault(path, set())
        latest = self._latest.get(path)
        self._latest[path] = state
        if state not in seen:
            seen.add(state)
            return True
        if state == latest or path in self._returned:
            return False
        # Back to an earlier content: an undo is work once (each file of a reverted
        # refactor), a file flipping again and again is not.
        self._returned.add(path)
        return True

    def _state(self, path: str) -> State:
        """A path's content as compared (a directory's: its names); None when it cannot be
        read. A file whose size, times and inode are as when it was last hashed is not
        read again."""
        try:
            started = time.time_ns()
            st = os.stat(path)
            if not (stat.S_ISDIR(st.st_mode) or stat.S_ISREG(st.st_mode)):
                return None
            stamp = (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)
            known = self._hashed.get(path)
            if known is not None and known[0] == stamp:
                return known[1]
            state = _content(path, st)
            if max(st.st_mtime_ns, st.st_ctime_ns) < started - _RACY_NS:
                self._hashed[path] = (stamp, state)
            return state
        except (OSError, ValueError):
            return None


def _content(path: str, st: os.stat_result) -> State:
    """What a file or directory `st` is of holds, as compared (a directory: its names)."""
    if stat.S_ISDIR(st.st_mode):
        return (-1, content_hash("\0".join(sorted(os.listdir(path)))))
    if st.st_size > HASHED_BYTES:
        return (st.st_size, st.st_mtime_ns.to_bytes(16, "big", signed=True))
    with open(path, "rb") as f:
        return (st.st_size, hashlib.file_digest(f, "blake2b").digest()[:16])
