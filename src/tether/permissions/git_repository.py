"""Which repository git reads, and so whose configuration runs programs (`core.fsmonitor`,
`core.pager`, hooks, aliases, diff and filter drivers): one resolver for every way a command
points git at one. `git -C DIR`, `cd DIR && git`, `pushd DIR; git` all make git discover its
repository from a directory (found as git does: at each level up, a `.git` directory or
`gitdir:` file, then the level itself when it is a bare repository); `--git-dir=DIR` names
it. A directory outside the workspace with no repository yet is asked too: git looks again
as it runs, and finds the one an earlier part of the command made. (`--work-tree` moves only
the files git looks at, its configuration is still the one of the repository git finds; but
outside the workspace, the tree's `.gitattributes` pick the drivers git runs and the hooks run
there: asked as well.)

A repository's configuration is code the project has seen when it is the repository of the
workspace (or an added directory), or any repository whose git directory lies inside one of
them under a `.git` directory: those files change only through writes that are asked
(defaults.SELF_MODIFYING). Any other one (outside the workspace, a bare repository made of
plain files, a `gitdir:` file pointing away) is code no rule has seen.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tether.permissions.access import FileAccess
from tether.permissions.context import PermissionContext
from tether.permissions.file_targets import Target
from tether.permissions.paths import is_below
from tether.permissions.program_use import ProgramUse
from tether.permissions.shell_words import readable


def seen_repository(ctx: PermissionContext, git_dir: Path) -> bool:
    """Whether the configuration of the repository in `git_dir` (resolved) is the project's:
    the workspace's own repository, or one in a `.git` directory inside the workspace."""
    if git_dir in ctx.own_repositories:
        return True
    inside = next((root for root in ctx.write_roots if git_dir.is_relative_to(root)), None)
    return inside is not None and ".git" in git_dir.relative_to(inside).parts


def unseen_repository(ctx: PermissionContext, directory: Path | None) -> str:
    """Why git run from `directory` (resolved; None when not known) reads configuration no
    rule has seen, or "" when it does not."""
    if directory is None:
        return "git runs in a directory that is not known, and reads the configuration there"
    git_dir = ctx.find_repository(directory)
    if git_dir is None and not is_below(directory, ctx.write_roots):
        # No repository there now; git looks again as it runs, and finds the one an earlier
        # part of the command made (`git -C /x init && git -C /x config core.fsmonitor ...`).
        return _reason(f"git run in {directory} finds whatever repository is there as it runs")
    if git_dir is None or seen_repository(ctx, git_dir):
        return ""
    return _reason(f"git run in {directory} reads the repository {git_dir}")


def unseen_work_tree(ctx: PermissionContext, tree: Path | None, word: str) -> str:
    """Why `--work-tree=WORD` (resolved; None when not known) hands git files no rule has
    seen, or "": outside the workspace, the tree's `.gitattributes` choose the drivers and
    filters git runs on its files, and git's hooks run in it."""
    if tree is not None and is_below(tree, ctx.write_roots):
        return ""
    where = "a directory that is not known" if tree is None else f"{tree}, outside the workspace"
    return (
        f"git --work-tree={word} works on {where}: its attributes choose the filters and "
        "drivers git runs, and git's hooks run there"
    )


def unseen_git_dir(ctx: PermissionContext, git_dir: Path | None, word: str) -> str:
    """Why `--git-dir=WORD` (resolved to `git_dir`; None when not known) names configuration
    no rule has seen, or ""."""
    if git_dir is None:
        return _reason(f"git --git-dir={word} names a repository that is not known")
    if seen_repository(ctx, git_dir):
        return ""
    return _reason(f"git --git-dir={word} names the repository {git_dir}")


def _reason(what: str) -> str:
    return (
        f"{what}, outside the workspace's protected .git directories, whose configuration "
        "(core.fsmonitor, core.pager, hooks, aliases, drivers) may run programs no rule has seen"
    )


def repository_reasons(
    use: ProgramUse, targets: Callable[[str], list[Target]], files: FileAccess
) -> list[str]:
    """Why git reads configuration no rule has seen, from each place it may run (`-C`,
    `cd`, `pushd`) or the directory `--git-dir` names, each word's paths given by `targets`
    (the shell's places, find's `{}` each path found); [] when it does not."""
    found: list[str] = []
    if use.finds_repository is not None:
        for target in targets(use.finds_repository):
            real = files.real(target) if isinstance(target, Path) else None
            found.append(unseen_repository(files.ctx, real))
    if use.names_repository is not None:
        word = use.names_repository
        for target in targets(word):
            real = files.real(target) if isinstance(target, Path) else None
            found.append(unseen_git_dir(files.ctx, real, readable(word)))
    if use.work_tree is not None:
        for target in targets(use.work_tree):
            real = files.real(target) if isinstance(target, Path) else None
            found.append(unseen_work_tree(files.ctx, real, readable(use.work_tree)))
    return [reason for reason in dict.fromkeys(found) if reason]
