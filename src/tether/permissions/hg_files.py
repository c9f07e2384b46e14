"""The files hg reads or writes by name, as svn's are (vcs_programs): `hg cat FILE`, `hg diff
FILE`, `hg annotate FILE`, `hg grep PATTERN FILE` read the file or what the history holds of
it (a read as `git show HEAD:FILE` is), their `-I/--include` patterns too; `hg cat -o OUT` and
`hg export -o OUT` write OUT (its `%s`/`%d`/`%p` the names of the files printed, a template
or a file of a pattern or directory any name); the files other commands open by
an option or operand (hg_named_files: `email --desc FILE`, `commit -l FILE`, `import PATCH`,
`serve --accesslog FILE`, `debugcreatestreamclonebundle OUT`...); a debugging command none of
the tables knows is not understood (asked)."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping, Sequence
from functools import partial

from tether.permissions.file_urls import local_url_path
from tether.permissions.hg_commands import UNKNOWN_COMMAND, command_known
from tether.permissions.hg_named_files import (
    CONFIGURED,
    KEEPS_THE_COPY,
    NAMED,
    PATCHERS,
    TREE_DELETERS,
    UNKNOWN_DEBUG,
    debug_known,
)
from tether.permissions.hg_peers import hg_operands
from tether.permissions.option_names import OptionGrammar, first_operand, option_pairs
from tether.permissions.shell_words import DYN, is_literal
from tether.slotted import Slotted

_PATTERNS = ("-I", "--include", "-X", "--exclude")
_TEMPLATE = ("-T", "--template")
_REVS = ("-r", "--rev")
_OUTPUT = ("-o", "--output")
_COMMANDS: Mapping[tuple[str, ...], tuple[str, ...]] = {
    ("cat",): (*_OUTPUT, *_REVS, *_PATTERNS, *_TEMPLATE),
    ("diff",): (
        *_REVS,
        "--from",
        "--to",
        "-c",
        "--change",
        "-U",
        "--unified",
        "--root",
        *_PATTERNS,
    ),
    ("annotate", "blame"): (*_REVS, "--skip", "-L", "--line-range", *_PATTERNS, *_TEMPLATE),
    ("grep",): (*_REVS, *_TEMPLATE, *_PATTERNS),
    ("export",): ("-B", "--bookmark", *_OUTPUT, *_REVS, *_TEMPLATE),
}
"""hg commands naming files, by their names and aliases, with the options of each that take a
value as `hg help -v CMD` lists them (the rest are flags)."""
_SKIPPED: Mapping[str, int] = {"grep": 1, "export": -1}
"""The operands before the files: grep's pattern; export's are all revisions."""


class HgFiles(Slotted):
    """The working-copy files an hg command line reads and writes, as written."""

    __slots__ = ("asks", "reads", "rewrites_tree", "unseen", "writes")
    reads: tuple[str, ...]
    writes: tuple[str, ...]
    unseen: tuple[str, ...]
    asks: tuple[str, ...]
    """Why it runs what hg's configuration names (`hg fix`)."""
    rewrites_tree: str
    """Why it deletes files of the working copy it does not name (`hg purge`); empty when
    it does not."""

    def __init__(
        self,
        reads: tuple[str, ...],
        writes: tuple[str, ...],
        unseen: tuple[str, ...] = (),
        asks: tuple[str, ...] = (),
        rewrites_tree: str = "",
    ) -> None:
        self.reads = reads
        self.writes = writes
        self.unseen = unseen
        self.asks = asks
        self.rewrites_tree = rewrites_tree


