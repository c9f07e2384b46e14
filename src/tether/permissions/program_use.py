"""What one command does with its arguments, as found from the command tables: the input the
Bash policy checks files and programs with."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ProgramUse:
    reads: tuple[str, ...] = ()
    """Words naming files it reads (markers for unknown parts, as in shell_words)."""
    writes: tuple[str, ...] = ()
    """Words naming files it writes, creates or deletes."""
    deletes: tuple[str, ...] = ()
    """Of its writes, those it deletes, a whole tree for a directory (`pytest --basetemp
    DIR`, `tar --remove-files`): a rule allowing the program does not cover them (asked as
    a write no rule allows: allowed in acceptEdits inside the workspace)."""
    recursive: bool = False
    """Its reads take in whole directory trees."""
    file_reads: tuple[str, ...] = ()
    """Words naming files it reads as files even when its reads are recursive: the values of
    its options (`tar -f ARCHIVE`, `rsync --exclude-from LIST`)."""
    top_reads: tuple[str, ...] = ()
    """Words below the repository's top it reads recursively ("." for all of it): what git
    stages (git_pathspecs)."""
    only_names: tuple[str, ...] = ()
    """Its recursive reads take only files whose base names match one of these globs (grep's
    `--include`); empty: every file."""
    follows: bool = False
    """Its recursive reads follow symlinks, out of the trees they were given."""
    mentions: tuple[str, ...] = ()
    """Words that may name files it shows from elsewhere (`git show HEAD:.env`): asked when
    they name a denied file."""
    shows_unknown: bool = False
    """A mention that is not a literal may name a denied file too (git shows `HEAD:$(...)`
    from its objects): asked, in bypassPermissions too, when a Read deny rule could match."""
    loads: tuple[str, ...] = ()
    """Files and directories whose code it runs (`pytest ../other`): asked outside the
    workspace."""
    repositories: tuple[str, ...] = ()
    """Directories whose repository it uses, its configuration and hooks run (`hg -R DIR`, a
    local cvs root, an svn `file://` URL): outside the workspace, code not seen, as the
    repository `git -C DIR` finds there is (vcs_programs)."""
    runs: tuple[str, ...] = ()
    """Shell commands it runs (`rg --pre CMD`, `git -c core.pager=CMD`): each must be allowed
    itself."""
    pagers: tuple[str, ...] = ()
    """Shell commands it runs as its pager (`git -c core.pager=CMD`), its output their input:
    each is judged as typed, as `runs` are, but a pager that only reads (`cat`, `less -R`)
    leaves the command read-only."""
    unseen: tuple[str, ...] = ()
    """Why it may run or load code, or read files, that cannot be seen: asked whatever the
    rules say."""
    asks: tuple[str, ...] = ()
    """Why it runs programs the user's configuration names (`git log --ext-diff`): asked, but
    not as code the command itself could hide."""
    changes: bool = False
    """It is not read-only even when its files are fine (an option tether does not know, a
    subcommand or option that writes what is not a file argument)."""
    rewrites_tree: str = ""
    """Why it writes files of the working tree that its words do not name (`git checkout
    main` writes what the branch holds); empty when it does not."""
    shows_objects: str = ""
    """What it prints of git's objects (git_history.Shows): "history" for what commits,
    stashes, reflogs and the index hold (`git log -p`), "store" for every object stored."""
    git_lists: tuple[str, ...] = ()
    """For git commands that read only what git tracks, or what it tracks and does not ignore
    (`git add .`, `git grep`): "tracked" or "visible", then the pathspecs (git_listing); git
    is asked which files those are, in place of a recursive read."""
    git_tree_args: tuple[str, ...] = ()
    git_show_args: tuple[str, ...] = ()
    """A git command that prints what history holds, from its subcommand on, when all its
    words are literal (git_shown.py asks git which files it prints)."""
    """For a git command that writes the working tree from commits, its words from the
    subcommand on (all literals): git is asked which files it writes (git_tree_probe)."""
    finds_repository: str | None = None
    """Where git looks for its repository from (`-C`'s directory, from where it runs; "."
    there); None for other programs and when `--git-dir` names the repository."""
    shows_only: tuple[str, ...] = ()
    """The paths what it shows from the objects is limited to (git_history.shown_paths; ()
    when not limited)."""
    names_repository: str | None = None
    """The git directory `--git-dir` names (after `-C`'s directory); None without it."""
    work_tree: str | None = None
    """The work tree `--work-tree` names (after `-C`'s directory); None without it."""

    @property
    def read_only(self) -> bool:
        return not (
            self.changes
            or self.writes
            or self.runs
            or self.unseen
            or self.asks
            or self.rewrites_tree
        )
