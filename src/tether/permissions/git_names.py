"""git's names as data: the commands it runs itself (and those of them that leave the working
tree alone), its global options, the pathspec-file option, and which `-c` settings only change
how it shows things or run programs (git_policy.py reads a command with them)."""

from __future__ import annotations


def _names(text: str) -> tuple[str, ...]:
    return tuple(text.split())


GIT_OWN_COMMANDS = frozenset(
    # git's builtins (git --list-cmds=builtins, 2.39, and those added since)
    _names(
        """add am annotate apply archive bisect--helper blame branch bugreport bundle cat-file
    check-attr check-ignore check-mailmap check-ref-format checkout checkout--worker
    checkout-index cherry cherry-pick clean clone column commit commit-graph commit-tree config
    count-objects credential credential-cache credential-cache--daemon credential-store
    describe diagnose diff diff-files diff-index diff-tree difftool env--helper fast-export
    fast-import fetch fetch-pack fmt-merge-msg for-each-ref for-each-repo format-patch fsck
    fsck-objects fsmonitor--daemon gc get-tar-commit-id grep hash-object help hook index-pack
    init init-db interpret-trailers log ls-files ls-remote ls-tree mailinfo mailsplit
    maintenance merge merge-base merge-file merge-index merge-ours merge-recursive
    merge-recursive-ours merge-recursive-theirs merge-subtree merge-tree mktag mktree
    multi-pack-index mv name-rev notes pack-objects pack-redundant pack-refs patch-id pickaxe
    prune prune-packed pull push range-diff read-tree rebase receive-pack reflog remote
    remote-ext remote-fd repack replace rerere reset restore rev-list rev-parse revert rm
    send-pack shortlog show show-branch show-index show-ref sparse-checkout stage stash status
    stripspace submodule--helper switch symbolic-ref tag unpack-file unpack-objects
    update-index update-ref update-server-info upload-archive upload-archive--writer
    upload-pack var verify-commit verify-pack verify-tag version whatchanged worktree
    write-tree bisect submodule replay backfill refs"""
    )
    # scripts of git's core package, in its exec-path (builtins in later versions, some)
    + _names(
        """mergetool filter-branch request-pull quiltimport web--browse difftool--helper
    merge-octopus merge-one-file merge-resolve sh-i18n--envsubst daemon shell imap-send
    http-backend http-fetch http-push remote-http remote-https remote-ftp remote-ftps"""
    )
)
"""What git runs itself, from its own binary or its exec-path. Any other `git SUB` (an alias, a
package's `git-lfs`, `git-subtree` where it is packaged apart, anything on PATH) runs the
program `git-SUB` that git finds on PATH: judged as that program, not as git."""

GIT_KEEPS_THE_TREE = frozenset(
    _names(
        """add stage commit commit-tree commit-graph count-objects credential credential-cache
    credential-cache--daemon describe diff-files diff-index diff-tree fmt-merge-msg fsck
    fsck-objects gc get-tar-commit-id hash-object hook ls-remote mktag mktree
    multi-pack-index name-rev pack-objects pack-redundant pack-refs patch-id prune
    prune-packed receive-pack repack replace replay rerere show-index stripspace symbolic-ref
    update-index update-ref update-server-info upload-archive upload-archive--writer
    upload-pack verify-commit verify-pack verify-tag write-tree check-ref-format
    check-mailmap column var version refs backfill cherry merge-base merge-tree merge-ours
    pickaxe bisect--helper env--helper fsmonitor--daemon sh-i18n--envsubst difftool--helper
    unpack-file unpack-objects http-backend request-pull imap-send notes"""
    )
)
"""git's own commands with no entry in the tables that write nothing in the working tree (or
in git's config and hooks): objects, refs, the index, a file of their own making. Any other
own command with no entry (a new builtin, a script of its core package) may: with the sandbox
off it is asked as the tree writers are (git_tree_writes.py)."""