def hg_files(args: Sequence[str], grammar: OptionGrammar) -> HgFiles:
    """`args` after `hg`; `grammar` hg's global options (vcs_programs). hg takes any
    unambiguous prefix of a command (`ann`); a prefix of several is taken as any of them."""
    at = first_operand(args, grammar)
    word = args[at] if at < len(args) else ""
    reads: list[str] = []
    writes: list[str] = []
    for names, valued in _COMMANDS.items():
        if not word or not any(name.startswith(word) for name in names):
            continue
        options = OptionGrammar(
            (*grammar.names, *valued), grouped=True, prefixes=True, known=grammar.known
        )
        rest = args[at + 1 :]
        skipped = _SKIPPED.get(names[0], 0)
        pairs = option_pairs(rest, options)
        if skipped >= 0:
            reads += hg_operands(rest, options)[skipped:]
            reads += [value for option, value in pairs if option in ("-I", "--include")]
        printed = hg_operands(rest, options)[max(skipped, 0) :] if skipped >= 0 else []
        writes += [
            name
            for option, value in pairs
            if option in _OUTPUT
            for name in output_names(value, printed)
        ]
    for names, named in NAMED.items():
        if not word or not any(name.startswith(word) for name in names):
            continue
        options = OptionGrammar(
            (*grammar.names, *named.valued, *named.reads, *named.writes),
            flags=named.flags,
            grouped=True,
            prefixes=True,
            known=grammar.known,
        )
        rest = args[at + 1 :]
        operands = hg_operands(rest, options)
        pairs = option_pairs(rest, options)
        reads += [value for option, value in pairs if option in named.reads]
        writes += [value for option, value in pairs if option in named.writes]
        reads += [p for w in operands[slice(*named.read_operands)] if (p := _opened(w))]
        writes += operands[slice(*named.write_operands)]
    asks: list[str] = []
    for names, (flags, why) in CONFIGURED.items():
        if word and any(name.startswith(word) for name in names):
            grammar = OptionGrammar(flags, flags=flags, grouped=True, prefixes=True)
            if not flags or option_pairs(args[at + 1 :], grammar):
                asks.append(why)
    rewrites = next(
        (
            f"hg {names[0]} {does}"
            for names, does in TREE_DELETERS.items()
            if word and any(name.startswith(word) for name in names)
        ),
        "",
    ) or _patches(word, args[at + 1 :])
    unseen: tuple[str, ...] = ()
    if word.startswith("debug") and not debug_known(word):
        unseen = (UNKNOWN_DEBUG,)
    elif word and is_literal(word) and not word.startswith("debug") and not command_known(word):
        unseen = (UNKNOWN_COMMAND,)
    return HgFiles(
        tuple(dict.fromkeys(reads)), tuple(dict.fromkeys(writes)), unseen, tuple(asks), rewrites
    )


def _patches(word: str, rest: Sequence[str]) -> str:
    """Why `hg WORD REST...` writes the working copy's files from patches; empty if not."""
    if not word or any(len(w) > 3 and o.startswith(w) for w in rest for o in KEEPS_THE_COPY):
        return ""
    for names, does in PATCHERS.items():
        name = next((n for n in names if n.startswith(word)), None)
        if name is not None and len(word) >= 2:
            return f"hg {name} {does}"
    return ""


_SCHEME = re.compile(r"[a-z][a-z0-9+.-]*:", re.I)


def _opened(word: str) -> str | None:
    """The file hg opens for a bundle, patch or download operand (`hg.openpath`): a `file:`
    URL is its path, another URL is fetched (nothing here), `-` is the input."""
    if word == "-":
        return None
    if word[:5].lower() == "file:":
        return local_url_path(word)
    return None if is_literal(word) and _SCHEME.match(word) and "/" in word else word


_SPEC = re.compile(r"%(.)")
_MATCHER = re.compile(r"(?:(?:rel|root)?(?:path|glob|re)|listfile0?|set|include|subinclude):")


def output_names(template: str, printed: Sequence[str]) -> list[str]:
    """The files `hg cat -o TEMPLATE FILE...` writes (`hg help cat`): one per file printed,
    `%s` its base name, `%d` its directory, `%p` its path from the root; `%H`, `%R`, `%h`,
    `%r`, `%b`, `%n`, `%N`, `%m` a name of hg's making with no `/` in it; `-` the output. A
    `{...}` template, or a file a pattern or directory (a name without a suffix) picks, may
    be any name (`DYN`)."""
    if template == "-":
        return []
    if "{" in template:
        return [DYN]
    if not any(m.group(1) in "sdp" for m in _SPEC.finditer(template)):
        return [_SPEC.sub(_fixed, template)]
    return [_SPEC.sub(partial(_named, word=word), template) for word in printed or [DYN]]


def _fixed(spec: re.Match[str]) -> str:
    return "%" if spec.group(1) == "%" else "x"


def _named(spec: re.Match[str], *, word: str) -> str:
    kind = spec.group(1)
    if kind not in "sdp":
        return _fixed(spec)
    if not is_literal(word) or _MATCHER.match(word) or any(c in word for c in "*?[{"):
        return DYN
    path = posixpath.normpath(word)
    # A directory prints every file below it (`hg cat -o %p src`): a name with no suffix may
    # be one, and a path out of the repository is named by hg from its root.
    if path.startswith(("..", "/")) or "." not in posixpath.basename(path).strip("."):
        return DYN
    if kind == "s":
        return posixpath.basename(path)
    if kind == "d":
        return posixpath.dirname(path) or "."
    return path
