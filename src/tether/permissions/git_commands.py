"""git as data: each subcommand tether knows (`GitSubcommand`: whether it only reads, which
options write files, read files of the working tree, run programs or bring in code, what it
writes of git's config and of the working tree), the global options, and which `-c` settings
only change how git shows things or run programs. git_policy.py reads a command with them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Literal

from tether.permissions.command_spec import CommandSpec
from tether.permissions.shell_words import DYN, HOME

Paths = Literal["mentions", "reads", "tree", "none"]
"""How positionals are taken: words that may name tracked files (shown from the repository),
files read from the working tree, directory trees searched, or nothing of the kind."""


@dataclass(frozen=True, eq=False)
class GitSubcommand:
    read_only: bool = False
    """Only reads (with the options below absent): runs without asking."""
    forbidden: frozenset[str] = frozenset()
    """Options that make a read-only subcommand change something."""
    valued: frozenset[str] = frozenset()
    """Options taking a separate value that is no file."""
    read_valued: frozenset[str] = frozenset()
    write_valued: frozenset[str] = frozenset()
    shown_valued: frozenset[str] = frozenset()
    """Options whose value ends with a tracked file it shows (`log -L 1,5:FILE`): mentions."""
    runs: frozenset[str] = frozenset()
    """Options whose value is a command it runs (`rebase --exec CMD`); without a value, the
    command its configuration names (`grep -O`)."""
    attached: frozenset[str] = frozenset()
    """Options whose value, if any, is attached (`grep -O[PAGER]`)."""
    configured: frozenset[str] = frozenset()
    """Options that run programs the configuration names (`--ext-diff`, `--textconv`)."""
    unseen: frozenset[str] = frozenset()
    """Options that bring in code or settings from elsewhere (`--template DIR`)."""
    settings: frozenset[str] = frozenset()
    """Options giving `key=value` settings, judged like `git -c` (`clone --config`)."""
    paths: Paths = "mentions"
    pattern_first: bool = False
    """The first positional is a pattern unless `-e`/`-f` give it (grep)."""
    reads_with: frozenset[str] = frozenset()
    """Options that make the positionals files of the working tree (`--no-index`)."""
    positionals: Literal["any", "none_unless_list", "first_in"] = "any"
    first: frozenset[str] = frozenset()
    """With "first_in": the sub-subcommands that only read (`remote show`)."""
    bare: bool = True
    """With "first_in": whether the subcommand alone only reads (`git remote` lists)."""
    requires_one_of: frozenset[str] = frozenset()
    config_first: frozenset[str] = frozenset()
    """Sub-subcommands that write the repository's config (`remote add`); `*` for any."""
    config_with: frozenset[str] = frozenset()
    """Options that write the repository's config (`branch --set-upstream-to`)."""
    runs_rest: frozenset[str] = frozenset()
    """Sub-subcommands whose remaining words are a command (`bisect run CMD`)."""
    file_after: Mapping[str, Literal["read", "write"]] = field(
        default_factory=dict[str, Literal["read", "write"]]
    )
    """Sub-subcommands followed by a file read or written (`bundle create FILE`)."""
    always_configured: bool = False
    """It runs a program its configuration names whatever the options (`difftool`)."""
    pushes: bool = False
    """A repository on this machine it names runs its own hooks (`push ../bare`)."""
    writes: Literal["paths", "all_paths", "first", "prefixed"] | None = None
    """Positionals it writes in the working tree: every one (`restore`, `rm`; for `checkout`
    any word may be a path), sources and destination (`mv`), the first (`merge-file`), or
    each below a `--prefix` (`checkout-index`; all of them with `-a`/`--stdin`)..."""
    writes_with: frozenset[str] = frozenset()
    """...only with one of these options, when given (`interpret-trailers --in-place`)..."""
    prints_with: frozenset[str] = frozenset()
    """...and not with one of these, which print instead (`merge-file -p`)."""
    home_writes: Mapping[str, tuple[str, ...]] = field(default_factory=dict[str, tuple[str, ...]])
    """Sub-subcommands that write files in the home (`~` for it): `maintenance start` writes
    `~/.gitconfig` and the user's systemd timers."""
    runs_first: bool = False
    """The first positional is a program it runs (`merge-index PROGRAM`)."""
    prints_secrets: frozenset[str] = frozenset()
    """Sub-subcommands that print the credentials git keeps (`credential fill`,
    `credential-store get`): its helpers' store, outside the workspace, asked."""
    runs_code: bool = False
    """Its arguments give a command it runs, in a form of its own (`remote-ext URL`)."""
    new_repository: Literal["first", "clone"] | None = None
    """It creates a repository, writing its config: in the first positional's directory
    (`init DIR`), or in the clone's (`clone URL [DIR]`)."""

    @cached_property
    def spec(self) -> CommandSpec:
        return CommandSpec(
            "none",
            valued=self.valued | self.settings | self.shown_valued | (self.runs - self.attached),
            attached=self.attached,
            read_valued=self.read_valued,
            write_valued=self.write_valued,
            pattern_options=_s("-e", "-f") if self.pattern_first else frozenset(),
        )


