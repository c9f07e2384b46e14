"""Whether a call that succeeded is headway: what the repeat guard's idle bound counts
(`repeated_calls`, whose docstring says what is and what is not)."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from tether.core.headway_edit_effects import EditEffects
from tether.core.headway_file_lines import FileLines
from tether.core.headway_file_states import FileStates
from tether.core.headway_look import CallLook, State
from tether.core.headway_made_files import MadeFiles
from tether.core.headway_outputs import ShownOutputs
from tether.core.headway_rewrites import Rewrites, small_text
from tether.core.headway_text import SeenLines, line_keys
from tether.tools.background_words import still_running_with_nothing_new

_WRITES = frozenset({"Write", "Edit", "MultiEdit", "NotebookEdit", "Revert"})
"""Tools that change files: headway when they leave one in a content new in the turn, however
many times they wrote it."""

_OPAQUE = frozenset({"Task", "Agent"})
"""Tools that hand work to a subagent, which has a guard of its own: what it read is its
caller's headway (`files_seen`), and what it answers is compared as any output is; it is
never asked anew "by its numbers" (its work is not seen, only its words)."""

_PAGED = frozenset({"Read"})
"""Tools that show a file a part at a time: lines at places not shown before are headway."""

_STREAMED = frozenset({"BashOutput"})
"""Tools that show what a background command printed since they were last asked: the same
call, asked again, shows output new only in its numbers for ever (a progress count), which is
no headway; new lines are, by their words."""

_BOOKKEEPING = frozenset({"TodoWrite"})
"""Tools that show what they were given (a plan): they show nothing of the workspace, never
headway by their output (a plan rewritten with a new word every reply is not work)."""

_SEARCHED_FILES = 16
"""How many of the files a Grep lists are searched again for the lines its pattern matched
(`files_with_matches` and `count` show no line: the places found are what it saw)."""


_LISTING = -1
"""The size a directory's `State` has (`headway_file_states`): its names, whose change is the
files made or removed in it, judged as such (`headway_made_files`), not as a new content."""

_REPORTED_FILES = 4
"""How many of the files a step's output names are looked at (`Headway._reported_grown`)."""


