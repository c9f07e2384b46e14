"""What a git command does with its arguments, read with the tables of git_commands.py: the
files it reads and writes (git's own config among them, a protected path asked whatever the
rules say), the programs its options and `-c` settings run, the code it brings in.

Files git shows from its object database (`git show HEAD:.env`, `git log -p -- .env`) are
mentions: asked when they name a denied file. Files it reads from the working tree (`git diff
--no-index`, `git blame`, `git grep`) are reads like cat's.
"""

from __future__ import annotations

from tether.permissions.arguments import Arguments, option_in, split_arguments
from tether.permissions.command_spec import CommandSpec
from tether.permissions.command_spec import names as _s
from tether.permissions.git_commands import GIT_SUBCOMMANDS, GitSubcommand
from tether.permissions.git_config import config_use, in_git_dir
from tether.permissions.git_daemon import served_repositories
from tether.permissions.git_history import config_blob, shown_paths, shows_objects
from tether.permissions.git_listing import git_listing, grep_listing
from tether.permissions.git_names import (
    GIT_GLOBAL_FLAGS,
    GIT_KEEPS_THE_TREE,
    GIT_LOCATION_OPTIONS,
    GIT_OWN_COMMANDS,
    PATHSPEC_FROM_FILE,
    subcommand_at,
)
from tether.permissions.git_pathspecs import pathspec_words, staged
from tether.permissions.git_remote_urls import transport_name, url_program
from tether.permissions.git_tree_writes import TREE_WRITERS, TreeWrites
from tether.permissions.git_use import GitUse, join
from tether.permissions.git_words import (
    abbreviates,
    harmless_or_pager,
    harmless_setting,
    local_repository,
    only_a_path,
)
from tether.permissions.program_use import ProgramUse
from tether.permissions.shell_words import DYN, is_literal, readable

_LIST_OPTIONS = frozenset({"-l", "--list"})


def git_use(args: tuple[str, ...]) -> ProgramUse:
    """What `git ARGS` reads, writes and runs."""
    use = GitUse()
    i = 0
    while i < len(args) and args[i].startswith("-"):
        arg = args[i]
        name, eq, value = arg.partition("=")
        i += 1
        if arg in GIT_GLOBAL_FLAGS:
            continue
        if name in GIT_LOCATION_OPTIONS or name == "-c":
            if not eq:
                value = args[i] if i < len(args) else ""
                i += 1
            use.changes = use.changes or name != "-c" or not harmless_or_pager(value)
            if name == "-C":
                use.base = join(use.base, value)
            elif name == "--git-dir":
                use.git_dir = value  # judged where it leads (git_repository)
            elif name == "--work-tree":
                # Where git reads the files it stages, compares and shows (`git
                # --work-tree=~/.ssh add id_rsa`): all of it, as a recursive read.
                use.reads.append(value)
                use.recursive = True
                use.work_tree = value  # its hooks and attributes (git_repository)
            elif name == "-c":
                use.setting(value)
        elif name == "--exec-path" and eq:
            use.unseen.append("git --exec-path runs git's programs from another directory")
        elif name == "--config-env":
            key = value.partition("=")[0]
            if not harmless_setting(key + "=?"):
                use.unseen.append(f"git setting {key} comes from the environment")
        elif not is_literal(arg):
            use.unseen.append("a git option is not a literal")
        use.changes = use.changes or name not in ("-c", *GIT_LOCATION_OPTIONS)
    if i >= len(args):
        return use.done()
    subcommand = GIT_SUBCOMMANDS.get(args[i])
    use.shows = shows_objects(args[i], args[i + 1 :])
    use.shows_only = shown_paths(args[i], args[i + 1 :])
    exposure = served_repositories(args[i], args[i + 1 :])
    if exposure is not None:
        use.asks.append(exposure)
    blob = config_blob(args[i + 1 :]) if args[i] == "config" else None
    if blob:
        use.mentions.append(blob)  # `config --blob=HEAD:.env` names .env, as `show` does
    if use.shows and all(is_literal(a) for a in args[i:]):
        use.show_args = args[i:]
    if not all(is_literal(a) for a in args[i:]):
        # What the unknown words hold is asked where a deny rule could match (the rules on
        # the command, the checks on its files); git itself is then no longer read-only.
        use.changes = True
    writer = TREE_WRITERS.get(args[i])
    if writer is not None and _writes_tree(writer, args[i + 1 :]):
        use.rewrites_tree = f"git {args[i]} {writer.does}"
        use.tree_args = args[i:] if all(is_literal(a) for a in args[i:]) else ()
    rest = _pathspec_files(args[i + 1 :], use, subcommand)
    stage = staged(args[i], rest)
    if stage is not None:
        use.reads += stage.words + stage.top  # the top's words from git's directory too
        use.top_reads += stage.top
        use.recursive = True
        use.changes = True
        use.lists = git_listing(args[i], rest)
    use.reads += _index_links(args[i], rest)
    if subcommand is None:
        use.changes = True
        use.mentions.extend(rest)
        if (
            writer is None
            and args[i] in GIT_OWN_COMMANDS
            and args[i] not in GIT_KEEPS_THE_TREE
            and is_literal(args[i])
        ):
            use.rewrites_tree = (
                f"git {args[i]} is a git command tether has no entry for, which may write "
                "files of the working tree"
            )
        return use.done()
    if args[i] == "config":
        config_use(rest, use)
    else:
        _subcommand(subcommand, rest, use)
    return use.done()