def _s(*names: str) -> frozenset[str]:
    return frozenset(names)


def _names(text: str) -> tuple[str, ...]:
    return tuple(text.split())


_DIFF_VALUED = _s("-U", "--unified", "-M", "-C", "-B", "-l", "-S", "-G", "--stat", "--abbrev")
_LOG_VALUED = (
    _DIFF_VALUED
    | _s("-n", "--max-count", "--skip", "--since", "--until", "--after", "--before")
    | _s("--author", "--committer", "--grep", "--format", "--pretty", "-L")
)
_DIFF_OUTPUT = _s("--output")
_DIFF_CONFIGURED = _s("--ext-diff", "--textconv")
_DIFF_READS = _s("-O")  # the order file

_LINE_RANGES = _s("-L")  # `-L START,END:FILE`, `-L :FUNC:FILE`: FILE's history
_READING = GitSubcommand(
    read_only=True,
    valued=_LOG_VALUED,
    # `ls-files --exclude-from=FILE`/`-X FILE` reads FILE's lines as patterns.
    read_valued=_s("--exclude-from", "-X"),
    write_valued=_DIFF_OUTPUT,
    shown_valued=_LINE_RANGES,
    configured=_DIFF_CONFIGURED,
)

GIT_SUBCOMMANDS: Mapping[str, GitSubcommand] = {
    **dict.fromkeys(
        _names(
            "status log show shortlog whatchanged rev-parse ls-files ls-tree describe "
            "show-ref rev-list merge-base name-rev for-each-ref count-objects version "
            "diff-tree diff-files diff-index range-diff cherry show-branch check-ignore "
            "check-attr var"
        ),
        _READING,
    ),
    # `-w`/`-i`/`-m` open the browser, info or man viewer git's configuration names.
    "help": GitSubcommand(
        read_only=True, configured=_s("-w", "--web", "-i", "--info", "-m", "--man")
    ),
    "diff": GitSubcommand(
        read_only=True,
        valued=_LOG_VALUED,
        read_valued=_DIFF_READS,
        write_valued=_DIFF_OUTPUT,
        configured=_DIFF_CONFIGURED,
        reads_with=_s("--no-index"),
    ),
    "cat-file": GitSubcommand(read_only=True, configured=_s("--textconv", "--filters")),
    "blame": GitSubcommand(
        read_only=True,
        valued=_s("-L", "-C", "-M", "--abbrev", "--since", "--date"),
        read_valued=_s("--contents", "-S", "--ignore-revs-file"),
        paths="reads",
    ),
    "annotate": GitSubcommand(read_only=True, read_valued=_s("--contents", "-S"), paths="reads"),
    "grep": GitSubcommand(
        read_only=True,
        valued=_s("-A", "-B", "-C", "-m", "--max-count", "--max-depth", "--threads", "-e"),
        read_valued=_s("-f"),
        runs=_s("-O", "--open-files-in-pager"),
        attached=_s("-O", "--open-files-in-pager"),
        configured=_s("--ext-grep", "--textconv"),
        paths="tree",
        pattern_first=True,
    ),
    "branch": GitSubcommand(
        read_only=True,
        forbidden=_s("-d", "-D", "-m", "-M", "-c", "-C", "-u", "-f", "-t", "--delete", "--move")
        | _s("--copy", "--force", "--set-upstream-to", "--unset-upstream", "--track")
        | _s("--edit-description", "--no-track", "--create-reflog"),
        valued=_s("--format", "--sort", "--contains", "--merged", "--no-merged", "--points-at"),
        positionals="none_unless_list",
        config_with=_s("-u", "--set-upstream-to", "--unset-upstream", "-t", "--track")
        | _s("--edit-description"),
    ),
    "tag": GitSubcommand(
        read_only=True,
        forbidden=_s("-d", "-a", "-s", "-u", "-f", "-m", "-F", "-e", "--delete", "--annotate")
        | _s("--sign", "--force", "--message", "--file", "--local-user", "--edit"),
        valued=_s("-m", "--message", "-u", "--local-user", "--format", "--sort", "-n"),
        read_valued=_s("-F", "--file"),
        positionals="none_unless_list",
    ),
    "remote": GitSubcommand(
        read_only=True,
        positionals="first_in",
        first=_s("show", "get-url"),
        config_first=_s("add", "rename", "remove", "rm", "set-url", "set-head", "set-branches"),
    ),
    "stash": GitSubcommand(
        read_only=True, positionals="first_in", first=_s("list", "show"), bare=False
    ),
    "worktree": GitSubcommand(
        read_only=True,
        positionals="first_in",
        first=_s("list"),
        bare=False,
        # `add` sets no more than `switch -c` does (a new branch's upstream): its files are
        # asked of git (git_tree_probe), as switch's are.
        config_first=_s("move", "remove", "repair", "prune", "lock", "unlock"),
    ),
    "reflog": GitSubcommand(read_only=True, positionals="first_in", first=_s("show")),
    "submodule": GitSubcommand(
        positionals="first_in",
        first=_s("status", "summary"),
        config_first=_s("add", "init", "sync", "update", "deinit", "set-branch", "set-url")
        | _s("absorbgitdirs"),
        runs_rest=_s("foreach"),
    ),
    "notes": GitSubcommand(read_valued=_s("-F", "--file"), valued=_s("-m", "--message")),
    "archive": GitSubcommand(
        valued=_s("--format", "--prefix", "--remote", "--add-virtual-file"),
        read_valued=_s("--add-file"),
        write_valued=_s("-o", "--output"),
        runs=_s("--exec"),
    ),
    "bundle": GitSubcommand(
        valued=_s("--version"),
        file_after={"create": "write", "verify": "read", "unbundle": "read", "list-heads": "read"},
    ),
    "format-patch": GitSubcommand(
        valued=_LOG_VALUED,
        write_valued=_s("-o", "--output-directory", "--output"),
        shown_valued=_LINE_RANGES,
    ),
    "commit": GitSubcommand(
        valued=_s("-m", "--message", "-C", "-c", "--author", "--date", "--fixup", "--squash"),
        read_valued=_s("-F", "--file", "-t", "--template"),
    ),
    "rebase": GitSubcommand(valued=_s("--onto", "-s", "-X", "--strategy"), runs=_s("-x", "--exec")),
    "bisect": GitSubcommand(runs_rest=_s("run")),
    "difftool": GitSubcommand(
        runs=_s("-x", "--extcmd"), valued=_s("-t", "--tool"), always_configured=True
    ),
    "mergetool": GitSubcommand(valued=_s("-t", "--tool"), always_configured=True),
    "instaweb": GitSubcommand(
        runs=_s("-d", "--httpd", "-b", "--browser"),
        valued=_s("-p", "--port", "-m", "--module-path"),
        always_configured=True,
    ),
    "web--browse": GitSubcommand(
        valued=_s("-b", "--browser", "-c", "--config", "-t", "--tool"), always_configured=True
    ),
    "daemon": GitSubcommand(runs=_s("--access-hook")),
    # git-filter-repo's callbacks are Python bodies, code of its own language.
    "filter-repo": GitSubcommand(
        unseen=_s("--filename-callback", "--message-callback", "--name-callback")
        | _s("--email-callback", "--refname-callback", "--blob-callback", "--commit-callback")
        | _s("--tag-callback", "--reset-callback", "--file-info-callback")
    ),
    "checkout-index": GitSubcommand(valued=_s("--prefix", "--stage"), writes="prefixed"),
    "mv": GitSubcommand(writes="all_paths"),
    "rm": GitSubcommand(writes="paths"),
    "restore": GitSubcommand(valued=_s("-s", "--source"), writes="paths"),
    "checkout": GitSubcommand(valued=_s("-b", "-B", "--orphan", "--conflict"), writes="paths"),
    "filter-branch": GitSubcommand(
        runs=_s("--env-filter", "--tree-filter", "--index-filter", "--parent-filter")
        | _s("--msg-filter", "--commit-filter", "--tag-name-filter")
    ),
    "send-email": GitSubcommand(
        runs=_s("--to-cmd", "--cc-cmd", "--header-cmd", "--sendmail-cmd", "--smtp-server")
    ),
    **dict.fromkeys(
        ("fetch", "pull", "ls-remote"),
        GitSubcommand(runs=_s("--upload-pack"), valued=_s("--depth", "-j", "--jobs")),
    ),
    # The plumbing under fetch and push: `--exec` names the program run for the other side.
    "fetch-pack": GitSubcommand(runs=_s("--upload-pack", "--exec"), valued=_s("--depth")),
    "send-pack": GitSubcommand(runs=_s("--receive-pack", "--exec"), pushes=True),
    "push": GitSubcommand(
        runs=_s("--receive-pack", "--exec"), valued=_s("-o", "--push-option"), pushes=True
    ),
    "clone": GitSubcommand(
        valued=_s("-b", "--branch", "-o", "--origin", "--depth", "--reference", "-j"),
        runs=_s("-u", "--upload-pack"),
        settings=_s("-c", "--config"),
        unseen=_s("--template"),
        new_repository="clone",
    ),
    **dict.fromkeys(
        ("init", "init-db"),
        GitSubcommand(
            valued=_s("-b", "--initial-branch", "--object-format", "--shared"),
            unseen=_s("--template", "--separate-git-dir"),
            new_repository="first",
        ),
    ),
    # Plumbing that writes files its words name, or runs what they give.
    "merge-file": GitSubcommand(
        valued=_s("-L", "--marker-size", "--diff-algorithm"),
        writes="first",
        prints_with=_s("-p", "--stdout", "--object-id"),
        paths="reads",
    ),
    "mailinfo": GitSubcommand(writes="paths", valued=_s("--encoding", "--quoted-cr")),
    "mailsplit": GitSubcommand(attached=_s("-o", "-f", "-d"), write_valued=_s("-o"), paths="reads"),
    "interpret-trailers": GitSubcommand(
        valued=_s("--trailer", "--where", "--if-exists", "--if-missing"),
        writes="paths",
        writes_with=_s("--in-place"),
        paths="reads",
    ),
    # `--file` is read by `get` (printing the stored credentials) and rewritten by `store`
    # and `erase`.
    "credential-store": GitSubcommand(
        read_valued=_s("--file"),
        write_valued=_s("--file"),
        paths="none",
        prints_secrets=_s("get"),
        home_writes=dict.fromkeys(("store", "erase"), (HOME + "/.git-credentials",)),
    ),
    # `fill` asks every configured helper (or the terminal) for a password and prints it;
    # `approve`/`reject` hand one to the helpers to store or erase.
    "credential": GitSubcommand(paths="none", prints_secrets=_s("fill")),
    "credential-cache": GitSubcommand(
        valued=_s("--timeout", "--socket"), paths="none", prints_secrets=_s("get")
    ),
    **dict.fromkeys(
        ("fast-export", "fast-import"),
        GitSubcommand(
            write_valued=_s("--export-marks", "--export-pack-edges"),
            read_valued=_s("--import-marks", "--import-marks-if-exists"),
        ),
    ),
    "index-pack": GitSubcommand(write_valued=_s("-o"), paths="reads"),
    **dict.fromkeys(
        ("bugreport", "diagnose"),
        GitSubcommand(write_valued=_s("-o", "--output-directory"), valued=_s("-s", "--suffix")),
    ),
    "maintenance": GitSubcommand(
        home_writes={
            "register": (HOME + "/.gitconfig",),
            "unregister": (HOME + "/.gitconfig",),
            "start": (HOME + "/.gitconfig", HOME + "/.config/systemd/user/" + DYN),
            "stop": (HOME + "/.gitconfig", HOME + "/.config/systemd/user/" + DYN),
        },
        paths="none",
    ),
    "merge-index": GitSubcommand(runs_first=True),
    "shell": GitSubcommand(runs=_s("-c")),
    **dict.fromkeys(("remote-ext", "remote-fd"), GitSubcommand(runs_code=True)),
    "config": GitSubcommand(
        read_only=True,
        valued=_s("--type", "--default", "--blob", "--comment", "--value"),
        requires_one_of=_s("--get", "--get-all", "--get-regexp", "--list", "-l")
        | _s("--get-urlmatch", "--get-color", "--get-colorbool"),
    ),
}
"""Subcommands tether knows; any other is neither read-only nor looked into."""
