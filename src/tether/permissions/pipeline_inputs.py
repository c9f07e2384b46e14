"""Words a command reads from the one before it in a pipeline, when that one only lists names:
`ls [DIR] | xargs CMD` runs CMD on the names in DIR (no dotfile without `-A`), each read
from where CMD runs, as ls prints them bare; `ls DIR/GLOB | xargs CMD` on the files the glob
matches, as matched (a directory among them is listed instead: not known);
`find START -name GLOB [-type T] | xargs CMD` on the paths below START whose names match (as
`find -exec` is judged; `-print0 | xargs -0` too); `grep -l`/`-L` and `rg -l`/`--files` on
the files below one path (listed_matches.py). The words xargs adds (or puts for `-I{}`'s
`{}`) are then those names (script.Produced, judged from the disk by produced_paths.py)
instead of anything. Any other producer, ls option or xargs option that changes how its
input is split leaves them unknown.
"""

from __future__ import annotations

from dataclasses import replace

from tether.permissions.listed_matches import listed_matches
from tether.permissions.runners import XARGS, found_paths
from tether.permissions.script import Invocation, Produced
from tether.permissions.shell_words import DYN, HOME, ONE, STAR, is_literal, program_name
from tether.permissions.wrapper_options import parse_options

_LS_FLAGS = frozenset({"-1", "-A", "--almost-all"})
"""ls options that leave its output one bare name a line (`-A`: dotfiles but `.` and `..`)."""
_XARGS_PLAIN = frozenset({"-r", "--no-run-if-empty", "-t", "--verbose", "-n", "--max-args"}) | {
    *("-I", "-i", "--replace", "-L", "--max-lines", "-P", "--max-procs", "-x", "--exit"),
    *("-s", "--max-chars"),
}
"""xargs options that keep each input word one argument, split at blanks (`-I`/`-L`: at
newlines, fewer splits; a name holding a blank is not known either way), or change only how
many run at once and how long a line may be."""
_XARGS_NULL = frozenset({"-0", "--null"})
"""xargs options that split its input at NULs only (after `find -print0`)."""


def with_listed_input(producer: Invocation, consumer: Invocation) -> Invocation | None:
    """`consumer` (xargs) with its added words known as the names `producer` (ls) prints, or
    None when they are not known so."""
    listed = _ls_names(producer) or _find_names(producer) or listed_matches(producer)
    if listed is None or not consumer.argv or program_name(consumer.argv[0]) != "xargs":
        return None
    if consumer.role != "wrapper" or len(consumer.inner) != 1:
        return None
    parsed = parse_options(consumer.argv[1:], XARGS)
    if isinstance(parsed, str):
        return None
    nulls = {name for name, _ in parsed.options} & _XARGS_NULL
    if any(name not in _XARGS_PLAIN | _XARGS_NULL for name, _ in parsed.options):
        return None
    if bool(nulls) != (listed.blanks is False):  # `-print0 | xargs -0`, or neither
        return None
    return replace(consumer, inner=(replace(consumer.inner[0], produced=listed),))


def _ls_names(producer: Invocation) -> Produced | None:
    argv = producer.argv
    if producer.role != "command" or not argv or argv[0] != "ls" or producer.inner:
        return None
    if producer.redirects or producer.assignments:
        return None
    words = argv[1:]
    options = [word for word in words if word.startswith("-")]
    if not all(is_literal(word) for word in options):
        return None
    places = [word for word in words if not word.startswith("-")]
    if any(option not in _LS_FLAGS for option in options) or len(places) > 1:
        return None
    dots = any(option in ("-A", "--almost-all") for option in options)
    start = places[0] if places else "."
    if not is_literal(start):
        return _ls_glob(start)
    return Produced(start, "*", deep=False, dots=dots, blanks=True)


def _ls_glob(word: str) -> Produced | None:
    """`ls DIR/GLOB`: the files the glob matches, printed as matched (`src/a.py`); only a
    glob in the last part, `*` and `?` (a bracket expression is read as `?`: more names,
    never fewer), with a literal directory before it."""
    directory, _, last = word.rpartition("/")
    if DYN in word or HOME in word or not is_literal(directory or "."):
        return None
    pattern = "".join(
        "*" if c == STAR else "?" if c == ONE else f"\\{c}" if c in "*?[\\" else c for c in last
    )
    start = directory if directory or not word.startswith("/") else "/"
    return Produced(
        start or ".", pattern, deep=False, dots=last.startswith("."), blanks=True, paths=True
    )


def _find_names(producer: Invocation) -> Produced | None:
    """`find START [-name GLOB] [-type T] [-print]`: the paths it prints, one a line, each
    split at blanks by xargs (a name holding one is not known)."""
    argv = producer.argv
    if producer.role != "command" or not argv or argv[0] != "find" or producer.inner:
        return None
    if producer.redirects or producer.assignments or not all(is_literal(w) for w in argv):
        return None
    words = argv[1:]
    starts: list[str] = []
    while words and not words[0].startswith(("-", "(", "!")):
        starts.append(words[0])
        words = words[1:]
    expression = tuple(word for word in words if word not in ("-print", "-print0"))
    found = found_paths(starts, expression)
    # `-print0` ends each name with a NUL, for `xargs -0`: no name is split.
    return replace(found, blanks="-print0" not in words) if found is not None else None
