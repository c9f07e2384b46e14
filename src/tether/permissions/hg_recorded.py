"""The files hg records into its history, read as `git add` reads them: `hg add` and
`hg addremove` take every untracked file below their operands (the whole working copy when
none), `hg commit -A/--addremove` (and `amend`, `record`, which take it too) as well, and a
commit records the files it names. A denied `.env` recorded is in the history from then on,
shown by any `hg cat`: each is a recursive read of what it takes (`-I`/`-X` patterns narrow
it only as far as a read of the whole would say)."""

from __future__ import annotations

from collections.abc import Sequence

from tether.permissions.hg_commands import HG_COMMANDS
from tether.permissions.hg_peers import hg_operands
from tether.permissions.option_names import OptionGrammar, first_operand

_PICKS = ("-I", "--include", "-X", "--exclude")
_COMMIT_VALUED = (*_PICKS, "-m", "--message", "-l", "--logfile", "-d", "--date", "-u", "--user")
_ADDERS: tuple[tuple[str, ...], ...] = (("add",), ("addremove",))
"""Commands that add the untracked files they find."""
_COMMITTERS: tuple[tuple[str, ...], ...] = (("commit", "ci"), ("amend",), ("record",))
"""Commands that record the files they name, and with `-A` add the untracked ones first."""


class Recorded:
    """What an hg command records: `words` read recursively (relative to where it runs), or
    the whole working copy (`everything`)."""

    __slots__ = ("everything", "words")

    def __init__(self, words: tuple[str, ...] = (), everything: bool = False) -> None:
        self.words = words
        self.everything = everything


def hg_recorded(args: Sequence[str], grammar: OptionGrammar) -> Recorded:
    """`args` after `hg`; `grammar` hg's global options. A prefix of several commands (hg
    refuses it) is taken as any of them."""
    at = first_operand(args, grammar)
    word = args[at] if at < len(args) else ""
    if not word:
        return Recorded()
    rest = args[at + 1 :]
    options = OptionGrammar(
        (*grammar.names, *_COMMIT_VALUED), grouped=True, prefixes=True, known=grammar.known
    )
    operands = tuple(hg_operands(rest, options))
    adds = _named(word, _ADDERS) or (_named(word, _COMMITTERS) and _addremove(rest, options))
    if adds:
        return Recorded(operands, everything=not operands)
    if _named(word, _COMMITTERS):
        return Recorded(operands)
    return Recorded()


def _named(word: str, table: tuple[tuple[str, ...], ...]) -> bool:
    """Whether `word` names one of `table`'s commands: a command or alias of its own first
    (`co` is checkout, not a prefix of commit), else a prefix."""
    if word in HG_COMMANDS:
        return any(word in names for names in table)
    return any(name.startswith(word) for names in table for name in names)


def _addremove(args: Sequence[str], options: OptionGrammar) -> bool:
    """Whether `-A`/`--addremove` (or a prefix of it, `--addr`) is among the options: a short
    one in a group up to the letter that takes a value (`-Am MSG`, not `-mA`)."""
    i = 0
    while i < len(args):
        arg = args[i]
        i += 1
        if arg == "--":
            return False
        if arg.startswith("--"):
            name = arg.partition("=")[0]
            if len(name) > 3 and "--addremove".startswith(name):
                return True
            if "=" not in arg and any(n.startswith(name) for n in options.names if n[:2] == "--"):
                i += 1  # its value
            continue
        if arg[:1] != "-" or arg == "-":
            continue
        for at in range(1, len(arg)):
            if arg[at] == "A":
                return True
            if "-" + arg[at] in options.names:
                i += 0 if arg[at + 1 :] else 1
                break
    return False
