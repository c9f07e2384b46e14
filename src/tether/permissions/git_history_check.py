"""Whether a git command that prints what git's objects hold (git_history.py) can print a
file a Read rule denies, asked of the repository it runs in (git_probes.py)."""

from __future__ import annotations

import os
import stat
from dataclasses import replace
from pathlib import Path

from tether.permissions import steps
from tether.permissions.access import FileAccess
from tether.permissions.bash_files import program_use
from tether.permissions.bash_rules import all_invocations
from tether.permissions.defaults import is_device
from tether.permissions.git_history import denied_in_history, limited
from tether.permissions.git_pathspecs import pathspec_words
from tether.permissions.program_use import ProgramUse
from tether.permissions.script import Invocation
from tether.permissions.shell_places import ShellPlaces
from tether.permissions.shell_words import is_literal, program_name
from tether.permissions.verdict import Verdict, ask


def history_verdicts(
    shows: str,
    where: str | None,
    places: ShellPlaces,
    files: FileAccess,
    only: tuple[str, ...] = (),
    args: tuple[str, ...] = (),
) -> list[Verdict]:
    """Asked when the command prints what git's objects hold and a Read deny rule covers a
    path the repository git finds from `where` (its `-C` directory; None: `--git-dir`) ever
    held (or, when git can tell, that the command's revisions and pathspecs hold: `args`),
    or when that is not known."""
    ctx = files.ctx
    rule = next(iter(ctx.rules.of("deny", "Read")), None)
    if not shows or rule is None:
        return []
    if shows == "hg":  # hg_history: tether cannot look into hg's store
        return [
            ask(
                f"prints what hg's history holds, which may hold a file {rule.text} covers",
                rule.text,
                hard=True,
            )
        ]
    if shows == "store":
        return [
            ask(
                "prints every object git stores, unreachable ones too, which may hold a file "
                f"{rule.text} covers that was once staged",
                rule.text,
                hard=True,
            )
        ]
    for target in places.targets(where) if where is not None else [None]:
        real = files.real(target) if isinstance(target, Path) else None
        # What the command prints, when git can tell (git_shown.py); else all of history.
        shown = ctx.git_shown(real, args) if real is not None and args else None
        paths = shown if shown is not None else ctx.git_history(real) if real else None
        if paths is None:
            return [
                ask(
                    "prints what git's history holds, and whether it ever held a file "
                    f"{rule.text} covers is not known",
                    rule.text,
                    hard=True,
                )
            ]
        denied = denied_in_history(paths, ctx.rules, workspace=ctx.workspace, home=ctx.home)
        denied = limited(denied, only)  # `log -p -- src/`: only what is below src
        first = next(iter(denied), None)
        if first is not None:
            more = f" and {len(denied) - 1} more" if len(denied) > 1 else ""
            return [
                ask(
                    f"prints what git's history holds, which holds {first}{more}: "
                    "a denied file git has tracked (commits, stashes, reflog or the index)",
                    rule.text,
                    hard=True,
                )
            ]
    return []


_FILTERS = frozenset({"cat", "less", "more", "head", "tail", "wc", "grep"})
"""Programs that read their input and write no file, which a git command's output may be
piped through (`git diff | cat`)."""


def tree_stays(invocations: tuple[Invocation, ...]) -> bool:
    """Whether nothing in the command line changes the files git compares before it runs:
    one plain git command (only_plain_git; a second could stage a file first) and filters of
    its output, with no redirect into a file. Then what git prints can be asked of git now
    (git_shown.py)."""
    every = list(all_invocations(invocations))
    gits = [inv for inv in every if inv.argv and program_name(inv.argv[0]) == "git"]
    others = [inv for inv in every if inv not in gits]
    for inv in others:
        if inv.role != "command" or not inv.argv or program_name(inv.argv[0]) not in _FILTERS:
            return False
        if inv.writes or any(r.writes for r in inv.redirects):
            return False
    return len(gits) == 1 and only_plain_git(tuple(gits))


