"""`git config`: the reading forms read the file they name; any other form writes it."""

from __future__ import annotations

from tether.permissions.arguments import split_arguments
from tether.permissions.command_spec import CommandSpec
from tether.permissions.command_spec import names as _s
from tether.permissions.git_commands import GIT_SUBCOMMANDS
from tether.permissions.git_use import GitUse
from tether.permissions.shell_words import HOME

_CONFIG_WRITES = _s("--unset", "--unset-all", "--add", "--replace-all", "--rename-section") | _s(
    "--remove-section", "-e", "--edit"
)
_CONFIG_WRITE_VERBS = _s("set", "unset", "rename-section", "remove-section", "edit")


def config_use(rest: tuple[str, ...], use: GitUse) -> None:
    """`git config`: reading forms read the file they name; any other form writes it."""
    sub = GIT_SUBCOMMANDS["config"]
    parsed = split_arguments(rest, CommandSpec("none", valued=sub.valued | _s("-f", "--file")))
    files = parsed.values(_s("-f", "--file"))
    verbs = _s("get", "list")
    first = parsed.positionals[:1]
    reading = (
        parsed.has(sub.requires_one_of)
        or (first and first[0] in verbs)
        # `git config KEY` prints KEY's value; a value after it, or an option that
        # changes the file, writes it.
        or (
            len(parsed.positionals) == 1
            and first[0] not in _CONFIG_WRITE_VERBS
            and not parsed.has(_CONFIG_WRITES)
        )
    )
    if files:
        target = files
    elif parsed.has(_s("--global")):
        target = [HOME + "/.gitconfig"]
    elif parsed.has(_s("--system")):
        target = ["/etc/gitconfig"]
    else:
        target = [in_git_dir(use, "config.worktree" if parsed.has(_s("--worktree")) else "config")]
    if reading and not parsed.unknown_option:
        use.reads += target
        return
    use.changes = True
    use.writes += target
    if parsed.has(_s("-e", "--edit")):
        use.asks.append("git config --edit runs an editor")
    if len(parsed.positionals) >= 2:
        key = parsed.positionals[1] if parsed.positionals[0] == "set" else parsed.positionals[0]
        value = parsed.positionals[-1]
        use.setting(f"{key}={value}", written=True)


def in_git_dir(use: GitUse, name: str) -> str:
    """A file of the repository's own (before `-C` is applied to it)."""
    return (use.git_dir if use.git_dir is not None else ".git") + "/" + name
