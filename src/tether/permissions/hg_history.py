"""What an hg command prints of what hg's history holds, and the files it copies: hg's
counterpart of git_history. tether cannot look into hg's store as it does into git's, so a
command printing history content (patches: `log -p`, `export`, `diff`, `email`, `qdiff`,
`shelve -p`, a `{diff}` template; whole files: `archive`, `bundle`, `debugdata`, `grep`, and
`cat`/`annotate` of anything but plain paths: `path:`, `glob:`, `re:`, `set:`, `listfile:`
patterns, `.`) is asked wherever a Read deny rule exists (git_history_check). `cp`/`mv`
copy the working file, so their sources are reads (`hg cp .env notes.txt`)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from tether.permissions.hg_peers import hg_operands
from tether.permissions.option_names import OptionGrammar, first_operand, option_pairs
from tether.slotted import Slotted

_ALWAYS = (
    "export",
    "archive",
    "bundle",
    "email",
    "qdiff",
    "debugdata",
    "grep",
    "diff",
    "debugindex",
    "debugbundle",
    "unbundle",
)
"""Commands printing what history holds, whatever the options (hg takes a prefix)."""
_PATCH_OPTIONS = ("log", "history", "shelve", "unshelve", "incoming", "outgoing", "tip")
"""Commands printing a patch with `-p`/`--patch` or a template naming `diff`."""
_FILE_PRINTERS = ("cat", "annotate", "blame")
"""Commands printing whole files: plain paths are judged as reads (hg_files); anything else
may name any file history holds."""
_COPIES = ("copy", "cp", "move", "mv", "rename")
_VALUED = (
    *("-r", "--rev", "-I", "--include", "-X", "--exclude", "-T", "--template", "--style"),
    *("-o", "--output", "-l", "--limit", "-u", "--user", "-d", "--date", "-k", "--keyword"),
    *("-b", "--branch", "-B", "--bookmark", "--at-rev", "-L", "--line-range", "--skip"),
    *("-m", "--message", "-n", "--name"),
)


_CONTENT_SET = re.compile(r"set:.*\b(grep|encoding|eol|binary|size)\b", re.S)
"""A fileset reading what files hold (`'set:grep(KEY=a)'`, also inside a revset's `file()`):
the files it lists tell what each file it can match holds, a read of each."""


class HgHistory(Slotted):
    """Whether an hg command prints what history holds, and the files it copies."""

    __slots__ = ("copied", "prints")
    prints: bool
    copied: tuple[str, ...]

    def __init__(self, prints: bool, copied: tuple[str, ...]) -> None:
        self.prints = prints
        self.copied = copied


def hg_history(args: Sequence[str], grammar: OptionGrammar) -> HgHistory:
    """`args` after `hg`; `grammar` hg's global options (vcs_programs)."""
    at = first_operand(args, grammar)
    word = args[at] if at < len(args) else ""
    if not word:
        return HgHistory(False, ())
    options = OptionGrammar(
        (*grammar.names, *_VALUED), grouped=True, prefixes=True, known=grammar.known
    )
    rest = args[at + 1 :]
    pairs = option_pairs(rest, options)
    operands = hg_operands(rest, options)

    def named(names: Sequence[str]) -> bool:  # hg takes any unambiguous prefix of a command
        return any(name.startswith(word) for name in names)

    prints = named(_ALWAYS) or any(_CONTENT_SET.search(w) for w in rest)
    if named(_PATCH_OPTIONS):
        patch = any(w == "-p" or _patch_prefix(w) or _short_group_has(w, "p") for w in rest)
        template = any(o in ("-T", "--template", "--style") and "diff" in v for o, v in pairs)
        prints = prints or patch or template
    if named(_FILE_PRINTERS):
        prints = prints or not operands or not all(_plain(w) for w in operands)
    copied = tuple(operands[:-1]) if named(_COPIES) and len(operands) > 1 else ()
    return HgHistory(prints, copied)


def _patch_prefix(word: str) -> bool:
    """`--patch` or a prefix of it (`--pat`): hg reads long options with getopt, which takes
    a unique prefix; an ambiguous one (`--p`, also `--prune`) fails, so it counts too."""
    return len(word) > 3 and "--patch".startswith(word)


def _short_group_has(word: str, letter: str) -> bool:
    """`-vp`: short flags grouped, one of them `letter` (up to the first taking a value:
    `-rtip` is `-r tip`)."""
    if not word.startswith("-") or word.startswith("--"):
        return False
    for char in word[1:]:
        if char == letter:
            return True
        if f"-{char}" in _VALUED:
            return False
    return False


def _plain(word: str) -> bool:
    """A path hg reads as that file alone: no pattern kind (`glob:`), wildcard, or `.`."""
    stripped = word.removeprefix("./").rstrip("/")
    parts = stripped.split("/")
    if not stripped or ":" in word or any(c in word for c in "*?[{"):
        return False
    return not any(part in ("", ".", "..") for part in parts)
