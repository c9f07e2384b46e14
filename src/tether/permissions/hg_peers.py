"""The repositories hg opens besides the one it runs in, and the directory it runs in: a local
peer (`hg pull SRC`, `push DEST`, `incoming`, `outgoing`, `identify`, `fetch`, `clone SRC
[DEST]`, `share SRC [DEST]`, `bundle FILE DEST`; the bundled extensions' `convert SRC`,
`transplant -s SRC`, `histedit --outgoing DEST`, `email -o DEST`, `lfpull`, `qclone`,
`relink`, and the debugging commands naming one: a path, or a `file:` or `bundle:` URL) is
opened as a local repository, its `.hg/hgrc` loaded and its hooks run (`preoutgoing` on the
source of a pull, `changegroup` on the destination of a push); and with no `-R` nor `--cwd`,
hg reads the repository it finds from where it runs (`cd DIR && hg status`). Names of
`[paths]` (`default`, `upstream`) are read as paths where hg runs: inside the workspace when
it runs there. What they write besides (`clone SRC DEST`, `init DIR`, `archive DEST`,
`bundle FILE`, `incoming --bundle FILE`, `convert SRC DEST REVMAP`, `email --mbox FILE`) is
a write of that path."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Final

from tether.permissions.file_urls import local_url_path, url_host
from tether.permissions.option_names import OptionGrammar, first_operand, option_pairs
from tether.permissions.shell_words import is_literal
from tether.slotted import Slotted

_REMOTE_OPTIONS = ("-e", "--ssh", "--remotecmd")
_REVS = ("-r", "--rev")
_PATTERNS = ("-I", "--include", "-X", "--exclude")
_COMMIT = ("-d", "--date", "-u", "--user")
_LISTING = ("-l", "--limit", "-T", "--template", "--style")
PEER_COMMANDS: Mapping[tuple[str, ...], tuple[str, ...]] = {
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
    # Bundled extensions (enabled by the user's configuration), with their peers: convert's
    # SOURCE (an hg, git, svn... repository read where it is), transplant's `-s REPO`,
    # histedit's and patchbomb's `--outgoing [DEST]` (`email -b` bundles for DEST),
    # largefiles' lfconvert and lfpull, mq's qclone (and its `-p REPO`), relink's ORIGIN,
    # remotefilelog's gc.
    ("convert",): (
        *("--authors", "-s", "--source-type", "-d", "--dest-type", *_REVS, "-A"),
        *("--authormap", "--filemap", "--splicemap", "--branchmap"),
    ),
    ("transplant",): (
        *("-s", "--source", "-b", "--branch", "-p", "--prune", "-m", "--merge"),
        *("--parent", "--filter"),
    ),
    ("histedit",): ("--commands", *_REVS, "-T", "--template"),
    ("email",): (
        *("-B", "--bookmark", "--bundlename", *_REVS, "--base", "--bcc", "-c", "--cc"),
        *("--date", "--desc", "-f", "--from", "-m", "--mbox", "--reply-to", "-s"),
        *("--subject", "--in-reply-to", "--flag", "-t", "--to", *_REMOTE_OPTIONS),
    ),
    ("lfconvert",): ("-s", "--size"),
    ("lfpull",): (*_REVS, *_REMOTE_OPTIONS),
    ("qclone",): ("-p", "--patches", *_REMOTE_OPTIONS),
    ("relink",): (),
    ("gc",): (),
    # Debugging commands that open a peer by its path.
    **dict.fromkeys(
        (("debugcapabilities",), ("debugknown",), ("debugpeer",), ("debugpushkey",)),
        ("--bundle2-cap",),
    ),
    ("debugdiscovery",): (
        *("--rev", "--seed", "--local-as-revs", "--remote-as-revs", *_REMOTE_OPTIONS),
        *("-T", "--template"),
    ),
    ("debuggetbundle",): ("-H", "--head", "-C", "--common", "-t", "--type"),
    ("debugwireargs",): ("--three", "--four", "--five", *_REMOTE_OPTIONS),
    ("debugwireproto",): ("--peer", *_REMOTE_OPTIONS),
    ("debug::clonebundle-manifest",): _PATTERNS,
    ("admin::chainsaw-update",): ("--rev", "--source", "--dest"),
}
"""hg commands that open repositories by their operands or options (or write a path they
name), by their names and aliases, with the options of each that take a value (besides hg's
global ones), as `hg help -v CMD` lists them: every other option of theirs is a flag."""
_PEERS: Mapping[str, slice] = {
    **dict.fromkeys(("clone", "share", "convert", "lfconvert", "qclone"), slice(0, 1)),
    **dict.fromkeys(("debuggetbundle", "debugpushkey", "debugwireargs"), slice(0, 1)),
    "bundle": slice(1, None),
    **dict.fromkeys(("init", "archive", "transplant", "admin::chainsaw-update"), slice(0, 0)),
}
"""Which operands are peers (`clone SRC DEST`, `bundle FILE DEST`); all of them for others."""
_PEER_OPTIONS: Mapping[str, tuple[str, ...]] = {
    "transplant": ("-s", "--source"),
    "qclone": ("-p", "--patches"),
    "admin::chainsaw-update": ("--source", "--dest"),
}
"""Options whose value is a peer (`transplant -s REPO`)."""
_PEERS_ONLY_WITH: Mapping[str, tuple[str, ...]] = {
    "histedit": ("-o", "--outgoing"),
    "email": ("-o", "--outgoing", "-b", "--bundle"),
}
"""Commands whose operands are peers only with one of these flags (revisions otherwise:
`histedit ANCESTOR`, `email REV...`)."""
_WRITTEN: Mapping[str, slice] = {
    **dict.fromkeys(("clone", "share", "qclone", "lfconvert"), slice(1, 2)),
    "convert": slice(1, 3),  # DEST, and REVMAP
    "debuggetbundle": slice(1, 2),
    **dict.fromkeys(("init", "bundle", "archive"), slice(0, 1)),
}
"""The operands each writes: the new copy, repository, bundle, archive or map."""
_WRITTEN_OPTIONS: Mapping[str, tuple[str, ...]] = {
    "incoming": ("--bundle",),
    "email": ("-m", "--mbox"),
    "admin::chainsaw-update": ("--dest",),
}
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
    exact = [names for names in PEER_COMMANDS if word in names]
    for names, valued in PEER_COMMANDS.items():
        if not word or not any(name.startswith(word) for name in names):
            continue
        if exact and names not in exact:
            continue
        command = names[0]
        # A flag in full is that flag, though a valued option begins with it (`email
        # --bundle DEST`, not `--bundlename`).
        flags = _PEERS_ONLY_WITH.get(command, ())
        options = OptionGrammar(
            (*grammar.names, *valued, *flags),
            flags=flags,
            grouped=True,
            prefixes=True,
            known=grammar.known,
        )
        rest = args[at + 1 :]
        operands = hg_operands(rest, options)
        pairs = option_pairs(rest, options)
        if _peer_operands(command, rest, options):
            found += [p for w in operands[_PEERS.get(command, slice(None))] if (p := _local(w))]
        peer_options = _PEER_OPTIONS.get(command, ())
        found += [p for o, w in pairs if o in peer_options and (p := _local(w))]
        writes += [p for w in operands[_WRITTEN.get(command, slice(0, 0))] if (p := _local(w))]
        written = _WRITTEN_OPTIONS.get(command, ())
        writes += [w for o, w in pairs if o in written]
    return HgPeers(tuple(dict.fromkeys(found)), tuple(writes))


def _peer_operands(command: str, args: Sequence[str], options: OptionGrammar) -> bool:
    """Whether `command`'s operands may be peers: always, or with one of `_PEERS_ONLY_WITH`
    (`histedit -ko DEST`, `--outgo`)."""
    required = _PEERS_ONLY_WITH.get(command)
    if required is None:
        return True
    flagged = OptionGrammar(
        (*options.names, *required),
        flags=required,
        grouped=True,
        prefixes=True,
        known=options.known,
    )
    return any(option in required for option, _ in option_pairs(args, flagged))


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
