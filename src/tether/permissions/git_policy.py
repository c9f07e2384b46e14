"""Which git commands only read (status, diff, log...), for the built-in allowlist."""

from __future__ import annotations

from tether.permissions.arguments import option_in
from tether.permissions.commands import GIT_LIST_OPTIONS, GIT_READ_ONLY, GIT_SAFE_GLOBAL_OPTIONS
from tether.permissions.shell_words import is_literal


def git_is_read_only(args: tuple[str, ...]) -> bool:
    """`git [safe options] SUBCOMMAND ...` where the subcommand and its options only read."""
    i = 0
    while i < len(args) and args[i].startswith("-"):
        if args[i] not in GIT_SAFE_GLOBAL_OPTIONS:
            return False
        i += 1
    if i >= len(args) or not all(is_literal(a) for a in args):
        return False
    spec = GIT_READ_ONLY.get(args[i])
    if spec is None:
        return False
    rest = args[i + 1 :]
    options = [a.partition("=")[0] for a in rest if a.startswith("-") and a != "--"]
    positionals = [a for a in rest if not a.startswith("-")]
    for option in options:
        if option_in(option, spec.forbidden):
            return False
        if not option.startswith("--") and any(f"-{c}" in spec.forbidden for c in option[1:]):
            return False
    if spec.requires_one_of and not any(option_in(o, spec.requires_one_of) for o in options):
        return False
    if spec.positionals == "none_unless_list":
        return not positionals or any(option_in(o, GIT_LIST_OPTIONS) for o in options)
    if spec.positionals == "first_in":
        return positionals[0] in spec.first if positionals else spec.bare
    return True