class Headway:
    """What a turn's calls that succeeded did and showed (since its last compaction).

    Headway is new substantive content, not a count of calls: lines of output (of a file read,
    of a subagent's answer) that the turn has not seen, its own input words and random-looking
    tokens masked (`headway_text`); lines of a file at places no call showed; a file left in a
    content it had not had in the turn; a path named for the first time. A call asked anew by
    its numbers alone (`git show HEAD~7`, `grep E1007`) whose output is new only in its
    numbers (not those it was given) is headway too: the same layout with other figures is
    another commit, another code."""

    __slots__ = (
        "_asked",
        "_changes",
        "_contents",
        "_edits",
        "_file_lines",
        "_files",
        "_latest",
        "_lines",
        "_made",
        "_made_lines",
        "_named",
        "_outputs",
        "_reply_made",
        "_returned",
        "_rewrites",
        "_shapes",
        "_shown_exactly",
        "_stamps",
        "_text",
        "_tried",
        "_turn_contents",
        "reply_changed",
        "reply_made",
    )

    def __init__(self) -> None:
        self._named: dict[str, State] = {}
        """The paths the turn's calls named, with their content when last named."""
        self._contents: dict[str, set[State]] = {}
        """Per path, every content it was found with in the turn (not forgotten at a
        compaction: a content written again is not new work)."""
        self._turn_contents: set[State] = set()
        """Every content a path named in the turn held: a file the turn made holding one of
        them (`touch junk_<random>`, the same text under a counter's name) is nothing new."""
        self._latest: dict[str, State] = {}
        """Per path, the content it was last found with."""
        self._returned: set[str] = set()
        """The paths that went back once to a content they held before (a revert: headway
        once per file; flipping again is not)."""
        self._rewrites = Rewrites()
        self._text = SeenLines()
        self._outputs = ShownOutputs()
        self._made = MadeFiles()
        self._reply_made: list[str] = []
        """The files the reply's calls made (`headway_made_files`)."""
        self.reply_made: set[str] = set()
        """The files the reply made, found in the tree or named (what a stop says of a reply
        without headway: files made that held nothing new)."""
        self.reply_changed: set[str] = set()
        """The files there before that the reply changed, by the session's count of its
        writes or by their modification time when a call named them again."""
        self._stamps: dict[str, int] = {}
        """Per file named, its modification time when last named."""
        self._made_lines = SeenLines()
        """The lines of the files the turn made and named, by their words (`_first_named`)."""
        self._shapes: set[bytes] = set()
        """What the calls showed, numbers, hex runs and input words masked."""
        self._shown_exactly: set[bytes] = set()
        """What the calls showed, the numbers of their own input masked."""
        self._tried: set[bytes] = set()
        """The calls' inputs as given, numbers and all."""
        self._asked: set[str] = set()
        """The calls' signatures, numbers left out."""
        self._lines: set[int] = set()
        """The lines Read showed: path, number and text (numbers masked), and path and
        number alone (the lines of a file other calls showed, too)."""
        self._file_lines = FileLines()
        self._changes: dict[str, int] = {}
        """How many changes of each file the session made (its subagents' too), when last
        seen."""
        self._files = FileStates()
        self._edits = EditEffects()
        """The figures the model's writes put in files, for the run that shows them."""

    def forget_seen(self) -> None:
        """A compaction took what was shown out of the conversation: shown again, it is new."""
        self._named.clear()
        self._lines.clear()
        self._text.clear()
        self._outputs.clear()
        self._shapes.clear()
        self._shown_exactly.clear()

    def look(self, cwd: str | None) -> None:
        """Look at the working tree after a reply's calls, before they are judged: the files
        they made, and which files are the turn's own (`headway_made_files`)."""
        self._reply_made = self._made.new_files(cwd) if cwd is not None else []
        self.reply_made = set(self._reply_made)
        self.reply_changed = set()

    def files_changed(self, changes: Mapping[Path, int]) -> bool:
        """Whether the session changed a file since the last reply to a content it did not
        have before in the turn: `changes` is how many changes of each file it made so far (a
        subagent's Write and Edit as much as the model's own; writing what a file held
        already, or held before, is not new)."""
        changed = False
        for path, count in changes.items():
            name = str(path)
            if count > self._changes.get(name, 0):
                state = self._files.read(name)
                self._note_change(name, written=True)
                if name in self._contents:
                    changed = self._new_content(name, state) or changed
                else:  # a file new to the turn: not one holding what another path held
                    changed = self._first_named(name, state) or changed
            self._changes[name] = max(count, self._changes.get(name, 0))
        return changed

    def files_seen(self, paths: Sequence[Path]) -> bool:
        """Whether the session's agents (its subagents too: their reads are their caller's
        headway) read or wrote a file the turn had not named before."""
        new = False
        for path in paths:
            name = str(path)
            if name not in self._named:
                state = self._files.read(name)
                new = self._first_named(name, state) or new
                self._named[name] = state
        return new

    def made(self, look: CallLook) -> bool:
        """Whether `look`'s call, which succeeded, is headway; the paths it names and what it
        showed are noted either way."""
        call = look.call
        if call.name in _BOOKKEEPING:
            return False  # it shows the plan it was given: no news of the workspace
        if call.name in _WRITES:
            self._edits.wrote(look)
            shows_edit = False
        else:  # a run showing the figure an edit put in a file it reads: a fix loop's test
            shows_edit = self._edits.shown(look)
        headway, steady = self._names_new(look)
        headway = headway or shows_edit or self._built(look)
        if call.name in _PAGED:
            headway = self._shows_lines(look) or headway
        else:
            headway = self._shows_file_lines(look, steady) or headway
        if call.name == "Grep":
            headway = self._grep_places(look) or headway
        if call.input.get("run_in_background") is True:
            return headway  # it shows its id alone: the work shows later
        if self._outputs.shown_before(look) or still_running_with_nothing_new(look.content):
            return headway  # nothing new, or exactly what the same call showed before
        headway = self._text.shows_new(look.line_keys()) or headway
        opaque = call.name in _OPAQUE or call.name.startswith("mcp__")
        if not opaque and call.name not in _PAGED:
            headway = self._new_in_numbers(look) or headway
        self._shapes.add(look.masked())
        return headway

    def failure_shows_edit(self, look: CallLook) -> bool:
        """Whether a call that failed (a test run still failing) shows a figure a write just
        put in a file, without naming it (`headway_edit_effects`): the test of a fix loop
        tuning a constant, which fails until the figure is right."""
        return look.call.name not in _WRITES and self._edits.shown(look)

    def _built(self, look: CallLook) -> bool:
        """Whether a command asked anew by its numbers alone (`sh build.sh 17`) made a file
        holding something new (`headway_made_files`), or grew one its output names: a unit
        built, whose output is the last one's with the number it was given."""
        if look.call.name != "Bash":
            return False
        numbered = look.asked in self._asked and look.numbers()[0] not in self._tried
        if not numbered:
            return False
        grown = self._reported_grown(look)
        # Those it names are judged as named (`_first_named`): `date > snap_17.txt` is not.
        unnamed = [path for path in self._reply_made if path not in look.paths()]
        return self._made.holding_new(unnamed) or grown

    def _reported_grown(self, look: CallLook) -> bool:
        """Whether a command asked anew by its numbers left a file its output names, and not
        its input, in a content new to the turn (`[17/150] AR libunits.a unit_17.o`: a unit
        added to an archive); a file first named so is noted."""
        grown = False
        for path in look.output_files(_REPORTED_FILES):
            known = path in self._contents
            grown = (self._new_content(path, self._files.read(path)) and known) or grown
        return grown

    def _new_in_numbers(self, look: CallLook) -> bool:
        """A call asked anew by its numbers (`grep E1007`, `HEAD~7`) whose output has a layout
        shown before with figures none showed (beyond the numbers it was given: an echoed
        counter is not new), and words of its own beside them: another commit, another code.
        Figures alone that the turn's inputs drive are not (`expr N * 7`, a clock, a background
        job's progress count polled: the same poll shows new counts for ever). A layout never
        shown is judged by its words (`headway_text`)."""
        tried, shown = look.numbers()
        again = look.asked in self._asked  # the same call, numbers aside
        asked_anew = again and tried not in self._tried and look.call.name not in _STREAMED
        self._asked.add(look.asked)
        self._tried.add(tried)
        new = shown not in self._shown_exactly
        self._shown_exactly.add(shown)
        worded = any(look.line_keys())  # a word neither random-looking nor the input's
        return asked_anew and new and worded and look.masked() in self._shapes

    def _shows_file_lines(self, look: CallLook, steady: list[str]) -> bool:
        """Whether a call showed lines of a file it names at numbers not shown before in the
        turn (`sed -n`, `grep -n`, `head` of a log; Read's own count them as its). Only a file
        unchanged since a call last named it counts: the lines a loop appends to its own log,
        or a file rewritten between calls, are new places of what it makes, not of the file."""
        new = False
        for path in steady:
            for _, number in self._file_lines.places(path, self._named[path], look.content):
                new = self._new_place(path, number) or new
        return new

    def _grep_places(self, look: CallLook) -> bool:
        """Whether a Grep found its pattern on lines of the files it lists that no call showed
        before (`files_with_matches` answers "settings.py" to each key looked up in it: the
        line each key is on is what it saw)."""
        pattern = look.pattern()
        if pattern is None:
            return False
        new = False
        for path in look.listed_files(_SEARCHED_FILES):
            state = self._files.read(path)
            for number in self._file_lines.matching(path, state, pattern):
                new = self._new_place(path, number) or new
        return new

    def _new_place(self, path: str, number: int) -> bool:
        place = hash((path, str(number), None))
        if place in self._lines:
            return False
        self._lines.add(place)
        return True

    def _shows_lines(self, look: CallLook) -> bool:
        """Whether a Read showed lines of its file at places not shown before in the turn (the
        same lines again, or other text at a place shown, are nothing new: a stamp the loop
        rewrites, a random word)."""
        new = False
        for k, masked in enumerate(look.lines()):
            if masked in self._lines:
                continue
            self._lines.add(masked)
            place = look.line_place(k)
            if place not in self._lines:
                self._lines.add(place)
                new = True
        return new

    def _names_new(self, look: CallLook) -> tuple[bool, list[str]]:
        """Whether a call named a path not named before in the turn, or left one in a content
        it had not had before in the turn: a write (what it wrote back, or an A/B flip, is
        not new), a `sed -i`, a build's output, judged as `headway_rewrites` says when a
        command changed it. With the paths named for the first time or holding what they
        held when last named (`_shows_file_lines`)."""
        new = False
        steady: list[str] = []
        for path in look.paths():
            state = look.state(path, self._files.read)
            if state is not None and state[0] != _LISTING:
                self._note_change(path)
            if path not in self._named:
                first = self._first_named(path, state, look.input_words())
                if first:  # not a file the loop made: its lines shown are places of it
                    new = True
                    steady.append(path)
            elif look.call.name in _WRITES:
                new = self._new_content(path, state) or new
            elif state is not None and state[0] != _LISTING and self._new_content(path, state):
                new = self._rewrites.fresh(path, look) or new
            elif state is not None and self._named[path] == state:
                steady.append(path)
            self._named[path] = state
        return new, steady

    def _note_change(self, path: str, written: bool = False) -> None:
        """Note `path` as made by the reply (it appeared in the turn and was not named before)
        or changed by it (`written` by the session, or its modification time moved since it
        was last named)."""
        try:
            stamp = os.stat(path).st_mtime_ns
        except (OSError, ValueError):
            return
        before = self._stamps.get(path)
        self._stamps[path] = stamp
        if before is None and path not in self._named and self._made.made_in_turn(path):
            self.reply_made.add(path)
        elif (written or (before is not None and before != stamp)) and path not in self.reply_made:
            self.reply_changed.add(path)

    def _first_named(self, path: str, state: State, asked: frozenset[str] = frozenset()) -> bool:
        """A path named for the first time in the turn is headway, unless the turn made it
        and it holds what another path of the turn held (`touch junk_<random>`, the same text
        written under a counter's name), or text whose lines are not new by their words, the
        words `asked` of the call that named it aside (`echo <words> > out_17.txt`, `date >
        snap_17.txt`: a loop's own output under a counter's name)."""
        self._new_content(path, state)
        known = state in self._turn_contents
        self._turn_contents.add(state)
        if not self._made.made_in_turn(path):
            return True  # there before the turn (an edit in place renews its times only)
        if known:
            return False
        text = small_text(path)
        return text is None or self._made_lines.shows_new(line_keys(text, asked))

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
