"""hg's commands tether knows: core Mercurial's, with their aliases, and those of the
extensions it ships (`rebase`, `histedit`, `mq`'s `q*`...). hg takes any unambiguous prefix of
a command. Any other command word is an alias or an extension's command (`dbsh`, the alias of
`debugshell` that contrib's extension and Sapling declare, runs Python): not understood, asked,
as an unknown debugging command is (hg_named_files)."""

from __future__ import annotations

from tether.permissions.command_spec import words

HG_COMMANDS = frozenset(
    words(
        # Core commands and their aliases (`hg help`, Mercurial 6).
        "add addremove annotate blame archive backout bisect bookmarks bookmark branch "
        "branches bundle cat clone commit ci config showconfig continue abort copy cp diff "
        "export files forget graft grep heads help identify id import patch incoming in init "
        "locate log history manifest merge outgoing out parents paths phase pull purge clean "
        "push recover remove rm rename move mv resolve revert rollback root serve shelve "
        "unshelve status st summary sum tag tags tip unbundle update up checkout co verify "
        "version admin::verify admin::chainsaw-update "
        # Extensions shipped with Mercurial.
        "absorb amend uncommit unamend rebase histedit strip fetch transplant churn convert "
        "extdiff sign sigs sigcheck share unshare email record qrecord journal show "
        "releasenotes split fix tracked githelp git children closehead lfpull lfconvert "
        "kwdemo kwexpand kwfiles kwshrink relink censor view glog qapplied qclone qcommit "
        "qdelete qremove qrm qdiff qfinish qfold qgoto qguard qheader qimport qinit qnew "
        "qnext qpop qprev qpush qqueue qrefresh qrename qmv qrestore qsave qselect qseries "
        "qtop qunapplied gc phabsend phabread phabupdate phabimport phabstatus"
    )
)
"""Command words hg (and its shipped extensions) define."""

UNKNOWN_COMMAND = (
    "an hg command tether does not know (an alias or an extension's), which may run code"
)


def command_known(word: str) -> bool:
    """Whether `word` may name a command tether knows: hg takes any prefix of one; a prefix of
    several is refused by hg, so any known command it begins will do."""
    return any(name.startswith(word) for name in HG_COMMANDS)
