"""The names a search prints when it only lists files (`grep -l`, `grep -L`, `rg -l`, `rg
--files`): some of the files below the one path it searches, each printed from that path
(`src/a.py`, `./a.py`), or bare below the working directory when `grep -r`/`rg` is given no
path. Fed to `xargs CMD` (pipeline_inputs.py), CMD's added words are those files
(script.Produced, judged from the disk by produced_paths.py), not "anything": `grep -rl foo
src | xargs sed -i s/a/b/` writes files below `src` (asked like any write; denied where a
deny rule covers one of them), where an unknown word could have been an option that runs a
program. The set judged is a superset of what is printed (every name below the path, hidden
and ignored ones too, filters such as `--exclude` not applied): more is asked, never less.

Only plain listing options are understood; any other option, several paths, a path known
only as it runs, or reading the input (no path, not recursive) leaves the names unknown.
"""

from __future__ import annotations

from pathlib import PurePosixPath

from tether.permissions.script import Invocation, Produced
from tether.permissions.shell_words import DYN, ONE, STAR, is_literal, program_name

_GREPS = frozenset({"grep", "egrep", "fgrep"})
_GREP_LISTING = frozenset({"-l", "-L", "--files-with-matches", "--files-without-match"})
_GREP_LETTERS = frozenset("lLEFGPiywxsIrRZ")
"""Short flags that leave grep printing only whole file names, one a line (`-Z`: NUL
after each)."""
_GREP_LONG = frozenset(
    {"--extended-regexp", "--fixed-strings", "--basic-regexp", "--perl-regexp"}
    | {"--ignore-case", "--no-ignore-case", "--word-regexp", "--line-regexp"}
    | {"--no-messages", "--recursive", "--dereference-recursive", "--null"}
    | _GREP_LISTING
)
_GREP_VALUED = frozenset({"-e", "--regexp", "--include", "--exclude", "--exclude-dir"})
_RG_LISTING = frozenset({"-l", "--files-with-matches", "--files"})
_RG_LETTERS = frozenset("liSsFwx0L.u")
_RG_LONG = frozenset(
    {"--ignore-case", "--smart-case", "--case-sensitive", "--fixed-strings", "--word-regexp"}
    | {"--line-regexp", "--hidden", "--no-ignore", "--no-ignore-vcs", "--null", "--follow"}
    | _RG_LISTING
)
_RG_VALUED = frozenset({"-e", "--regexp"})


def listed_matches(producer: Invocation) -> Produced | None:
    """The files `producer` prints, when it is a search that only lists files below one
    path (module docstring); None otherwise."""
    argv = producer.argv
    if producer.role != "command" or not argv or producer.inner or producer.redirects:
        return None
    if producer.assignments or not is_literal(argv[0]):
        return None
    name = program_name(argv[0])
    if name in _GREPS:
        return _grep(argv[1:])
    if name == "rg":
        return _rg(argv[1:])
    return None


def _grep(words: tuple[str, ...]) -> Produced | None:
    parsed = _parse(words, _GREP_LETTERS, _GREP_LONG, _GREP_VALUED)
    if parsed is None:
        return None
    flags, values, places = parsed
    if not flags & _GREP_LISTING:
        return None
    if not any(key in ("-e", "--regexp") for key, _ in values):
        if not places:
            return None
        places = places[1:]  # the pattern
    recursive = bool(flags & {"-r", "-R", "--recursive", "--dereference-recursive"})
    includes = [value for key, value in values if key == "--include"]
    return _below(
        places,
        recursive=recursive,
        name=includes[0] if len(includes) == 1 else "*" if not includes else None,
        follows=bool(flags & {"-R", "--dereference-recursive"}),
        nulls=bool(flags & {"-Z", "--null"}),
    )


def _rg(words: tuple[str, ...]) -> Produced | None:
    parsed = _parse(words, _RG_LETTERS, _RG_LONG, _RG_VALUED)
    if parsed is None:
        return None
    flags, values, places = parsed
    if not flags & _RG_LISTING:
        return None
    if "--files" not in flags and not any(key in ("-e", "--regexp") for key, _ in values):
        if not places:
            return None
        places = places[1:]  # the pattern
    return _below(
        places,
        recursive=True,
        name="*",
        follows=bool(flags & {"-L", "--follow"}),
        nulls=bool(flags & {"-0", "--null"}),
    )


def _parse(
    words: tuple[str, ...],
    letters: frozenset[str],
    long: frozenset[str],
    valued: frozenset[str],
) -> tuple[set[str], list[tuple[str, str]], list[str]] | None:
    """Flags, valued options and positional words, as getopt reads them (options anywhere
    before `--`); None for an option not in the tables or a word known only as it runs."""
    flags: set[str] = set()
    values: list[tuple[str, str]] = []
    places: list[str] = []
    i = 0
    while i < len(words):
        word = words[i]
        i += 1
        if DYN in word:
            return None
        if word == "--":
            places += words[i:]
            break
        if word.startswith("--"):
            key, eq, value = word.partition("=")
            if key in valued:
                if not eq:
                    if i >= len(words):
                        return None
                    value, i = words[i], i + 1
                values.append((key, value))
            elif key in long and not eq:
                flags.add(key)
            else:
                return None
        elif word.startswith("-") and len(word) > 1:
            for k, letter in enumerate(word[1:], start=1):
                option = f"-{letter}"
                if option in valued:
                    value = word[k + 1 :]
                    if not value:
                        if i >= len(words):
                            return None
                        value, i = words[i], i + 1
                    values.append((option, value))
                    break
                if letter not in letters:
                    return None
                flags.add(option)
        else:
            places.append(word)
    return flags, values, places


def _below(
    places: list[str], *, recursive: bool, name: str | None, follows: bool, nulls: bool
) -> Produced | None:
    """Every name below the one searched path, as a superset of what the search prints."""
    if name is None or len(places) > 1 or not is_literal(name):
        return None
    if not places:
        # With no path, `grep -r` and `rg` search the working directory and print names
        # below it bare: a top-level name starting with `-` is then not known
        # (produced_paths: a name xargs would take for an option).
        return Produced(".", name, deep=True, dots=True, blanks=not nulls, follows=follows)
    place = places[0]
    if DYN in place:
        return None
    if is_literal(place) and recursive:
        return Produced(place, name, deep=True, dots=True, blanks=not nulls, follows=follows)
    # A file, or a glob in its last part (`src/*.py`): a name below its directory.
    path = PurePosixPath(place)
    top = path.parent.as_posix()
    if not is_literal(top) or not path.name:
        return None
    # Characters fnmatch reads as a pattern are the name's own here: escaped.
    pattern = "".join(
        "*" if c == STAR else "?" if c == ONE else f"\\{c}" if c in "*?[\\" else c
        for c in path.name
    )
    if recursive:
        return None  # a glob searched recursively: any name below what it matches
    return Produced(top, pattern, deep=True, dots=True, blanks=not nulls, follows=follows)
