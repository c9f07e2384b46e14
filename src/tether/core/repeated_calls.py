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
`WAITING_STOP_AT`. A background command's new output, polled, is headway by its words (below).

Neither measure bounds a loop whose every reply holds something unseen: a call that always
gives a new output (`echo $RANDOM`, `date +%N`, a TodoWrite with a counter) beside a failing
call varied by a counter in a string, or the same failing call every third reply. So a third
measure counts *headway* (`headway.py`), which the model could act on, not merely output it
has not seen. A reply makes headway when one of its calls succeeds and:

- leaves a file in a content it did not have before in the turn (Write, Edit, NotebookEdit,
  Revert), or the session's files changed so since the last reply (a subagent's edits are its
  caller's headway): a write of what the file held already, or an A/B flip, is not new;
- shows lines no call of the turn showed, compared by their words: the call's own input words
  and random-looking tokens (a number, a hex id, a time, an overlong word) masked, and a line
  new but for one word not new (`headway_text`): a clock, a counter, a random word echoed or
  answered ("checked: <word> is not used"), punctuation or separators between the same words
  are nothing new; a commit's message, an issue's title, a new failure are. The same command
  with the same output is not headway, with a different result it is;
- Reads lines of a file not shown before in the turn, whatever `offset` and `limit` it asks,
  or shows lines of a file it names that no call showed (`sed -n`, `grep -n`, `head`), the
  file unchanged since last named; a Grep finds its pattern on lines of the files it lists
  that no call showed (a key looked up in `settings.py`, whatever the output mode);
