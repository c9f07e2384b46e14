"""The files a direnv `.envrc` loads: what the user's shell runs or exports, outside the
sandbox, at the next `cd` into the directory, for the `.envrc` that `direnv allow` approved.
direnv's approval covers the `.envrc`'s own content only, so a file it loads is as much a
start-up file as the `.envrc` itself: one that exists is bound read-only (`bwrap.py`), one
that is missing (`source_env_if_exists .envrc.local`, a common local override) is swept when a
command makes it (`start_sweep.py`), as the git config files an include names are.

Read from the `.envrc` (and, in turn, from what it loads, `MAX_CHAIN` deep) as words, without
running it: direnv's `source_env`, `source_env_if_exists` (a file, or a directory's
`.envrc`), `dotenv`, `dotenv_if_exists` (`.env` by default: its variables are exported into
the user's shell, `BASH_ENV` and `PATH` among them), `source_up`'s files are the parents'
`.envrc`s (guarded there), and the shell's own `source` and `.`. A word with an expansion
(`$HOME/x`, `$(...)`) names no fixed file and is passed by: the `.envrc` itself is read-only,
so what it computes is the user's.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Iterable
from pathlib import Path

from tether.sandbox.nofollow import read_regular_file
from tether.sandbox.protected import Protected

LOADERS = frozenset(
    {"source_env", "source_env_if_exists", "dotenv", "dotenv_if_exists", "source", "."}
)
"""The commands whose first argument is a file the `.envrc` runs or exports."""
_DEFAULT = {"dotenv": ".env", "dotenv_if_exists": ".env"}
_PUNCTUATION = frozenset(";&|(){}")
_KEYWORDS = frozenset({"then", "else", "do", "!", "if", "elif", "while", "until", "{"})
ENVRC_LOADS = Protected("", False, None, "a file a .envrc loads (direnv runs it outside)")
"""Bound read-only where it exists; swept where a command makes it."""
MAX_ENVRC = 256 * 1024
MAX_CHAIN = 4
"""How many loads deep a chain is followed (`.envrc` → `.envrc.local` → ...)."""


def loaded_by(envrc: str) -> list[str]:
    """The files `envrc` names to load, as absolute paths (relative to its directory)."""
    data = read_regular_file(Path(envrc), MAX_ENVRC)
    if data is None:
        return []
    here = os.path.dirname(envrc)
    found: list[str] = []
    for line in data.decode("utf-8", "replace").splitlines():
        found += _loaded_on(line, here)
    return found


def _loaded_on(line: str, here: str) -> list[str]:
    lexer = shlex.shlex(line, posix=True, punctuation_chars=";&|()")
    lexer.whitespace_split = True
    lexer.commenters = "#"
    try:
        words = list(lexer)
    except ValueError:  # an unclosed quote: a string over lines, no command here
        return []
    found: list[str] = []
    start = True
    for index, word in enumerate(words):
        if set(word) <= _PUNCTUATION:
            start = True
            continue
        if start and word in LOADERS:
            following = words[index + 1] if index + 1 < len(words) else None
            if following is None or set(following) <= _PUNCTUATION:
                following = _DEFAULT.get(word)
            if following and "$" not in following and "`" not in following:
                path = os.path.normpath(os.path.join(here, os.path.expanduser(following)))
                if word.startswith("source_env") and os.path.isdir(path):
                    path = os.path.join(path, ".envrc")
                found.append(path)
        start = word in _KEYWORDS
    return found


def envrc_loads(envrcs: Iterable[str]) -> list[str]:
    """What the `.envrc` files `envrcs` load, following chains `MAX_CHAIN` deep."""
    found: dict[str, None] = {}
    pending = [(path, 0) for path in envrcs]
    while pending:
        path, depth = pending.pop()
        if depth >= MAX_CHAIN:
            continue
        for loaded in loaded_by(path):
            if loaded not in found:
                found[loaded] = None
                pending.append((loaded, depth + 1))
    return list(found)
