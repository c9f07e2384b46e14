"""Deny and ask rules against every tail of a command's words, in time linear in the command.

A program tether knows nothing about may run any of its later arguments as a command
(`mytool --retry 3 rm -rf x`), and a wrapper's grammar may be wrong about where its command
starts: every tail of the words is a rule text (bash_rules.py). Each tail, and each form of it
(a program by path also under its bare name, `--opt=VALUE` as VALUE), is a suffix of one
text, the command's words joined by blanks: so each rule reads that text once, from its end
(suffix_stars.py), and says at which tail starts it matches. Tried one by one, the tails cost
the square of the command (`mytool` with 2,400 characters of arguments took 43,000 steps).

Per rule kind: a pattern is matched on every suffix in one right-to-left pass; a pattern in
option-set form (command_options.py) the same way, its options gathered and its other words
matched as the pass goes, each `--` starting again from what follows it; the unknown parts of
the text are searched against the pattern from every tail start at once (paths.first_overlap);
a seed's regular expression is searched once from the first tail, and one that starts with `^`
is also tried at each tail's start.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass, field
from functools import cache

from tether.permissions import steps
from tether.permissions.command_options import (
    GIT_VALUED_GLOBALS,
    OPTION_ALIASES,
    SUBCOMMAND_PROGRAMS,
    OptionRule,
    is_option,
    option_atoms,
)
from tether.permissions.paths import ANY, ONE, Token, first_overlap
from tether.permissions.rules import Rule, RuleSet
from tether.permissions.shell_words import DYN, MARKERS, is_literal, plain, shown
from tether.permissions.shell_words import ONE as ONE_MARK
from tether.permissions.shell_words import STAR as STAR_MARK
from tether.permissions.suffix_stars import ReverseStar

TailMatch = tuple[str, Rule, str, bool]
"""(kind, rule, the tail's text, whether the rule surely matches it)."""

_CHARACTERS_PER_STEP = 64
"""Text one rule reads, in chunks, in about the time of one step (steps.py)."""


@dataclass
class Tails:
    """The tails of a command's words from some word on, as offsets into its text."""

    text: str
    starts: tuple[int, ...]
    """Where each tail's text begins, in the order they are tried."""
    spelled: frozenset[int]
    """Starts whose first word is partly known: they may spell a program."""
    _tokens: list[str] | None = field(default=None, repr=False)
    _token_starts: list[int] | None = field(default=None, repr=False)
    _order: dict[int, int] | None = field(default=None, repr=False)
    _skips: dict[bool, list[int]] = field(default_factory=dict[bool, list[int]], repr=False)

    def first_of(self, found: list[int]) -> int | None:
        """The one of `found` tried first."""
        if not found:
            return None
        if self._order is None:
            self._order = {start: n for n, start in enumerate(self.starts)}
        order = self._order
        return min(found, key=lambda start: order[start])

    def tokens(self) -> tuple[list[str], list[int]]:
        """The text split at blanks, as option sets see it, and where each token starts."""
        if self._tokens is None or self._token_starts is None:
            self._tokens = self.text.split(" ")
            offsets: list[int] = []
            at = 0
            for token in self._tokens:
                offsets.append(at)
                at += len(token) + 1
            self._token_starts = offsets
        return self._tokens, self._token_starts

    def subcommand_at(self, git: bool) -> list[int]:
        """For each token, the first at or after it that is not a global option (the
        subcommand `option_form` takes), or the token count."""
        found = self._skips.get(git)
        if found is None:
            tokens, _ = self.tokens()
            n = len(tokens)
            found = [n] * (n + 1)
            for i in range(n - 1, -1, -1):
                word = tokens[i]
                if word.startswith("-") and word != "--":
                    found[i] = (
                        found[min(i + 2, n)] if git and word in GIT_VALUED_GLOBALS else found[i + 1]
                    )
                else:
                    found[i] = i
            self._skips[git] = found
        return found


def tails_of(argv: tuple[str, ...], first: int, stop: int | None = None) -> Tails:
    """argv[k:] for every k from `first` (to `stop`), also under the bare name of a program
    given by path and, for `--opt=VALUE` and `NAME=VALUE`, as VALUE (`--exec=cmd`, `CC=cmd`)."""
    words = [shown(w) for w in argv]
    starts: list[int] = []
    spelled: set[int] = set()
    placed: set[int] = set()
    at = 0
    for k, word in enumerate(words):
        if first <= k < (len(argv) if stop is None else stop):
            name, eq, value = argv[k].partition("=")
            heads = [(at, argv[k])]
            if eq and value:
                heads.append((at + len(name) + 1, value))
            for start, head in heads:
                known = is_literal(head) or any(c not in MARKERS for c in head)
                text = shown(head)
                for offset in (start, start + text.rfind("/") + 1):
                    if offset not in placed:
                        placed.add(offset)
                        starts.append(offset)
                    if known:
                        spelled.add(offset)
        at += len(word) + 1
    return Tails(" ".join(words), tuple(starts), frozenset(spelled))


def first_tail_match(
    rules: RuleSet, tails: Tails, *, unknowns: bool, spelled: bool
) -> TailMatch | None:
    """The first deny, then ask, rule that matches a tail (for each rule, the first tail); with
    `unknowns`, also one the tail's unknown parts could make match (with `spelled`, only tails
    whose first word may spell a program)."""
    if not tails.starts:
        return None
    size = len(tails.starts) + len(tails.text) // _CHARACTERS_PER_STEP
    steps.spend(tails.text.count(" ") // 4)
    for kind in ("deny", "ask"):
        concerned = rules.of(kind, "Bash")
        for rule in concerned:
            steps.spend(size)
            start = _first_exact(rule, tails)
            if start is not None:
                return kind, rule, tails.text[start:], True
        if not unknowns:
            continue
        seeds = _unknown_starts(tails, spelled=spelled)
        if not seeds:
            continue
        text_tokens = _text_tokens(tails.text)
        for rule in concerned:
            if rule.command_tokens:
                start = first_overlap(text_tokens, rule.command_tokens, seeds)
                if start is not None:
                    return kind, rule, tails.text[start:], False
    return None


def _first_exact(rule: Rule, tails: Tails) -> int | None:
    found: list[int] = []
    if rule.regex is not None:
        found += _regex_starts(rule.regex, tails, tails.text)
        if rule.kind != "allow":
            found += _regex_starts(rule.regex, tails, plain(tails.text), plain_text=True)
    elif rule.command is None:
        return tails.starts[0]
    else:
        start = _star_start(ReverseStar(rule.command), tails)
        if start is not None:
            found.append(start)
    if rule.command_options is not None:
        start = _options_start(rule.command_options, tails)
        if start is not None:
            found.append(start)
    return tails.first_of(found)


def _star_start(matcher: ReverseStar, tails: Tails) -> int | None:
    """The first tail start whose suffix the matcher's pattern matches."""
    found: list[int] = []
    end = len(tails.text)
    for start in sorted(tails.starts, reverse=True):
        matcher.prepend(tails.text[start:end])
        end = start
        if matcher.matches():
            found.append(start)
    return tails.first_of(found)


def _options_start(option_rule: OptionRule, tails: Tails) -> int | None:
    """The first tail start whose words, as an option set, `option_rule` matches."""
    tokens, token_starts = tails.tokens()
    n = len(tokens)
    program = option_rule.head[0]
    queries: dict[int, list[int]] = {}
    for start in tails.starts:
        blank = tails.text.find(" ", start)
        head_word = tails.text[start : blank if blank >= 0 else len(tails.text)]
        if head_word.rsplit("/", 1)[-1] != program:
            continue
        rest = n if blank < 0 else bisect_left(token_starts, blank + 1)
        head = (program,)
        if program in SUBCOMMAND_PROGRAMS:
            sub = tails.subcommand_at(program == "git")[rest]
            if sub < n:
                head, rest = (program, tokens[sub]), sub + 1
        if head == option_rule.head:
            queries.setdefault(rest, []).append(start)
    if not queries:
        return None
    aliases = OPTION_ALIASES.get(" ".join(option_rule.head), {})
    wanted = option_rule.options
    every = ReverseStar(option_rule.words)  # all tokens from here: what follows a `--`
    words = every.copy()  # the words (not options) from here to the next `--`, then all
    words_empty, every_empty = True, True
    have: set[str] = set()
    found: list[int] = []
    for i in range(n, -1, -1):
        if i < n:
            token = tokens[i]
            if token == "--":
                words, words_empty, have = every.copy(), every_empty, set()
            elif is_option(token):
                have |= option_atoms(program, token, aliases) & wanted
            else:
                words.prepend(token if words_empty else token + " ")
                words_empty = False
            every.prepend(token if every_empty else token + " ")
            every_empty = False
        if i in queries and have >= wanted and words.matches():
            found += queries[i]
    return tails.first_of(found)


def _regex_starts(
    pattern: re.Pattern[str], tails: Tails, text: str, *, plain_text: bool = False
) -> list[int]:
    """Tail starts where `pattern` is found: searched once from the first tail (a match
    inside a tail is a match in the text), and one anchored at the start tried at each."""
    places = _plain_offsets(tails) if plain_text else {s: s for s in tails.starts}
    ordered = sorted(places.items(), key=lambda item: item[1])
    found: list[int] = []
    match = pattern.search(text, ordered[0][1])
    if match is not None:
        found.append(max((s for s, p in ordered if p <= match.start()), default=ordered[0][0]))
    anchored = _unanchored(pattern)
    if anchored is not None:
        found += [s for s, p in ordered if anchored.match(text, p) is not None]
    return found


def _plain_offsets(tails: Tails) -> dict[int, int]:
    """Each start's offset in `plain(text)`, which drops the unknown-part markers."""
    offsets: dict[int, int] = {}
    wanted = sorted(set(tails.starts))
    dropped, at = 0, 0
    for start in wanted:
        dropped += tails.text.count(DYN, at, start)
        at = start
        offsets[start] = start - dropped
    return offsets


@cache
def _unanchored(pattern: re.Pattern[str]) -> re.Pattern[str] | None:
    """A pattern that starts with `^` or `\\A` without it, to try at each tail's start (a
    search from an offset does not take it for the text's start)."""
    source = pattern.pattern
    flags = re.match(r"\(\?[aiLmsux]+\)", source)
    lead = flags.group(0) if flags else ""
    body = source[len(lead) :]
    for anchor in ("^", "\\A"):
        if body.startswith(anchor):
            try:
                return re.compile(lead + body[len(anchor) :], pattern.flags)
            except re.error:
                return None
    return None


def _unknown_starts(tails: Tails, *, spelled: bool) -> list[int]:
    """Starts whose tail holds an unknown part (the others are matched exactly)."""
    last = max(tails.text.rfind(m) for m in MARKERS)
    return [s for s in tails.starts if s <= last and (not spelled or s in tails.spelled)]


def _text_tokens(text: str) -> tuple[Token, ...]:
    """A command's text as tokens: unknown parts and globs may become any text (a glob can
    expand to several words)."""
    steps.spend(len(text) // 8)
    return tuple(ANY if c in (DYN, STAR_MARK) else ONE if c == ONE_MARK else c for c in text)