- is asked anew by its numbers alone (`git show HEAD~7`, `grep E1007`) and shows a layout
  shown before with figures no call showed (not a counter echoed back), with words of its own
  beside them: another commit, another code. Figures alone that the turn's inputs drive (`expr
  N * 7`, a clock, a background job's progress count polled) are not;
- names a path (a tool's `*path` or `url`, an existing file in a Bash command or in a
  subagent's task: `review mod17.py`) not named before in the turn, or one read or written
  by a subagent (its reads are its caller's headway), unless the turn made it and it holds
  what another path held (`touch junk_<random>`) or lines not new by their words (`echo
  <word> > out_N.txt`): a file there before the turn is told by its directory's names, not
  its times, which an edit in place renews (`headway_made_files`); or leaves one in a
  content it had not had before in the turn, numbers masked (a `sed -i`, a build's output;
  not a counter written again), judged as `headway_rewrites` says when a command changed
  it: a file the same command changes every time counts a few times, one holding only the
  command's own words (`echo <word> > f`, or a line of them appended) never;
- is asked anew by its numbers alone and made a file (not named by it) holding what no file
  made in the turn held, or grew a file its output names (`sh build.sh 17`: a unit compiled,
  or added to an archive); an empty file or a copy is no work;
- runs, after a write that put a figure in a file for the first time in the turn, and shows
  that figure without naming the file (`headway_edit_effects`): a fix loop tuning a constant,
  whose edit and test output are otherwise new only in their numbers.

A bookkeeping call (TodoWrite) shows the plan it was given, never headway by its output.

What was shown before a compaction is new again after it (reading a file again that a
compaction took out of the conversation is work), but not for ever: a loop whose own output
fills the window makes everything new again at each compaction. So the turn's whole memory
is kept beside (from its first compaction on), and once a compaction came with no headway new
to the whole turn since the previous one, the replies in a row with none count toward the
bound as well. While the model waits on
teammates (`Awaited`: a lead), a state of one's not seen before in the turn (new words from
it, a reply given) is headway; a state it had before is not (a chatty teammate saying the same
again, one flipping between working and idle). One with no new state for `HUNG_AFTER_S`
(`awaited.py`) looks hung, and the model is told so, with its name and since when;
before then a lead polling a teammate that works in silence is not stopped (the time, not the
count of polls, says it is hung), after it the waiting bound ends the turn.

The bound: from `IDLE_NOTE_AT` replies in a row without headway the model is told, and at
`IDLE_STOP_AT` (`WAITING_STOP_AT` while background work or a teammate is waited on) the turn
ends, whatever the loop varies. A turn that the end of background work woke (not the user)
goes on with the counts of the turn before, and after a turn the guard ended nothing wakes
the model again (`-p` ends, stopping what it left running): a chain of jobs each waking the
model to start the next is bounded as one turn. Legitimate loops stay far from it: each test
or build rerun follows an edit; exploring reads new files and new lines. A loop that writes
new content (new by its words, numbers masked), or names a new existing file or URL every
reply is work as far as the guard can tell, bounded only by `--max-turns` and
`--max-budget-usd`. After a turn the guard ended, `-p` names the background work it stops
(`cli/background_wait.py`).
"""

from __future__ import annotations

import copy
import hashlib
from collections import deque
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import NoReturn

from tether.core.awaited import Awaited, AwaitedStates
from tether.core.call_signature import error_text, signature
from tether.core.headway import Headway
from tether.core.headway_look import CallLook
from tether.core.idle_stop import idle_stop_reason
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
"""The bound for every count while background work of the session runs, or teammates are
waited on."""

WAKE_MARK = "[SYSTEM NOTIFICATION - NOT USER INPUT]"
"""How the prompt of a turn that background work's end woke begins (not the user's)."""


class RepeatedFailures:
    """The counts, over one turn's replies (and the turns that background work's end woke
    after it), of calls failing again and replies going nowhere."""

    __slots__ = (
        "_awaited",
        "_compactions",
        "_failed",
        "_fresh",
        "_headway",
        "_idle",
        "_idle_calls",
        "_idle_files",
        "_laps",
        "_seen",
        "_stale",
        "_stuck",
        "_whole",
        "stopped",
    )

    def __init__(self) -> None:
        self._failed: deque[frozenset[str]] = deque(maxlen=WINDOW)
        """Each of the latest replies' failing signatures."""
        self._seen: set[bytes] = set()
        """The outcomes (signature and result) of the turn's calls that succeeded."""
        self._headway = Headway()
        self._awaited = AwaitedStates()
        self._whole: Headway | None = None
        """What the turn's calls did and showed across its compactions (from the first on)."""
        self._compactions = 0
        self._laps = 0
        """Compactions in a row with no headway new to the whole turn between them."""
        self._fresh = False
        """Headway new to the whole turn came since the last compaction."""
        self._stuck = 0
        self._idle = 0
        self._idle_calls: dict[str, int] = {}
        """Per tool, the calls of the replies in a row without headway (what a stop names)."""
        self._idle_files: tuple[set[str], set[str]] = (set(), set())
        """The files the replies in a row without headway changed, and those they made."""
        self._stale = 0
        """Replies in a row without headway new to the whole turn (compactions aside)."""
        self.stopped = False
        """A bound was reached: the turn was ended."""

    def saw(
        self,
        calls: Sequence[ToolUseBlock],
        results: Sequence[ToolResultBlock],
        *,
        waiting_on: Sequence[str] = (),
        awaited: Sequence[Awaited] = (),
        cwd: Path | None = None,
        compactions: int = 0,
        changes: Mapping[Path, int] | None = None,
        seen: Sequence[Path] = (),
    ) -> str | None:
        """Count one reply's calls with their results: a reminder for the model once it
        repeats itself, None otherwise; `HarnessError` at a bound. `waiting_on`: the
        session's background commands and subagents still running, by id; `awaited`: what
        else it waits on (teammates), a change of whose state is headway (a lead checking on
        a team at work); `cwd`: where relative paths in a Bash command start (None: they are
        not looked at); `compactions`: how many the conversation has had (a file read before
        one is new again after it); `changes`: how many changes of each file the session made
        so far (its subagents' count: their work is the caller's headway); `seen`: the files
        the session's agents read or wrote during the reply's calls (a subagent's reads are
        its caller's headway)."""
        if compactions != self._compactions:
            self._compacted(compactions)
        by_id = {result.tool_use_id: result for result in results}
        failing: set[str] = set()
        progress = False
        changed = changes or {}
        told = self._awaited.changed(awaited)
        where = str(cwd) if cwd is not None else None
        self._headway.look(where)
        if self._whole is not None:
            self._whole.look(where)
        headway = self._headway.files_changed(changed) | told
        headway = self._headway.files_seen(seen) or headway
        fresh = headway
        if self._whole is not None:  # not what a compaction made new again: a file read again
            fresh = self._whole.files_changed(changed) | self._whole.files_seen(seen) | told
        for call in calls:
            result = by_id.get(call.id)
            if result is None:
                continue
            key = signature(call)
            if result.is_error:
                failing.add(f"{key}\0{error_text(call, result.content)}")
                # A failing run (a test still failing) that shows the figure an edit just
                # wrote is a measurement of that edit: a fix loop tuning a constant.
                look = CallLook(call, result.content, key, where)
                shown = self._headway.failure_shows_edit(look)
                headway = headway or shown
                if self._whole is not None:
                    shown = self._whole.failure_shows_edit(look)
                fresh = fresh or shown
                continue
            outcome = hashlib.blake2b(
                f"{key}\0{result.content}".encode("utf-8", "surrogatepass"), digest_size=16
            ).digest()
            if outcome not in self._seen:
                self._seen.add(outcome)
                progress = True
            look = CallLook(call, result.content, key, where)  # worked out once for both
            made = self._headway.made(look)
            headway = headway or made
            if self._whole is not None:
                made = self._whole.made(look)
            fresh = fresh or made
        self._failed.append(frozenset(failing))
        self._stuck = 0 if progress or not failing else self._stuck + 1
        self._idle = 0 if headway else self._idle + 1
        self._stale = 0 if fresh else self._stale + 1
        if fresh:
            self._fresh, self._laps = True, 0
        idle = max(self._idle, self._stale) if self._laps else self._idle
        if idle == 0:
            self._idle_calls.clear()
            self._idle_files = (set(), set())
        else:
            self._idle_files[0].update(self._headway.reply_changed)
            self._idle_files[1].update(self._headway.reply_made)
        for call in calls if idle else ():
            self._idle_calls[call.name] = self._idle_calls.get(call.name, 0) + 1
        repeats = max((self._failures(key) for key in failing), default=0)
        waiting = [*waiting_on, *(a.id for a in awaited)]
        stop_at, stuck_at, idle_at = (
            (WAITING_STOP_AT,) * 3 if waiting else (STOP_AT, STUCK_STOP_AT, IDLE_STOP_AT)
        )
        if repeats >= stop_at:
            self._stop(
                f"the model made the same failing call {repeats} times in its last "
                f"{len(self._failed)} replies ({_named(calls, failing)})"
            )
        if self._stuck >= stuck_at:
            self._stop(
                f"the model made no progress in {self._stuck} replies in a row (each call "
                f"failed or gave what it had given before: {_named(calls, set())})"
            )
        hung = self._awaited.hung(awaited)
        if idle >= idle_at and (hung or waiting_on or not awaited):
            laps = self._compactions if self._laps else 0
            changed, made = self._idle_files
            files = (changed - made, made, where)
            self._stop(idle_stop_reason(idle, self._idle_calls, laps, hung, files))
        counts = (repeats, self._stuck, idle)
        said = _reminder(calls, failing, counts, (stop_at, stuck_at, idle_at), waiting)
        if said is not None and idle >= IDLE_NOTE_AT and hung:
            said = f"{hung}. {said}"  # (a name is not capitalized)
        return said

    def _compacted(self, compactions: int) -> None:
        """The conversation was compacted: what was shown is new again, but the turn's whole
        memory is kept, and a compaction with nothing new to it since the previous one counts."""
        self._compactions = compactions
        if self._whole is None:
            self._whole = copy.deepcopy(self._headway)
        elif not self._fresh:
            self._laps += 1
        self._fresh = False
        self._headway.forget_seen()

    def _stop(self, why: str) -> NoReturn:
        self.stopped = True
        raise HarnessError(
            f"stopped: {why}; the session is kept: say what to do differently and go on"
        )

    def _failures(self, key: str) -> int:
        return sum(1 for reply in self._failed if key in reply)


def woke(prompt: str) -> bool:
    """Whether a turn's prompt is the notice of background work's end (`WAKE_MARK`): such a
    turn goes on with the counts of the turn before, so that wakes bound nothing anew."""
    return prompt.lstrip().removeprefix("<system-reminder>").lstrip().startswith(WAKE_MARK)


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
                f"Your last {idle} replies looked at nothing new and left no file with anything "
                "new in it (no file read for the first time, none written or edited to a new "
                "content). If the task is done, say so and end your reply; if something is in "
                "the way, stop and say what. Do not go on "
                f"repeating yourself: at {idle_at} such replies in a row the turn is ended.",
            )
        )
    return min(said)[1] if said else None


def _named(calls: Sequence[ToolUseBlock], failing: set[str]) -> str:
    tools = {key.split("\0", 1)[0] for key in failing}
    names = sorted({c.name for c in calls if not failing or c.name in tools})
    return ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