def only_plain_git(invocations: tuple[Invocation, ...]) -> bool:
    """Every command is git, run as itself, redirecting into no file and writing no file of
    the working tree (`git add . && git commit -m x`; `git stash` alone): none of them changes
    a `.gitignore` before another lists what git reads."""
    every = list(all_invocations(invocations))
    for inv in every:
        if inv.role != "command" or not inv.argv or program_name(inv.argv[0]) != "git":
            return False
        if inv.writes or any(
            r.writes and not is_device(r.target, write=True) for r in inv.redirects
        ):
            return False
        use = program_use(inv.argv)
        if use is None or use.writes or use.runs or use.unseen:
            return False
        # `git stash` reads what it stashes before it puts the tree back: alone, it is fine.
        if use.rewrites_tree and not (len(every) == 1 and use.git_lists):
            return False
    return True


def git_listed(
    use: ProgramUse, plain: bool, places: ShellPlaces, files: FileAccess
) -> list[Verdict] | None:
    """For a git command that reads what git lists (git_listing), the verdicts on those files
    in place of a recursive read: a hard ask for each a Read deny rule covers. None to judge
    the recursive read as usual: another command may change what git ignores, a Read ask rule
    exists, or git's answer is not known."""
    ctx = files.ctx
    if not use.git_lists or not plain or ctx.rules.of("ask", "Read"):
        return None
    where = use.finds_repository
    found: list[Verdict] = []
    for target in places.targets(where) if where is not None else [None]:
        real = files.real(target) if isinstance(target, Path) else None
        listed = ctx.git_reads(real, use.git_lists) if real is not None else None
        if listed is None:
            return None
        for entry in denied_in_history(listed, ctx.rules, workspace=ctx.workspace, home=ctx.home):
            path, _, rule = entry.rpartition(" (")
            found.append(ask(f"git reads {path}, which {rule[:-1]} denies", rule[:-1], hard=True))
        linked = _hard_linked(listed)
        if linked is None:
            return None
        for path in linked:  # another name of a denied file (`notes/copy` of `.env`)
            read = files.read(Path(path))
            if read.outcome != "allow":
                found.append(ask(f"git reads {path}: {read.reason}", read.rule, hard=True))
    return found


_MAX_LINK_CHECKS = 4_000
"""Listed files looked at for other names at most; past them, the listing is not used."""


def _hard_linked(listed: tuple[str, ...]) -> list[str] | None:
    """The listed files that have other names (hard links), which the rules must see as
    reading any of them does; None past the bound."""
    if len(listed) > _MAX_LINK_CHECKS:
        return None
    steps.spend(len(listed) // 8)
    found: list[str] = []
    for path in listed:
        try:
            info = os.stat(path, follow_symlinks=False)
        except OSError:
            continue
        if stat.S_ISREG(info.st_mode) and info.st_nlink > 1:
            found.append(path)
    return found


def tree_written(
    use: ProgramUse, places: ShellPlaces, files: FileAccess, stdin: str | None = None
) -> ProgramUse:
    """A git command that writes the working tree from commits, with the files it writes
    (asked of git, git_tree_probe) as its writes, judged like any write of them, in place of
    the question on whatever a commit may hold; as it was when git cannot tell. `stdin`: the
    file its input comes from, the patch `git am < p.mbox` applies."""
    ctx = files.ctx
    if not use.git_tree_args or use.finds_repository is None:
        return use
    args = use.git_tree_args
    if stdin is not None and args[0] in ("am", "apply") and is_literal(stdin):
        args = (*args, stdin)
    written: list[str] = []
    for target in places.targets(use.finds_repository):
        real = files.real(target) if isinstance(target, Path) else None
        found = ctx.git_tree_writes(real, args) if real is not None else None
        if found is None:
            return use
        written += found
    return replace(use, rewrites_tree="", writes=(*use.writes, *written))


def pathspecs_dropped(use: ProgramUse) -> tuple[str, ...]:
    """The command's reads without the pathspecs git listed the files of (git_listed judged
    those files): the files its options name stay (`commit -F MSG`)."""
    listed = list(use.git_lists[1:])
    # The reads hold each pathspec as the pattern it is (`'*.py'` a glob: git_pathspecs).
    specs = {*listed, *pathspec_words(listed), *use.top_reads, "."}
    return tuple(word for word in use.reads if word not in specs)
