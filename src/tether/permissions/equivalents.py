"""Commands that do the work of another, whose deny and ask rules then hold for them too:
`cmake -E remove x` is `rm -f -- x` (cmake_commands), `git send-pack URL` is `git push URL`
(git_senders), `git update-ref` and `git replace` rewrite history as `git rebase` does
(git_rewriters), `find -delete` and other programs' deleting options are `rm`
(deleting_equivalents), as are `git rm`, `git clean` and the git commands that discard work
(git_deleters, git_discarders: `checkout -f`, `reset --hard`, `stash -u`...); scp, sftp, rsync, tar,
git and the others reaching `HOST:PATH` are the `ssh HOST` they start (remote_shells)."""

from __future__ import annotations

from tether.permissions.cmake_commands import cmake_equivalent
from tether.permissions.deleting_equivalents import Equivalent, deleting_equivalent
from tether.permissions.git_deleters import git_deleting_equivalent
from tether.permissions.git_rewriters import rewriting_equivalent
from tether.permissions.git_senders import sending_equivalent
from tether.permissions.hg_discarders import hg_equivalent
from tether.permissions.path_kinds import KindOf, unknown_kind
from tether.permissions.remote_shells import remote_shell_equivalent
from tether.permissions.script import Invocation
from tether.permissions.shell_words import program_name, readable
from tether.permissions.vcs_programs import HG_GLOBAL
from tether.permissions.verdict import Verdict

__all__ = ["Equivalent", "equivalent"]


def equivalent(inv: Invocation, kind_of: KindOf = unknown_kind) -> Equivalent | None:
    """`cmake -E remove x` as the command it does the work of (`rm -f -- x`), `git send-pack
    URL` as `git push URL` (git_senders), `git replace A B` as each command that rewrites
    history (git_rewriters): deny and ask rules on those commands hold. With what the
    command does, for the reason. `kind_of`: what a path names on disk (path_kinds), for
    git's discards (`rm -f` of a file, `rm -r -f` of a tree)."""
    argv = inv.own_argv
    if inv.role != "command" or not argv:
        return None
    name = program_name(argv[0])
    if name == "git":
        sends = sending_equivalent(argv)
        if sends is not None:
            does = f"`git {readable(sends[1])}` sends commits elsewhere, as git push does"
            return Equivalent((sends[0],), does)
        rewrites = rewriting_equivalent(argv)
        deletes = _joined(git_deleting_equivalent(argv, kind_of), remote_shell_equivalent(argv))
        if rewrites is None:
            return deletes
        does = f"`{rewrites[1]}` rewrites what the repository's history shows"
        return _joined(Equivalent(rewrites[0], does, shown=False), deletes)
    if name == "hg":
        return _joined(hg_equivalent(argv, HG_GLOBAL), remote_shell_equivalent(argv))
    if name != "cmake":
        return _joined(deleting_equivalent(argv), remote_shell_equivalent(argv, inv.assignments))
    same = cmake_equivalent(argv)
    if same is None:
        return None
    return Equivalent((same,), f"`cmake -E {readable(argv[2])}` does the work of {same[0]}")


def _joined(first: Equivalent | None, second: Equivalent | None) -> Equivalent | None:
    """Both programs' forms, where a command does the work of two (`rsync --delete` to
    `host:d` deletes and starts ssh)."""
    if first is None or second is None:
        return first or second
    shown = first.shown and second.shown
    return Equivalent((*first.forms, *second.forms), f"{first.does}; {second.does}", shown=shown)


def equivalent_reason(same: Equivalent, found: Verdict) -> str:
    """What a command does and the rule that holds for it: with the command it does the
    work of where that says what it does (`rm -f -- x`)."""
    if same.shown:
        return f"{same.does}: {found.reason}"
    kind = "deny rule {} forbids" if found.outcome == "deny" else "ask rule {} covers"
    return f"{same.does}, which {kind.format(found.rule)}"
