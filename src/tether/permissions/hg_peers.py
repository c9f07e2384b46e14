"""The repositories hg opens besides the one it runs in, and the directory it runs in: a local
peer (`hg pull SRC`, `push DEST`, `incoming`, `outgoing`, `identify`, `fetch`, `clone SRC
[DEST]`, `share SRC [DEST]`, `bundle FILE DEST`: a path, or a `file:` or `bundle:` URL) is
opened as a local repository, its `.hg/hgrc` loaded and its hooks run (`preoutgoing` on the
source of a pull, `changegroup` on the destination of a push); and with no `-R` nor `--cwd`,
hg reads the repository it finds from where it runs (`cd DIR && hg status`). Names of
`[paths]` (`default`, `upstream`) are read as paths where hg runs: inside the workspace when
it runs there. What they write besides (`clone SRC DEST`, `init DIR`, `archive DEST`,
`bundle FILE`, `incoming --bundle FILE`) is a write of that path."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Final

from tether.permissions.file_urls import local_url_path, url_host
from tether.permissions.option_names import OptionGrammar, first_operand, option_values
from tether.permissions.shell_words import is_literal
from tether.slotted import Slotted

_REMOTE_OPTIONS = ("-e", "--ssh", "--remotecmd")
_REVS = ("-r", "--rev")
_PATTERNS = ("-I", "--include", "-X", "--exclude")
_COMMIT = ("-d", "--date", "-u", "--user")
_LISTING = ("-l", "--limit", "-T", "--template", "--style")
_PEER_COMMANDS: Mapping[tuple[str, ...], tuple[str, ...]] = {
    # The rebase extension's `pull --rebase -t TOOL`.
    ("pull",): (*_REMOTE_OPTIONS, *_REVS, "-b", "--branch", "-B", "--bookmark", "-t", "--tool"),
    ("push",): (*_REMOTE_OPTIONS, *_REVS, "-b", "--branch", "-B", "--bookmark", "--pushvars"),
    ("incoming", "in"): (*_REMOTE_OPTIONS, *_REVS, "-b", "--branch", *_LISTING, "--bundle"),
    ("outgoing", "out"): (*_REMOTE_OPTIONS, *_REVS, "-b", "--branch", *_LISTING),
    # identify's `-n -i -b -t -B` are flags (`hg id -b PEER`: PEER is its operand).
    ("identify", "id"): (*_REMOTE_OPTIONS, *_REVS, "-T", "--template"),
    ("fetch",): (*_REMOTE_OPTIONS, *_REVS, "-m", "--message", "-l", "--logfile", *_COMMIT),
    ("clone",): (*_REMOTE_OPTIONS, *_REVS, "-b", "--branch", "-u", "--updaterev"),
    ("share",): (),
    ("bundle",): (*_REMOTE_OPTIONS, *_REVS, "-b", "--branch", "--base", "-t", "--type"),
    ("init",): _REMOTE_OPTIONS,
    ("archive",): (*_REVS, "-p", "--prefix", "-t", "--type", *_PATTERNS),
}
"""hg commands that open repositories by their operands (or write a path they name), by their
names and aliases, with the options of each that take a value (besides hg's global ones), as
`hg help -v CMD` lists them: every other option of theirs is a flag."""
_PEERS: Mapping[str, slice] = {
    **dict.fromkeys(("clone", "share"), slice(0, 1)),
    "bundle": slice(1, None),
    **dict.fromkeys(("init", "archive"), slice(0, 0)),
}
"""Which operands are peers (`clone SRC DEST`, `bundle FILE DEST`); all of them for others."""
_WRITTEN: Mapping[str, int] = {"clone": 1, "share": 1, "init": 0, "bundle": 0, "archive": 0}
"""The operand each writes: the new copy, repository, bundle or archive."""
_REMOTE = re.compile(r"[a-z][a-z0-9+.-]*://", re.I)
"""A URL hg reaches over the network (`ssh://`, `https://`, hg-git's `git+ssh://`); a word
with a scheme it has no peer for (`x:y`) is a local path to hg."""
_LOCAL_SCHEMES = ("file:", "bundle:")


class HgPeers(Slotted):
    """What an hg command line opens (`repositories`: directories whose `.hg/hgrc` and hooks
    run) and writes, as written; hg finds the one it runs in (vcs_programs)."""

    __slots__ = ("repositories", "writes")
    repositories: Final[tuple[str, ...]]
    writes: Final[tuple[str, ...]]

    def __init__(self, repositories: tuple[str, ...], writes: tuple[str, ...]) -> None:
        self.repositories = repositories
        self.writes = writes


def hg_peers(args: Sequence[str], grammar: OptionGrammar) -> HgPeers:
    """`args` after `hg`; `grammar` hg's global options (vcs_programs)."""
    at = first_operand(args, grammar)
    word = args[at] if at < len(args) else ""
    found: list[str] = []
    writes: list[str] = []
    # A name or alias in full is that command (`in`, not `init`); a prefix of several is
    # refused by hg: taken as any of them.
    exact = [names for names in _PEER_COMMANDS if word in names]
    for names, valued in _PEER_COMMANDS.items():
        if not word or not any(name.startswith(word) for name in names):
            continue
        if exact and names not in exact:
            continue
        command = names[0]
        options = OptionGrammar(
            (*grammar.names, *valued), grouped=True, prefixes=True, known=grammar.known
        )
        operands = hg_operands(args[at + 1 :], options)
        found += [p for w in operands[_PEERS.get(command, slice(None))] if (p := _local(w))]
        written = _WRITTEN.get(command, len(operands))
        writes += [p for w in operands[written : written + 1] if (p := _local(w))]
        if command == "incoming":
            writes += option_values(args[at + 1 :], OptionGrammar(("--bundle",), prefixes=True))
    return HgPeers(tuple(dict.fromkeys(found)), tuple(writes))


def hg_operands(args: Sequence[str], grammar: OptionGrammar) -> list[str]:
    """Every word of `args` that is no option nor an option's value (all after `--`)."""
    found: list[str] = []
    i = 0
    while i < len(args):
        at = i + first_operand(args[i:], grammar)
        if at >= len(args):
            break
        if at > i and args[at - 1] == "--":
            found += args[at:]
            break
        found.append(args[at])
        i = at + 1
    return found


def _local(word: str) -> str | None:
    """The directory a peer on this machine is, as written (`../r`, `file:///x/r`,
    `bundle:/x/r+b.hg`, `~/r#branch`); None for a remote one (`ssh://`, `https://`)."""
    if not is_literal(word):
        return word
    lower = word.lower()
    if lower.startswith(_LOCAL_SCHEMES):
        if url_host(word).lower() not in ("", "localhost"):
            return None
        # hg drops the `#branch` first, then decodes the path (`%2e%2e` is `..`).
        rest = local_url_path(word.partition("#")[0])
        return rest.partition("+")[0] if lower.startswith("bundle:") else rest
    if _REMOTE.match(word):
        return None
    return word.partition("#")[0] or "."
