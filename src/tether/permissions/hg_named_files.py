"""hg commands, besides the working-copy readers (hg_files), that open files by an option or an
operand, as `hg help -v CMD` lists them: `histedit --commands PLAN`, `qimport PATCH`,
patchbomb's `email --desc FILE` (the series' description, sent), `commit`/`backout -l FILE`
(the message), `import`/`unbundle` of patch and bundle files, `serve`'s logs, pid file, web
configuration and certificate, and the debugging commands that read or write a file by name
(`debugcreatestreamclonebundle OUT`, `debugdownload URL -o OUT`, a revlog given by its path).
Any other debugging command is not understood (`debugshell -c CODE` runs Python): asked.
`hg fix` and `hg config --edit` run what hg's configuration names (`CONFIGURED`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from tether.permissions.hg_peers import PEER_COMMANDS


@dataclass(frozen=True)
class NamedFiles:
    """One command's options and operands that name files."""

    valued: tuple[str, ...] = ()
    """Its other options taking a value."""
    reads: tuple[str, ...] = ()
    writes: tuple[str, ...] = ()
    flags: tuple[str, ...] = ()
    """Its flags a valued option begins with (`email --bundle`, `--bundlename`): in full,
    the flag."""
    read_operands: tuple[int, int | None] = (0, 0)
    """Which operands are files read (`(0, None)`: all), as a slice's bounds."""
    write_operands: tuple[int, int | None] = (0, 0)


_COMMIT = ("-m", "--message", "-d", "--date", "-u", "--user", "-I", "--include")
_COMMIT_MORE = (*_COMMIT, "-X", "--exclude", "-r", "--rev", "-t", "--tool")
_EMAIL = (
    *("-B", "--bookmark", "--bundlename", "-r", "--rev", "--base", "--bcc", "-c", "--cc"),
    *("--date", "-f", "--from", "-m", "--mbox", "--reply-to", "-s", "--subject"),
    *("--in-reply-to", "--flag", "-t", "--to", "-e", "--ssh", "--remotecmd"),
)
_PICKS = ("-I", "--include", "-X", "--exclude")
_REVLOG = NamedFiles(
    valued=("--dir", "-f", "--format", "-T", "--template"), read_operands=(0, None)
)
"""A debugging command reading a revlog given by its path (`debugdata FILE REV`): its
operands taken as files read (a revision is a name nothing has)."""
NAMED: Mapping[tuple[str, ...], NamedFiles] = {
    ("email",): NamedFiles(valued=_EMAIL, reads=("--desc",), flags=("-b", "--bundle")),
    ("commit", "ci"): NamedFiles(valued=(*_COMMIT, "-X", "--exclude"), reads=("-l", "--logfile")),
    ("backout",): NamedFiles(valued=_COMMIT_MORE, reads=("-l", "--logfile")),
    ("import", "patch"): NamedFiles(
        valued=(*_COMMIT, "-p", "--strip", "--prefix", "-b", "--base", "-s", "--similarity"),
        reads=("-l", "--logfile"),
        read_operands=(0, None),
    ),
    ("unbundle",): NamedFiles(read_operands=(0, None)),
    # histedit's plan, and mq's patch files imported into the queue.
    ("histedit",): NamedFiles(valued=("-r", "--rev", "-T", "--template"), reads=("--commands",)),
    ("qimport",): NamedFiles(valued=("-r", "--rev", "-n", "--name"), read_operands=(0, None)),
    # The files it deletes from the working copy (and stops tracking).
    ("remove", "rm"): NamedFiles(valued=_PICKS, write_operands=(0, None)),
    ("serve",): NamedFiles(
        valued=("-p", "--port", "-a", "--address", "--prefix", "-n", "--name", "--style"),
        reads=("--web-conf", "--webdir-conf", "--certificate", "-t", "--templates"),
        writes=("-A", "--accesslog", "-E", "--errorlog", "--pid-file"),
    ),
    ("debugcreatestreamclonebundle",): NamedFiles(valued=("--type",), write_operands=(0, 1)),
    ("debugapplystreamclonebundle",): NamedFiles(read_operands=(0, 1)),
    ("debugbundle",): NamedFiles(read_operands=(0, 1)),
    ("debugdownload",): NamedFiles(writes=("-o", "--output"), read_operands=(0, 1)),
    ("debugserve",): NamedFiles(valued=("--logiofd",), writes=("--logiofile",)),
    **dict.fromkeys(
        (
            *(("debugdata",), ("debugindex",), ("debugindexdot",), ("debugrevlog",)),
            *(("debugdag",), ("debugdeltachain",), ("debugancestor",), ("debugrevlogindex",)),
        ),
        _REVLOG,
    ),
}
"""By the command's names and aliases."""
_DEBUG_HARMLESS = frozenset(
    {"debugcheckstate", "debugcolor", "debugcommands", "debugcomplete", "debugconfig"}
    | {"debugdate", "debugdirstate", "debugstate", "debugextensions", "debugfileset"}
    | {"debugformat", "debugignore", "debuginstall", "debuglabelcomplete", "debuglocks"}
    | {"debugmergestate", "debugnamecomplete", "debugobsolete", "debugpathcomplete"}
    | {"debugrequires", "debugrevspec", "debugsub", "debugsuccessorssets", "debugtemplate"}
    | {"debugwalk", "debugwhyunstable", "debugrename", "debugp1copies", "debugp2copies"}
    | {"debugpathcopies", "debugchangedfiles", "debugindexstats", "debugnodemap"}
    | {"debugtagscache", "debugupdatecaches", "debugmanifestfulltextcache", "debugpvec"}
    | {"debugsidedata", "debugrebuilddirstate", "debugrebuildfncache", "debugsetparents"}
    | {"debugstrip", "debugupgraderepo", "debugbuilddag", "debugbackupbundle", "debugfsinfo"}
    | {"debugssl", "debuguigetpass", "debuguiprompt", "debugpickmergetool", "debugknown"}
)
"""Debugging commands that read or change the repository they run in and open no file by
name (the peers' are hg_peers')."""
UNKNOWN_DEBUG = "an hg debugging command tether does not know, which may open any file or run code"