PATHSPEC_FROM_FILE = "--pathspec-from-file"
"""The option (of add, checkout, commit, reset, restore, rm, stash push...) whose value is a
file of pathspecs: git reads it (and shows its lines in its complaints), and the paths inside
may be any file."""

GIT_GLOBAL_FLAGS = frozenset(
    {"--no-pager", "-P", "--no-optional-locks", "--literal-pathspecs", "--no-replace-objects"}
    | {"--glob-pathspecs", "--noglob-pathspecs", "--icase-pathspecs", "--no-advice"}
)
"""git options that change nothing a read-only subcommand does."""
GIT_LOCATION_OPTIONS = frozenset(
    {"-C", "--git-dir", "--work-tree", "--namespace", "--super-prefix", "--attr-source"}
    | {"--list-cmds"}
)
"""Options that take a value and move where git works: not read-only."""


def subcommand_at(argv: tuple[str, ...]) -> int:
    """Where the subcommand stands in `git [OPTIONS] SUB ARGS` (past git's own options and
    the values of those that take one); `len(argv)` when there is none."""
    i = 1
    while i < len(argv) and argv[i].startswith("-"):
        name, eq, _ = argv[i].partition("=")
        i += 1
        if not eq and (name in GIT_LOCATION_OPTIONS or name == "-c"):
            i += 1
    return min(i, len(argv))


GIT_SETTINGS_HARMLESS = _names(
    "color.* column.* advice.* i18n.* status.* log.* pretty.* user.name user.email "
    "author.* committer.* init.defaultbranch core.quotepath core.abbrev core.autocrlf "
    "core.safecrlf core.filemode core.ignorecase core.precomposeunicode core.whitespace "
    "core.commentchar core.commentstring core.longpaths core.untrackedcache "
    "diff.algorithm diff.renames diff.renamelimit diff.noprefix diff.mnemonicprefix "
    "diff.context diff.interhunkcontext diff.indentheuristic diff.colormoved "
    "diff.colormovedws diff.wserrorhighlight diff.relative diff.statgraphwidth "
    "diff.suppressblankempty diff.submodule diff.ignoresubmodules diff.dirstat "
    "grep.linenumber grep.column grep.patterntype grep.extendedregexp grep.fullname "
    "merge.conflictstyle merge.ff merge.log pull.rebase pull.ff push.default "
    "push.autosetupremote fetch.prune rebase.autosquash rebase.autostash "
    "rebase.updaterefs commit.gpgsign tag.gpgsign commit.verbose commit.status "
    "commit.cleanup format.pretty format.signoff blame.coloring blame.date "
    "blame.showemail blame.blankboundary blame.showroot protocol.version gc.auto "
    "maintenance.auto checkout.defaultremote branch.autosetupmerge branch.sort tag.sort "
    "versionsort.suffix submodule.recurse"
)
"""`-c` settings that change only how git reads and shows (lower case, fnmatch)."""
GIT_SETTINGS_RUN = _names(
    "core.pager pager.* core.editor sequence.editor core.sshcommand core.fsmonitor "
    "core.askpass core.gitproxy credential.helper credential.*.helper diff.external "
    "diff.*.command diff.*.textconv difftool.*.cmd mergetool.*.cmd merge.*.driver "
    "filter.*.clean filter.*.smudge filter.*.process gpg.program gpg.*.program "
    "sendemail.tocmd sendemail.cccmd sendemail.sendmailcmd sendemail.smtpserver "
    "browser.*.cmd man.*.cmd remote.*.uploadpack remote.*.receivepack "
    "uploadpack.packobjectshook"
)
"""`-c` settings whose value is a command git runs (unless it is a boolean: `pager.log=false`,
`core.fsmonitor=true` run nothing of the user's). Any other setting (`core.hooksPath`,
`include.path`, `alias.*` that is not `!cmd`) may run what cannot be seen: asked."""
