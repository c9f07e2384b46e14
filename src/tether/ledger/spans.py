"""`ResultCharges`: what each tool result of a conversation cost over its requests, kept in
O(log n) per request however long the conversation grows.

Each request bills its prompt in three ranges (cache read, cache write, plain; see
`meter.py`). The blocks lying wholly inside one range form a run of consecutive blocks, so a
request adds 1 to a difference array over that run, per range and per set of rates; only the
few blocks across a range's edge are split one by one. `take` hands over what the requests
since the last time billed in O(1) (`Taken`: the difference arrays, and the blocks as they are
then); `Taken.billed` turns the counts into tokens (count x size) and costs, in one pass over
the blocks, later and in another thread (the ledger's writer): the loop never pays for a pass
that grows with the conversation. The block lists are only ever appended to (`clear` starts
new ones), so what a `Taken` holds stays as it was.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field
from itertools import accumulate
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tether.ledger.meter import Billed, Rates

_M = 1_000_000
_KINDS = 3  # cache read, cache write, plain


def split(start: int, end: int, read: int, written: int) -> tuple[int, int, int]:
    """The tokens of the span [start, end) billed as cache reads, cache writes and plain."""
    in_read = max(0, min(end, read) - start)
    in_write = max(0, min(end, read + written) - max(start, read))
    plain = max(0, end - max(start, read + written))
    return in_read, in_write, plain


@dataclass
class ResultCharges:
    """The blocks of one conversation (their sizes, and the call a result answers) and what
    the results cost in the requests since the last `take`."""

    _calls: list[str | None] = field(default_factory=list[str | None])
    _starts: list[int] = field(default_factory=list[int])
    _ends: list[int] = field(default_factory=list[int])
    _results: list[int] = field(default_factory=list[int])
    """The indices of the blocks that are tool results."""
    _runs: dict[Rates, list[list[int]]] = field(default_factory=dict["Rates", list[list[int]]])
    """Per set of rates, per range: a difference array of the requests that billed each
    block wholly in that range."""
    _edges: dict[str, list[tuple[int, int, int, Rates]]] = field(
        default_factory=dict[str, list[tuple[int, int, int, "Rates"]]]
    )
    """Per call: the tokens of its result split across a range's edge, request by request."""
    _anchors: dict[int, int] = field(default_factory=dict[int, int])
    """Where a request's cache write ended (its tokens from the prompt's start) and how many
    blocks there were then: a later request reading that much read those blocks, exactly."""

    def append(self, tokens: int, call_id: str | None) -> None:
        start = self._ends[-1] if self._ends else 0
        if call_id is not None:
            self._results.append(len(self._calls))
        self._calls.append(call_id)
        self._starts.append(start)
        self._ends.append(start + tokens)

    def bill(self, prompt: int, read: int, written: int, rates: Rates) -> None:
        """A request of `prompt` tokens holding every block so far, its last block last."""
        if not self._ends:
            return
        count = len(self._ends)
        # Where the blocks end in the prompt. A cache write ends at the request's newest
        # breakpoint, the last block (what is billed after it is no block of ours); a cache
        # read ends where an earlier request's write ended, a block boundary known exactly.
        cached, wrote = read + written, written > 0
        offset = (cached if wrote else prompt) - self._ends[-1]
        at = self._anchors.get(read)
        if at is not None:
            read = max(0, (self._ends[at - 1] if at else 0) + offset)
        top = self._ends[-1] + offset if wrote else read
        written = max(0, top - read)
        runs = self._runs.get(rates)
        if runs is None:
            runs = self._runs[rates] = [[] for _ in range(_KINDS)]
        ranges = ((0, read), (read, read + written), (read + written, prompt))
        for kind, (low, high) in enumerate(ranges):
            first = bisect_left(self._starts, low - offset)
            last = bisect_right(self._ends, high - offset)
            if first < last:
                run = runs[kind]
                run.extend([0] * (count + 1 - len(run)))
                run[first] += 1
                run[last] -= 1
        across: set[int] = set()
        for edge in (0, read, read + written):
            index = bisect_right(self._ends, edge - offset)  # the first block ending past it
            if index < count and self._starts[index] + offset < edge:
                across.add(index)
        for index in across:
            call_id = self._calls[index]
            if call_id is not None:
                start, end = self._starts[index] + offset, self._ends[index] + offset
                in_read, in_write, plain = split(max(0, start), end, read, written)
                self._edges.setdefault(call_id, []).append((in_read, in_write, plain, rates))
        if wrote:
            self._anchors[cached] = count

    def take(self) -> Taken:
        """What the requests since the last time billed, handed over in O(1)."""
        taken = Taken(
            self._runs,
            self._edges,
            self._calls,
            self._starts,
            self._ends,
            self._results,
            len(self._results),
        )
        self._runs, self._edges = {}, {}
        return taken

    def clear(self) -> None:
        """Forget the blocks (after `take`): a compaction took them out of the prompt. New
        lists: a `Taken` keeps the old ones."""
        self._calls, self._results, self._starts, self._ends = [], [], [], []
        self._anchors = {}


@dataclass(frozen=True)
class Taken:
    """What some requests billed the results, not yet turned into tokens and costs."""

    runs: dict[Rates, list[list[int]]]
    edges: dict[str, list[tuple[int, int, int, Rates]]]
    calls: list[str | None]
    starts: list[int]
    ends: list[int]
    results: list[int]
    count: int
    """How many of `results` there were then (the lists may have grown since)."""

    def billed(self) -> dict[str, Billed]:
        """What each result cost in those requests, by call id."""
        from tether.ledger.meter import Billed

        taken: dict[str, Billed] = {}
        results = self.results[: self.count]
        for rates, runs in self.runs.items():
            for kind, run in enumerate(runs):
                requests = list(accumulate(run))  # per block: the requests that billed it
                for index in results:
                    if index >= len(requests):
                        break
                    if count := requests[index]:
                        tokens = count * (self.ends[index] - self.starts[index])
                        call_id = self.calls[index]
                        assert call_id is not None
                        _charge(taken.setdefault(call_id, Billed()), kind, tokens, rates)
        for call_id, pieces in self.edges.items():
            billed = taken.setdefault(call_id, Billed())
            for in_read, in_write, plain, rates in pieces:
                _charge(billed, 0, in_read, rates)
                _charge(billed, 1, in_write, rates)
                _charge(billed, 2, plain, rates)
        return {call_id: billed for call_id, billed in taken.items() if billed.tokens}


def _charge(billed: Billed, kind: int, tokens: int, rates: Rates) -> None:
    if kind == 0:
        billed.cache_read_tokens += tokens
        billed.cache_read_cost += tokens * rates.cache_read / _M
    elif kind == 1:
        billed.cache_write_tokens += tokens
        billed.cache_write_cost += tokens * rates.cache_write / _M
    else:
        billed.input_tokens += tokens
        billed.input_cost += tokens * rates.input / _M
