"""Whether a call that succeeded is headway: what the repeat guard's idle bound counts
(`repeated_calls`, whose docstring says what is and what is not)."""

from __future__ import annotations

import hashlib
import os
import stat
import time
from collections.abc import Mapping
from pathlib import Path

from tether.core.headway_look import CallLook, State, content_hash

NUMBERED_AT = 100
"""How many calls the same but for their numbers (`grep E1007`, `git show HEAD~7`, `sed -n
'701,800p'`) are headway in a turn, each showing what the others did not beyond the numbers
asked: a hunt through a hundred codes, commits or pages stays within it; a counter echoed
beside a clock does not go on for ever. As many outputs of one tool are headway in a turn
that only vary what an earlier call of theirs (numbers aside) showed: a random word of any
length, punctuation, blanks, separators (whatever the calls, two asked in turn share it)."""

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
"""Tools that answer a question: one not asked before (numbers aside) is headway, as a
subagent's task is (forty searches for forty names are work, not a loop)."""

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
        "_hashed",
        "_latest",
        "_lines",
        "_named",
        "_numbered",
        "_returned",
        "_rewritten",
        "_shown",
        "_shown_exactly",
        "_tried",
        "_varied",
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
        self._numbered: dict[str, int] = {}
        """Per signature (numbers left out), how many of its calls were headway for their
        numbers alone (or, Read, for lines shown before with other text)."""
        self._varied: dict[str, int] = {}
        """Per tool, how many of its calls were headway for an output that only varied what
        an earlier call of the same signature showed."""
        self._lines: set[int] = set()
        """The lines Read showed: path, number and text (numbers masked), and path and
        number alone."""
        self._changes: dict[str, int] = {}
        """How many changes of each file the session made (its subagents' too), when last
        seen."""
        self._hashed: dict[str, tuple[tuple[int, int, int, int], State]] = {}
        """Per path, what `os.stat` said when it was last hashed (size, mtime, ctime, inode),
        with what it held: the same, the file is not read again."""

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
        headway = variant = varied = False
        opaque = call.name in _DELEGATES or call.name.startswith("mcp__")
        asked = look.asked
        if opaque or call.name in _SEARCHES:
            # What they do is not seen: a task or a query not asked before (a counter in it
            # aside) is headway; the same again is not, for what it answers alone.
            headway = asked not in self._asked
            self._asked.add(asked)
        if call.name in _PAGED:
            new, variant = self._shows_lines(look)
            headway = headway or new
        if self._names_new(look):
            headway = True
        if call.input.get("run_in_background") is True:
            return headway  # it shows its id alone: what the command does shows later
        masked = look.masked()
        if masked not in self._shown:
            self._shown.add(masked)
            # The same call again showing something else: what runs of one make vary (a
            # random word of any length, punctuation, blanks, separators, a subagent's words)
            # is as new as its layout; a loop varies either at will, work is bounded so.
            varied = asked in self._answered
            headway = headway or not varied
            self._answered.add(asked)
        numbered = not (opaque or call.name in _PAGED)
        if numbered and self._new_for_numbers(look):
            variant = True
        if headway:
            pass  # new lines, a new path or a new question: not spent from a budget
        elif variant:
            # Asked anew by its numbers (a page, a code) and showing what none did beyond
            # them: per signature, so two logs paged in turn have a budget each.
            self._numbered[asked] = self._numbered.get(asked, 0) + 1
            headway = self._numbered[asked] <= NUMBERED_AT
        elif varied:
            # The same input again showing other text. Per tool, not per signature: two
            # calls asked in turn share it.
            self._varied[call.name] = self._varied.get(call.name, 0) + 1
            headway = self._varied[call.name] <= NUMBERED_AT
        return headway

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

    def _names_new(self, look: CallLook) -> bool:
        """Whether a call named a path not named before in the turn, or left one in a content
        it had not had before in the turn: a write (what it wrote back, or an A/B flip, is
        not new), a `sed -i`, a build's output; a file that the same command changes every
        time is its own output, headway only `REWRITTEN_AT` times."""
        new = False
        for path in look.paths():
            state = look.state(path, self._state)
            if path not in self._named:
                new = True
                self._new_content(path, state)
            elif look.call.name in _WRITES:
                new = self._new_content(path, state) or new
            elif state is not None and self._new_content(path, state):
                count = self._rewritten.get((path, look.key), 0) + 1
                self._rewritten[(path, look.key)] = count
                new = new or count <= REWRITTEN_AT
            self._named[path] = state
        return new

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
