"""hg's commands that discard uncommitted work, as the `rm -r -f` of what they discard (as
git's are: git_discarders), so a deny or ask rule on `rm` holds for them too (equivalents.py):
`revert` with `-C`/`--no-backup` (no `.orig` copy kept) of the files it names, or of the
whole working copy with `-a`/`--all`; `update`/`checkout` with `-C`/`--clean`, the whole
working copy. And the commands that rewrite history (`strip`, `rollback`, `histedit`,
`rebase`, `commit --amend`, `amend`, `uncommit`, `prune`, `qrefresh`...), as each of them:
a rule on one holds for all. hg takes any unambiguous prefix of a command and of a long
option, and packs short flags (`-aC`)."""

from __future__ import annotations

from collections.abc import Sequence

from tether.permissions.deleting_equivalents import Equivalent
from tether.permissions.hg_peers import hg_operands
from tether.permissions.option_names import OptionGrammar, first_operand, option_pairs
from tether.permissions.shell_words import readable

Argv = tuple[str, ...]

_REVERT_VALUED = ("-r", "--rev", "-d", "--date", "-I", "--include", "-X", "--exclude")
_REVERT_FLAGS = ("-a", "--all", "-C", "--no-backup", "-i", "--interactive", "-n", "--dry-run")
_UPDATE_VALUED = ("-r", "--rev", "-d", "--date", "-t", "--tool")
_UPDATE_FLAGS = ("-C", "--clean", "-c", "--check", "-m", "--merge")
_REWRITERS = (
    *("strip", "rollback", "histedit", "rebase", "amend", "uncommit", "prune", "fold"),
    *("qrefresh", "qfold", "qpop", "qdelete", "split", "absorb", "debugstrip"),
)
"""Commands that take commits away or replace them (`hg help` and its shipped extensions)."""
FORMS: tuple[Argv, ...] = (*((name,) for name in _REWRITERS), ("commit", "--amend"))
"""The history-rewriting commands rules name, each tried with the command's own words."""


def hg_equivalent(argv: Argv, grammar: OptionGrammar) -> Equivalent | None:
    """The `rm` an hg command does the work of by discarding, or the history rewriters a
    rewriting command is among; None for another command. `grammar`: hg's global options."""
    args = argv[1:]
    at = first_operand(args, grammar)
    if at >= len(args):
        return None
    word, rest = args[at], args[at + 1 :]
    if word in ("revert",) or (len(word) >= 3 and "revert".startswith(word)):
        return _revert(rest, grammar)
    if word in ("update", "up", "checkout", "co") or (len(word) >= 2 and "update".startswith(word)):
        options = _options(rest, grammar, _UPDATE_VALUED, _UPDATE_FLAGS)
        if options & {"-C", "--clean"} and not options & {"-c", "--check"}:
            return _discards(["."], f"`hg {readable(word)} --clean`")
        return None
    return _rewriting(argv, at + 1, word, rest, grammar)


def _revert(rest: Argv, grammar: OptionGrammar) -> Equivalent | None:
    options = _options(rest, grammar, _REVERT_VALUED, _REVERT_FLAGS)
    if not options & {"-C", "--no-backup"} or options & {"-n", "--dry-run"}:
        return None  # without them hg keeps each file's changes in FILE.orig
    grammar = _grammar(grammar, _REVERT_VALUED, _REVERT_FLAGS)
    named = hg_operands(rest, grammar)
    whole = options & {"-a", "--all"} or not named
    return _discards(["."] if whole else named, "`hg revert --no-backup`")


def _rewriting(
    argv: Argv, at: int, word: str, rest: Argv, grammar: OptionGrammar
) -> Equivalent | None:
    amends = any(w == "--amend" or (len(w) > 4 and "--amend".startswith(w)) for w in rest)
    commits = word in ("commit", "ci") or (len(word) >= 3 and "commit".startswith(word))
    rewriter = next((name for name in _REWRITERS if name.startswith(word)), None)
    if word.startswith("debug") and word != "debugstrip":
        rewriter = None
    if not (commits and amends) and (rewriter is None or len(word) < 2):
        return None
    head = argv[:at]
    forms = tuple((*head, *form, *rest) for form in FORMS)
    shown = "commit --amend" if commits else readable(word)
    return Equivalent(forms, f"`hg {shown}` rewrites what the repository's history shows")


def _options(
    rest: Sequence[str], grammar: OptionGrammar, valued: tuple[str, ...], flags: tuple[str, ...]
) -> set[str]:
    found = {option for option, _ in option_pairs(rest, _grammar(grammar, valued, flags))}
    for word in rest:
        if word == "--":
            break
        if word.startswith("-") and not word.startswith("--"):
            found |= _packed(word[1:], valued, flags)
    return found


def _packed(letters: str, valued: tuple[str, ...], flags: tuple[str, ...]) -> set[str]:
    """The flags of one packed short word (`-aC`), up to a letter taking a value."""
    found: set[str] = set()
    for letter in letters:
        if f"-{letter}" in valued:
            break
        if f"-{letter}" in flags:
            found.add(f"-{letter}")
    return found


def _grammar(
    grammar: OptionGrammar, valued: tuple[str, ...], flags: tuple[str, ...]
) -> OptionGrammar:
    return OptionGrammar(
        (*grammar.names, *valued, *flags),
        flags=flags,
        grouped=True,
        prefixes=True,
        known=grammar.known,
    )


def _discards(paths: list[str], what: str) -> Equivalent:
    """The `rm -r -f` of what `what` discards (a name alone does not say file or tree)."""
    where = "the whole working copy" if paths == ["."] else ", ".join(map(readable, paths))
    does = f"{what} discards the uncommitted changes and files in {where}"
    return Equivalent((("rm", "-r", "-f", "--", *paths),), does)