def debug_known(word: str) -> bool:
    """Whether the debugging command `word` names is one tether knows: hg takes a prefix of
    one command, and refuses one of several, so any known command it begins will do."""
    return any(name.startswith(word) for names in _KNOWN for name in names)


_KNOWN = (*NAMED, *PEER_COMMANDS, *((name,) for name in _DEBUG_HARMLESS))


CONFIGURED: Mapping[tuple[str, ...], tuple[tuple[str, ...], str]] = {
    ("fix",): ((), "hg fix runs the fixer tools hg's configuration names ([fix])"),
    ("config", "showconfig", "debugconfig"): (
        ("-e", "--edit"),
        "hg config --edit rewrites hg's configuration (the user's, by default) in its editor",
    ),
}
"""Commands that run what hg's configuration names, always or with one of these flags: asked
(a rule allowing hg does not say which tools the configuration holds)."""


TREE_DELETERS: Mapping[tuple[str, ...], str] = {
    ("purge", "clean"): "deletes the untracked files it finds (local settings among them)",
}
"""Commands that delete files of the working copy their words do not name, as `git clean`
does (judged as it is: git_tree_writes)."""


PATCHERS: Mapping[tuple[str, ...], str] = {
    ("import", "patch"): "writes the files its patches name, which are not read here",
    ("qpush", "qgoto"): "writes the files the queue's patches name",
}
"""Commands that apply patches to the working copy, as `git apply` does (judged as it is,
asked: any file a patch names may be one that changes what later sessions run)."""
KEEPS_THE_COPY = ("--bypass",)
"""`import --bypass` applies to history alone, leaving the working copy as it is."""