def _index_links(sub: str, rest: tuple[str, ...]) -> list[str]:
    """`update-index --cacheinfo 120000,SHA,PATH` (or any mode from `--index-info`) puts a
    symlink in the index whose target is the blob's text; `checkout-index` then makes it, as
    `ln -s` would: a link to any file, read as `ln -s $X` reads (a hard ask where a Read rule
    could match)."""
    if sub != "update-index":
        return []
    for k, word in enumerate(rest):
        if word == "--index-info" or not is_literal(word):
            return [DYN]
        if word.startswith("--cacheinfo"):
            value = word.partition("=")[2] or (rest[k + 1] if k + 1 < len(rest) else "")
            mode = value.split(",")[0]
            octal = mode.isascii() and mode.isdigit() and "8" not in mode and "9" not in mode
            if not octal or int(mode, 8) & 0o170000 == 0o120000:
                return [DYN]
    return []


def _pathspec_files(
    rest: tuple[str, ...], use: GitUse, sub: GitSubcommand | None
) -> tuple[str, ...]:
    """The subcommand's words without `--pathspec-from-file[=]FILE` (any abbreviation git
    takes): FILE is read (`-` is the input), and the paths inside may be any file: shown by a
    subcommand that shows what it is given (`diff`), written by one that writes it (`rm`,
    `checkout`, `restore`)."""
    kept: list[str] = []
    words = iter(rest)
    for word in words:
        name, eq, value = word.partition("=")
        if word == "--" or not abbreviates(name, PATHSPEC_FROM_FILE):
            kept.append(word)
            if word == "--":
                kept.extend(words)
            continue
        if not eq:
            value = next(words, "-")
        if value != "-":
            use.reads.append(value)
        if sub is None or sub.read_only:
            use.mentions.append(DYN)
        if sub is None or sub.writes in ("paths", "all_paths"):
            use.writes.append(DYN)
    return tuple(kept)


def git_delegate(argv: tuple[str, ...]) -> tuple[int, tuple[str, ...]] | None:
    """For `git [OPTIONS] SUB ARGS` where SUB is none of git's own commands (an alias, an
    extension, a name not known): where SUB stands in `argv`, and the command git really runs,
    `git-SUB ARGS`, a program it looks for on PATH. None for git's own commands."""
    i = subcommand_at(argv)
    if i >= len(argv) or argv[i] in GIT_OWN_COMMANDS:
        return None
    return i, (f"git-{argv[i]}", *argv[i + 1 :])


