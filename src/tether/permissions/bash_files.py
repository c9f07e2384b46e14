"""Which files a command reads and writes and which programs it runs, from the command tables
(commands.py, git_policy.py)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from functools import lru_cache
from pathlib import PurePosixPath

from tether.permissions.arguments import Arguments, option_in, split_arguments
from tether.permissions.awk_program import awk_problem
from tether.permissions.cmake_commands import cmake_equivalent
from tether.permissions.command_spec import CommandSpec
from tether.permissions.commands import COMMANDS
from tether.permissions.git_policy import git_use
from tether.permissions.input_code import EDITORS, editor_words, editor_writes
from tether.permissions.interpreter_scripts import PYTHON_VALUED
from tether.permissions.jq_program import jq_modules, search_directories
from tether.permissions.name_filters import included_names
from tether.permissions.program_use import ProgramUse
from tether.permissions.response_files import response_files
from tether.permissions.sed_script import sed_effects
from tether.permissions.shell_words import DYN, HOME, is_literal, program_name, readable
from tether.permissions.shell_words import STAR as STAR_MARK
from tether.permissions.transfers import transfer

_NO_TARGET_DIRECTORY = frozenset({"-T", "--no-target-directory"})


_SCRIPT_OPTIONS = frozenset({"-e", "--expression", "--source"})
_IN_PLACE = frozenset({"--in-place"})


@lru_cache(maxsize=4096)
def program_use(argv: tuple[str, ...]) -> ProgramUse | None:
    """What the command does with its arguments, or None for a program the tables do not
    know (cmake's file commands are the commands they do the work of: cmake_commands)."""
    name = program_name(argv[0]) if argv else ""
    spec = COMMANDS.get(name)
    if spec is None:
        same = cmake_equivalent(argv) if name == "cmake" else None
        return program_use(same) if same is not None else None
    if spec.files == "git":
        return git_use(argv[1:])
    module = _module(argv, spec)
    if module is not None:
        return program_use(module)
    use = _use(editor_words(name, argv)[1:], spec)
    if editor_writes(argv) and name in EDITORS:
        use = replace(use, writes=(*use.writes, *use.reads))
    responses = response_files(argv)
    if responses:
        # Their lines are more arguments, options among them: not what was seen.
        use = replace(use, reads=(*use.reads, *responses), changes=True)
    return use


def _module(argv: tuple[str, ...], spec: CommandSpec) -> tuple[str, ...] | None:
    """`python -m pytest ARGS` as `pytest ARGS` (options before `-m` are the interpreter's)."""
    if not spec.modules:
        return None
    skip = False
    for i, arg in enumerate(argv[1:], start=1):
        if skip:  # the value of `-W`, `--check-hash-based-pycs`...
            skip = False
            continue
        if arg == "-m" and i + 1 < len(argv) and argv[i + 1] in spec.modules:
            return (spec.modules[argv[i + 1]], *argv[i + 2 :])
        if not arg.startswith("-") or arg in ("-c", "-m"):
            return None
        skip = arg in PYTHON_VALUED
    return None


def _use(words: tuple[str, ...], spec: CommandSpec) -> ProgramUse:
    args = split_arguments(_unbundle(words, spec), spec)
    option_reads = args.values(spec.read_valued | spec.read_pairs)
    writes = args.values(spec.write_valued)
    for option, prefixes in spec.write_prefixed.items():
        for value in args.values((option,)):
            kind = next((p for p in prefixes if value.startswith(p)), None)
            if kind is not None and value[len(kind) :]:
                writes.append(value[len(kind) :])
    if spec.archive_writes:
        both = spec.read_valued & spec.write_valued
        archives = args.values(both)
        if not args.has(spec.archive_writes):
            writes = [w for w in writes if w not in archives]
        elif args.has(spec.archive_creates):
            option_reads = [r for r in option_reads if r not in archives]
    reads: list[str] = []
    runs, unseen = _code_options(args, spec)
    deletes = args.values(spec.deletes_valued)
    files = list(args.positionals)
    bases = _directories(args, spec.chdir) if spec.chdir else []
    if bases:
        files = [_below(bases[at], f) for f, at in zip(files, args.placed, strict=True)]
        # A file an option names may be opened before or after the change: both.
        option_reads += _options_below(args, spec.read_valued | spec.read_pairs, bases)
        writes += _options_below(args, spec.write_valued, bases)
    role = spec.files
    recursive = "always" in spec.recursive or args.has(spec.recursive)
    # A value given with an option the table does not know may name a file it opens.
    mentions: list[str] = list(dict.fromkeys(args.unrecognised_words))
    lists = args.values(spec.list_valued)
    if args.has(spec.list_flags):
        lists, files = lists + files, []
    if lists:
        # The files named inside may be anywhere.
        reads += [*lists, DYN]
    if spec.runs_input:
        unseen.append("it runs commands given on its input")
    if spec.plus_commands and any(f.startswith("+") for f in files):
        unseen.append("a `+` argument runs commands of its own at start")
        files = [f for f in files if not f.startswith("+")]
    if role == "jq":
        files = _jq_program(args, files, reads, mentions, unseen)
    elif role in ("pattern_read", "sed", "awk") and not args.has(spec.pattern_options) and files:
        script, files = files[0], files[1:]
        unseen += _script_effects(role, [script], reads, writes, runs)
    elif role in ("sed", "awk"):
        scripts = args.values(_SCRIPT_OPTIONS)
        unseen += _script_effects(role, scripts, reads, writes, runs)
    if role == "awk":
        files = [f for f in files if not _is_assignment(f)]
    if role == "pattern_read" and not files and recursive:
        files = ["."]
    if not files and spec.lists_cwd:
        files = ["."]
    for flag, path in spec.flag_writes.items():
        if args.has((flag,)):
            writes.append(next(iter(args.values((flag,))), path))
    if spec.extracts and args.has(spec.extracts):
        writes.append(_below(bases[-1] if bases else "", DYN))
    if spec.written_after is not None or spec.default_writes:
        keep = spec.written_after if spec.written_after is not None else len(files)
        written = files[keep:]
        files = files[:keep]
        if not written and not args.values(spec.write_valued):
            written = list(spec.default_writes)
        writes += [w + STAR_MARK for w in written] if spec.written_prefixes else written
    if spec.writes_first and files:
        writes.append(files[0])
        files = files[1:]
    if role in ("read", "pattern_read", "sed", "awk", "jq"):
        reads += files
        if args.has(spec.removes):
            writes += files
            deletes += files
    elif role == "mentions":
        mentions += [*files, *(v for _, v in args.options if v is not None)]
    elif role == "write":
        writes += files
    elif role in ("move", "copy"):
        moved = transfer(
            files,
            args.values(spec.write_valued),
            no_directory=args.has(_NO_TARGET_DIRECTORY),
            symbolic=args.has(spec.symbolic),
        )
        reads += dict.fromkeys([*moved.sources, *moved.targets])
        writes += moved.written
        # mv and ln change their sources' names; a link later writes its source.
        if role == "move" or args.has(spec.links):
            writes += moved.targets
    elif role == "dd":
        reads += [f[3:] for f in files if f.startswith("if=")]
        writes += [f[3:] for f in files if f.startswith("of=")]
    if role == "sed":
        writes += _in_place(args, files)
    globs = args.values(spec.name_globs)
    if globs:
        recursive = True
        reads += files or ["."]
    loads = [f.partition("::")[0] for f in files or ["."]] if spec.collects else []
    return ProgramUse(
        reads=tuple(reads) if recursive else (*option_reads, *reads),
        writes=tuple(writes),
        deletes=tuple(deletes),
        recursive=recursive,
        file_reads=tuple(option_reads) if recursive else (),
        follows=recursive and args.has(spec.follows),
        only_names=included_names(args, spec, globs) if recursive else (),
        mentions=tuple(mentions),
        loads=tuple(loads),
        runs=tuple(runs),
        unseen=tuple(unseen),
        changes=bool(args.unrecognised)
        or (args.unknown_option and spec.known_options is not None)
        or args.has(spec.forbidden),
    )


def _directories(args: Arguments, chdir: frozenset[str]) -> list[str]:
    """The directory in effect after each number of options ("" for where it runs): each
    `chdir` option's value relative to the one before, an absolute one (or `~`) from `/`."""
    bases = [""]
    for name, value in args.options:
        base = bases[-1]
        if value is not None and option_in(name, chdir):
            base = _below(base, value.rstrip("/") or "/")
        bases.append(base)
    return bases


def _below(base: str, word: str) -> str:
    """`word` as named from `base`: unchanged when it is absolute, from the home or `-`."""
    if not base or word.startswith(("/", HOME)) or word == "-":
        return word
    return base.rstrip("/") + "/" + word


def _options_below(args: Arguments, names: frozenset[str], bases: list[str]) -> list[str]:
    found: list[str] = []
    for at, (name, value) in enumerate(args.options):
        if value is not None and option_in(name, names) and bases[at]:
            below = _below(bases[at], value)
            if below != value:
                found.append(below)
    return found


def _unbundle(words: tuple[str, ...], spec: CommandSpec) -> tuple[str, ...]:
    """`tar czf out.tgz dir` as `tar -c -z -f out.tgz dir`."""
    if not spec.bundle_first or not words or words[0].startswith("-") or not is_literal(words[0]):
        return words
    rest = list(words[1:])
    out: list[str] = []
    for letter in words[0]:
        out.append(f"-{letter}")
        if f"-{letter}" in spec.valued_options and rest:
            out.append(rest.pop(0))
    return (*out, *rest)


def _code_options(args: Arguments, spec: CommandSpec) -> tuple[list[str], list[str]]:
    """Commands the options run, and why some run what cannot be seen."""
    runs: list[str] = []
    unseen: list[str] = []
    table = spec.code_options
    if not table and not spec.module_fields:
        return runs, unseen
    for name, value in args.options:
        # An option of its own is no abbreviation of another (`--cov`, not `--cov-config`).
        own = name in spec.valued_options or name in spec.long_flags
        option = name if name in table else None if own else _abbreviated(name, table)
        for key, runs_it in table.get(option, ()) if option is not None else ():
            if key and (value is None or not value.lower().startswith(key.lower())):
                continue
            if runs_it:
                runs.append(value[len(key) :].lstrip(" =") if value else "")
            elif value is None or not (
                value.startswith(spec.harmless_values.get(name, ()))
                or value in spec.inert_values.get(name, ())
            ):
                unseen.append(f"{name} runs or loads what cannot be seen")
    for name, value in args.options:
        field = spec.module_fields.get(name)
        if field is not None and value is not None:
            named = value.split(":")[field] if value.count(":") >= field else ""
            if "." in named or not is_literal(named):
                unseen.append(f"{name} {readable(value)} imports module {readable(named)}")
    if args.unknown_option:
        unseen.append("an option is not a literal and may run a program")
    return runs, unseen


def _abbreviated(name: str, table: Mapping[str, object]) -> str | None:
    """The long option `name` abbreviates (getopt: `--pre` for `--pre`, `--use` for
    `--use-compress-program`)."""
    if not name.startswith("--") or len(name) <= 2:
        return None
    return next((option for option in table if option.startswith(name)), None)


def _script_effects(
    role: str, scripts: list[str], reads: list[str], writes: list[str], runs: list[str]
) -> list[str]:
    if role == "awk":
        problems = [awk_problem(s) for s in scripts if is_literal(s)]
        unknown = ["the awk program is not a literal"] if not all(map(is_literal, scripts)) else []
        return [p for p in problems if p is not None] + unknown
    if role != "sed":
        return []
    text = "\n".join(scripts)
    if not is_literal(text):
        return ["the sed script is not a literal"]
    effects = sed_effects(text)
    reads += effects.reads
    writes += effects.writes
    runs += effects.runs
    return effects.unseen


_JQ_PROGRAM_FILE = frozenset({"-f", "--from-file"})
_JQ_SEARCH = frozenset({"-L", "--library-path"})


def _jq_program(
    args: Arguments, files: list[str], reads: list[str], mentions: list[str], unseen: list[str]
) -> list[str]:
    """The modules a jq program imports (jq_program.py), as reads (and mentions, for the
    user's jq library); the files it reads after the program."""
    directories = args.values(_JQ_SEARCH)
    if not all(map(is_literal, directories)):
        reads.append(DYN)  # modules from a directory not known
    search = search_directories([d for d in directories if is_literal(d)])
    if args.has(_JQ_PROGRAM_FILE):
        reads.append(DYN)  # what the program in the file imports is not seen
        return files
    if not files:
        return files
    if not is_literal(files[0]):
        unseen.append("the jq program is not a literal")
        return files[1:]
    modules = jq_modules(files[0], search)
    reads += modules.reads
    mentions += modules.library
    unseen += modules.unseen
    return files[1:]


def _is_assignment(word: str) -> bool:
    name, eq, _ = word.partition("=")
    return bool(eq) and name.isidentifier()


def _in_place(args: Arguments, files: list[str]) -> list[str]:
    """The files `sed -i` rewrites, and its backups (`-i.bak`, `--in-place=old/*`)."""
    suffixes = [v or "" for n, v in args.options if n == "-i" or option_in(n, _IN_PLACE)]
    if not suffixes:
        return []
    out = list(files)
    for suffix in {s for s in suffixes if s}:
        for file in files:
            base = PurePosixPath(file)
            if "*" not in suffix:
                out.append(file + suffix)
                continue
            name = suffix.replace("*", base.name)
            out.append(name if "/" in name else str(base.parent / name))
    return out
