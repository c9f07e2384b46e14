"""tree-sitter's parse of a command line, watched so that it takes bounded time whatever the
text.

tree-sitter-bash parses most text in linear time, but not all of it, and the slow shapes cost
seconds to minutes at sizes well under the 100 KB a command may have (measured with
tree-sitter 0.25 and tree-sitter-bash 0.25):

- error recovery that scans ahead: `ls ` then 99,000 `)`, 53 s; `$[` repeated, 28 s;
  `@(a|b)` repeated, 1.5 s for 30 KB. Each token makes the scanner read the rest of the run
  again, so the text is read again and again.
- ambiguity: `a|a|a|...` (20,000 stages without blanks) keeps ever more readings of the line
  open, 12 s for 40 KB, with no error reported until the end.
- slow but linear recovery: `${` repeated, 430 ms for 100 KB.

So a command of `WATCHED_FROM` bytes or more is parsed through callbacks that watch it: the
text is handed over in chunks and each chunk counted (a parse that asks for the text more
than `MAX_READS_PER_BYTE` times its length is reading it again and again), a parse goes on
for at most `REPORTS_AFTER_AN_ERROR` progress reports (one per 100 parser operations) after
its first error (whatever follows, the command is one the engine cannot see), and past
`PARSE_CPU_SECONDS` of the thread's processor time the parse is given up whatever the cause.
Shorter commands are parsed straight from their bytes: the worst of them takes a few
milliseconds. Either way the tree's size is spent as steps of the read (`shell_budget`), a
step per `NODES_PER_STEP` nodes, before the walk counts each node it visits.
"""

from __future__ import annotations

import time

import tree_sitter
import tree_sitter_bash

from tether.permissions import shell_budget
from tether.permissions.shell_budget import TooLarge

_BASH = tree_sitter.Language(tree_sitter_bash.language())
"""The grammar: read-only data, shared by every parser."""

WATCHED_FROM = 1024
"""Commands this long or longer are parsed under watch."""
CHUNK = 2048
"""Bytes handed to the parser per read. A node's `text` is read through the same callback,
a chunk at a time, so small chunks keep a short node's text from costing a copy of the rest
of the command."""
MAX_READS_PER_BYTE = 0.25
"""Reads a parse may make per byte of text (and 64 more). Linear parses make one per chunk,
or one per line of an unquoted heredoc whose lines hold substitutions (0.1 per byte for
10-byte lines); one whose scanner reads ahead from every token makes about n/4096 per byte."""
REPORTS_AFTER_AN_ERROR = 20
NODES_PER_STEP = 5
"""tree-sitter builds some five nodes a microsecond."""
PARSE_CPU_SECONDS = 0.05
"""The processor time a parse may take, the bound that holds whatever the grammar does. Any
command small enough to be judged (`shell_budget.MAX_NODES`) parses in a tenth of it; a
100 KB pipeline of 12,000 stages in 90 ms (too large to judge after the parse anyway).
Processor time moves little with the machine's load, and only the slow shapes above come
near the bound: whichever way they end (given up here, or too large after), they are
commands the engine cannot see."""


def parse_tree(source: bytes) -> tree_sitter.Tree | None:
    """The tree of `source`, from a parser of its own; None when the parse was given up after
    an error (the command does not parse cleanly). Raises `TooLarge` when it was given up for
    its cost.

    A tree-sitter parser is not to be used from two threads, and it carries state from one
    parse to the next (its stacks, the bash scanner's heredocs): one parser per parse shares
    nothing with another thread (the REPL builds its session in a worker thread, subagents
    and tests judge commands on threads of their own) nor with an earlier parse, so the same
    text always reads the same. Making one costs well under a microsecond
    (`bench/permissions_bench.py`). The tree is walked on the thread that made it."""
    if len(source) < WATCHED_FROM:
        tree = tree_sitter.Parser(_BASH).parse(source)
    else:
        watch = _Watch(source)
        try:
            tree = tree_sitter.Parser(_BASH).parse(watch.read, progress_callback=watch.progress)
        except ValueError:  # given up by `progress`
            tree = None
        watch.parsing = False
        if watch.too_large:
            raise TooLarge
    if tree is not None:
        shell_budget.spend(1 + tree.root_node.descendant_count // NODES_PER_STEP)
    return tree


class _Watch:
    """The callbacks of one watched parse."""

    def __init__(self, source: bytes) -> None:
        self.source = source
        self.parsing = True
        self.too_large = False
        self.reads_left = int(len(source) * MAX_READS_PER_BYTE) + 64
        self.after_error = 0
        self.started = time.thread_time()

    def read(self, offset: int, _point: tree_sitter.Point) -> bytes:
        if self.parsing:
            self.reads_left -= 1
            if self.reads_left < 0 or self._past_time():
                self.too_large = True
                return b""  # the end of the text, as far as the parser knows: it stops soon
        return self.source[offset : offset + CHUNK]

    def progress(self, _offset: int, has_error: bool) -> bool:
        if self.too_large or self._past_time():
            self.too_large = True
            return True
        self.after_error += has_error
        return self.after_error > REPORTS_AFTER_AN_ERROR

    def _past_time(self) -> bool:
        return time.thread_time() - self.started > PARSE_CPU_SECONDS