def _subcommand(sub: GitSubcommand, rest: tuple[str, ...], use: GitUse) -> None:
    spec = sub.spec
    parsed = split_arguments(rest, spec)
    options = [name for name, _ in parsed.options]
    positionals = list(parsed.positionals)
    use.reads += parsed.values(sub.read_valued)
    use.writes += parsed.values(sub.write_valued)
    use.mentions += parsed.values(sub.shown_valued)
    for name, value in parsed.options:
        if option_in(name, sub.runs):
            if value is None:
                use.asks.append(f"git {name} runs the program its configuration names")
            else:
                use.runs.append(value)
    for value in parsed.values(sub.settings):
        use.setting(value)
    if parsed.has(sub.configured):
        use.asks.append(
            f"git {_first(parsed, sub.configured)} runs programs its configuration names"
        )
    if sub.always_configured:
        use.asks.append("it runs the program git's configuration names")
    if parsed.has(sub.unseen):
        use.unseen.append(f"git {_first(parsed, sub.unseen)} brings in code from elsewhere")
    if sub.pattern_first and positionals and not parsed.has(spec.pattern_options):
        positionals = positionals[1:]
    first = positionals[0] if positionals else ""
    role = sub.file_after.get(first)
    if role is not None and len(positionals) > 1:
        (use.reads if role == "read" else use.writes).append(positionals[1])
        positionals = positionals[2:]
    if first in sub.runs_rest:
        use.runs.append(" ".join(positionals[1:]))
        positionals = []
    if first in sub.config_first or parsed.has(sub.config_with):
        use.writes.append(in_git_dir(use, "config"))
    # A remote `ext::CMD` is a command git runs to reach it (when protocol.ext.allow lets it),
    # given as a word or an option's value (`archive --remote=ext::CMD`); so is the helper
    # `git-remote-NAME` of `NAME::X` or an unknown scheme (git_remote_urls.url_program).
    values = [v for _, v in parsed.options if v is not None]
    use.runs += [c for p in (*positionals, *values) if (c := url_program(p)) is not None]
    # Whatever a transport of its own reaches (`fd::` the descriptors another process holds,
    # a helper's or ext's program) is out of sight: asked even when its command is allowed.
    use.asks += [
        f"git reaches {readable(p)} through its own transport `{name}::`, "
        "which runs a program or talks to one tether does not see"
        for p in (*positionals, *values)
        if (name := transport_name(p)) is not None
    ]
    if sub.pushes and positionals and local_repository(positionals[0]):
        use.unseen.append(
            f"pushing to {readable(positionals[0])}, a repository on this machine, runs its hooks"
        )
    if sub.new_repository is not None:
        use.writes.append(join(_new_repository(sub, positionals), ".git/config"))
    runs_first = positionals[:1] if sub.runs_first else []
    written = positionals[len(runs_first) :]
    revisions = [p for p in written if not only_a_path(p)]
    positionals = pathspec_words(written)
    if sub.writes is not None:
        use.writes += _written(sub, parsed, positionals)
    use.writes += sub.home_writes.get(first, ())
    # A store named by `--file` is a read judged as any file's; the default one is the user's.
    if first in sub.prints_secrets and not parsed.values(sub.read_valued):
        use.asks.append(f"it prints the credentials git keeps (`{first}`: passwords, tokens)")
    use.runs += runs_first
    if sub.runs_code:
        use.unseen.append("git runs a command its arguments give, in a form of its own")
    if sub.paths == "tree":
        use.recursive = True
        # Before `--`, a word may be a revision (`git grep PAT HEAD`): what it holds below
        # here is searched, tracked denied files too; after it, paths.
        if "--" in rest:
            paths = pathspec_words(list(rest[rest.index("--") + 1 :]))
            use.mentions += [p for p in positionals if p not in paths]
            use.reads += paths or ["."]
            # No revision before `--` (only the pattern): the tracked files below the paths.
            before = grep_listing(rest[: rest.index("--")])
            use.lists = grep_listing(rest) if before[1:] == (".",) else ()
        else:
            use.mentions += revisions
            use.shows = "history" if revisions else use.shows  # `git grep TODO HEAD`
            use.reads += [*positionals, *(["."] if revisions or not positionals else [])]
            use.lists = grep_listing(rest) if not revisions else ()
    elif sub.paths == "reads" or parsed.has(sub.reads_with) or _outside(positionals, sub):
        use.recursive = use.recursive or bool(sub.reads_with)
        use.reads += positionals
    else:
        use.mentions += positionals
    use.changes = use.changes or not _reads_only(sub, parsed, options, positionals)


def _writes_tree(writer: TreeWrites, rest: tuple[str, ...]) -> bool:
    parsed = split_arguments(rest, CommandSpec("none", valued=writer.valued))
    if writer.needs and not parsed.has(writer.needs):
        return False
    if parsed.has(writer.unless) and not parsed.has(writer.despite):
        return False
    verb = parsed.positionals[0] if parsed.positionals else ""
    if writer.verbs is not None and verb not in writer.verbs:
        return False
    if verb in writer.quiet_verbs:
        return False
    return bool(parsed.positionals) or not writer.needs_positional or parsed.has(writer.or_with)


def _reads_only(
    sub: GitSubcommand, parsed: Arguments, options: list[str], positionals: list[str]
) -> bool:
    if not sub.read_only or parsed.has(sub.forbidden) or parsed.unknown_option:
        return False
    if sub.requires_one_of and not parsed.has(sub.requires_one_of):
        return False
    if sub.positionals == "none_unless_list":
        return not positionals or parsed.has(_LIST_OPTIONS)
    if sub.positionals == "first_in":
        return positionals[0] in sub.first if positionals else sub.bare
    return True


def _written(sub: GitSubcommand, parsed: Arguments, positionals: list[str]) -> list[str]:
    """Working-tree files the subcommand writes, as far as its words tell."""
    if (sub.writes_with and not parsed.has(sub.writes_with)) or parsed.has(sub.prints_with):
        return []
    if sub.writes == "first":
        return positionals[:1]
    if sub.writes == "prefixed":
        prefix = (parsed.values(_s("--prefix")) or [""])[-1]
        every = parsed.has(_s("-a", "--all", "--stdin"))
        return [prefix + p for p in positionals] + ([prefix + DYN] if every else [])
    return positionals


def _outside(positionals: list[str], sub: GitSubcommand) -> bool:
    """`git diff A B` compares files, not revisions, when a path lies outside the repository."""
    if not sub.reads_with:
        return False
    return any(p.startswith(("/", "~")) or ".." in p.split("/") for p in positionals)


def _new_repository(sub: GitSubcommand, positionals: list[str]) -> str:
    if sub.new_repository == "first":
        return positionals[0] if positionals else "."
    if len(positionals) >= 2:
        return positionals[1]
    if not positionals:
        return DYN
    return positionals[0].rstrip("/").rpartition("/")[2].rpartition(":")[2].removesuffix(".git")


def _first(parsed: Arguments, names: frozenset[str]) -> str:
    return next(n for n, _ in parsed.options if option_in(n, names))
