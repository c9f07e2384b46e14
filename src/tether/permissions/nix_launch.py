"""What `nix run` launches: `nix run INSTALLABLE [-- ARGS]` runs the program its installable
names (a flake's package or app, `nixpkgs#curl`, `github:o/r#tool`, `.#curl`; with `-f FILE`
or `--expr`, an attribute path `curl`), judged as `PROGRAM ARGS` (launchers.py): a deny rule
on curl holds for `nix run nixpkgs#curl`, whichever rule allows nix. The program is the
attribute's last name (`legacyPackages.x86_64-linux.curl` is curl; an output `curl^bin`
too), as nix's `meta.mainProgram` defaults to it.

nix takes any nix.conf setting as an option (`--SETTING VALUE`), so an option's arity is not
known in general: every word after `run` that may be the installable is taken for it (each is
judged), and the words after `--` are its arguments. (`nix shell -c CMD`, `nix develop -c
CMD` and `nix-shell --run CMD` put the command on the line: it is judged as if typed, and needs
a rule of its own; with no command they start an interactive shell, judged as a bare `bash`.)

`nix profile install`/`add`/`upgrade`/`remove` and `nix-env -i`/`-u`/`-e` change the programs
on the user's PATH for every later shell: a write of `~/.nix-profile`, outside the workspace.
"""

from __future__ import annotations

import re

from tether.permissions.nix_programs import package_programs
from tether.permissions.nix_sources import PHASES as _PHASES
from tether.permissions.shell_words import HOME, is_literal, program_name

_TWO_VALUES = frozenset({"--option", "--override-input", "--arg", "--argstr", "--override-flake"})
_ONE_VALUE = frozenset(
    {"--extra-experimental-features", "--experimental-features", "-I", "--include"}
    | {"--inputs-from", "--store", "--eval-store", "--max-jobs", "-j", "--cores"}
    | {"--log-format", "--reference-lock-file", "--output-lock-file", "--update-input"}
    | {"--profile", "--system", "--keep-env-var", "-k", "--unset-env-var", "-u"}
    | {"--chdir", "--set-env-var", "-s", "--arg-from-file", "--arg-from-stdin"}
)
_ATTRIBUTES = frozenset({"-f", "--file", "--expr"})
"""Options after which a positional is an attribute path, not a flake reference."""


def nix_runs(args: tuple[str, ...]) -> list[tuple[str, ...]] | str:
    """The command lines `nix ARGS` may launch through `run` (none for anything else), or why
    what it runs cannot be told (an installable that is not a literal)."""
    found = _installables(args)
    if found is None:
        return []
    words, attributes, after = found
    runs: list[tuple[str, ...]] = []
    for word in words:
        if not is_literal(word):
            return "an installable that is not a literal"
        runs += [(program, *after) for program in _programs(word, attributes=attributes)]
    return runs


_SHELLS = frozenset({"shell", "develop"})
_COMMAND = frozenset({"-c", "--command"})
_NIX_SHELL_CODE = frozenset({"--run", "--command"})


_INTERACTIVE = ("bash",)
"""What `nix shell PKG`, `nix develop` and `nix-shell -p PKG` run with no command: an
interactive shell (`$SHELL`, bash), reading its commands from the input, judged as a bare
`bash` is."""
_ONLY_SAYS = frozenset({"--help", "-h", "--version"})


def shell_command(name: str, args: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """What `nix shell|develop ... -c CMD ARGS` runs (its words, run as a program), and the
    bash code `nix-shell --run CODE` / `--command CODE` runs: every one given, as nix-shell
    runs the last and tether need not tell which is; with no command, the interactive shell
    they start (`_INTERACTIVE`); nothing for anything else."""
    if _ONLY_SAYS & set(args):
        return (), ()
    if name == "nix":
        words = [w for w in args if not w.startswith("-")]
        if not words or not _SHELLS & set(words[:2]):
            return (), ()
        start = next(i for i, w in enumerate(args) if w in _SHELLS)
        at = next((i for i, w in enumerate(args) if i > start and w in _COMMAND), None)
        if at is None and _PHASES & set(args):
            return (), ()  # `nix develop --build`: the phases run, then it ends
        return (args[at + 1 :] if at is not None else ()) or _INTERACTIVE, ()
    if name == "nix-shell":
        texts = [args[i + 1] for i, word in enumerate(args[:-1]) if word in _NIX_SHELL_CODE]
        texts += [w.partition("=")[2] for w in args if w.partition("=")[0] in _NIX_SHELL_CODE]
        return (() if texts else _INTERACTIVE), tuple(texts)
    return (), ()


def runs_typed(name: str, args: tuple[str, ...]) -> bool:
    """Whether `name ARGS` runs a command given on its line (`nix shell -c CMD`,
    `nix-shell --run CODE`): judged as if typed, so a rule allowing nix does not cover it."""
    words, texts = shell_command(name, args)
    return bool(words or texts)


def unnamed_program(argv: tuple[str, ...]) -> str | None:
    """The installable of `nix run` whose program tether cannot name: a flake's default
    (`nix run`, `.`, `github:o/r`, `.#`), a file's or an expression's (`-f x.nix`,
    `--expr E`) with no attribute; None when each names its program, or for anything else."""
    if not argv or program_name(argv[0]) != "nix":
        return None
    found = _installables(argv[1:])
    if found is None:
        return None
    words, attributes, _ = found
    if not words:
        return "the expression given" if attributes else "the flake in this directory"
    # The installable is the first of them that is not an option's value; the words after
    # it are the program's (`nix run github:o/r ARG`): unnamed when none names a package
    # whose programs are known (nix_programs.py: `netcat` runs `nc`).
    if any(_known(word, attributes=attributes) for word in words):
        return None
    return next((word for word in words if is_literal(word)), None)


def _installables(
    args: tuple[str, ...],
) -> tuple[list[str], bool, tuple[str, ...]] | None:
    """The words of `nix run ARGS` that may be the installable, whether they are attribute
    paths (`-f FILE`, `--expr`), and the arguments after `--`; None for another command."""
    before, _, after = _split(args)
    if "run" not in before:
        return None
    words = before[before.index("run") + 1 :]
    attributes = any(word in _ATTRIBUTES for word in before)
    found: list[str] = []
    i = 0
    while i < len(words):
        word = words[i]
        if word in _TWO_VALUES:
            i += 3
            continue
        if word in _ONE_VALUE or word in _ATTRIBUTES:
            i += 2
            continue
        if not word.startswith("-"):
            found.append(word)
        i += 1
    return found, attributes, after


def _split(args: tuple[str, ...]) -> tuple[tuple[str, ...], bool, tuple[str, ...]]:
    if "--" in args:
        at = args.index("--")
        return args[:at], True, args[at + 1 :]
    return args, False, ()


_STRUCTURE = frozenset(
    {"legacyPackages", "packages", "apps", "defaultPackage", "defaultApp", "pkgs"}
    | {"checks", "devShells", "formatter", "hydraJobs", "nixpkgs"}
)
"""A flake's output attributes above a package (`legacyPackages.x86_64-linux.curl`)."""
_SYSTEM = re.compile(r"[a-z0-9_]+-(linux|darwin|freebsd|netbsd|openbsd|cygwin|windows|none)")
_OUTPUTS = frozenset(
    {"bin", "out", "dev", "lib", "man", "doc", "info", "static", "debug", "devdoc", "devman"}
    | {"data", "share", "examples", "tests", "passthru", "outPath", "drvPath", "unwrapped"}
)
"""A package's outputs and attributes that stand for the package (`curl.bin`, `git.out`)."""
_SET = re.compile(r".*(Packages|packages|Plugins|Extensions|AndTools|Modules)(_[0-9_]+)?")
"""A package set (`python3Packages.httpie`): the program is the package below it."""
_VARIANT = re.compile(r"[-_](wrapped|unwrapped|full|minimal|bin|static|nox|headless)$")
_CASE = re.compile(r"(?<=[a-z0-9])[A-Z]")
"""Where a variant's name starts (`curlFull`, `gitMinimal`, `curlHTTP3`, `curlWithGnuTls`)."""
_VERSION = re.compile(r"[-_]?[0-9][0-9_.]*$")
"""A version (`curl_8`, `git_2_44`, `python311`, `nodejs-18_x`): the program is the name."""


def _programs(word: str, *, attributes: bool) -> tuple[str, ...]:
    """The programs an installable may run: nix runs the package's `meta.mainProgram`, by
    default its name (`pname`), which a variant's attribute shares (`curlFull`,
    `curlMinimal`, `curl_8`, `git-wrapped`: curl, git), whichever output is named
    (`curl.bin`, `curl^out`), and those nix_programs lists for it (`netcat`: nc). Empty when
    it names a flake's default or cannot be read."""
    found: dict[str, None] = {}
    for name in _package_names(word, attributes=attributes):
        found.update(dict.fromkeys(_variants(name)))
        found.update(dict.fromkeys(package_programs(name) or ()))
    return tuple(found)


def _known(word: str, *, attributes: bool) -> bool:
    """Whether what the installable runs is known: a package nix_programs lists."""
    names = _package_names(word, attributes=attributes)
    return bool(names) and package_programs(names[0]) is not None


def _package_names(word: str, *, attributes: bool) -> list[str]:
    """The package an installable names (`nixpkgs#legacyPackages.x86_64-linux.curl.bin`:
    curl), first, then the attribute its path starts with, when that is no package set."""
    if "#" in word:
        attribute = word.partition("#")[2]
    elif attributes:
        attribute = word
    else:
        return []
    path = [part.strip('"') for part in attribute.partition("^")[0].split(".")]
    while path and path[0] in _STRUCTURE:
        path = path[1:]
        if len(path) > 1 and _SYSTEM.fullmatch(path[0]):  # `packages.x86_64-linux.x`
            path = path[1:]
    while len(path) > 1 and path[-1] in _OUTPUTS:
        path = path[:-1]
    path = [part for part in path if part]
    if not path:
        return []
    names = [path[-1]]
    if len(path) > 1 and not _SET.fullmatch(path[0]):
        names.append(path[0])
    return names


def _variants(name: str) -> list[str]:
    """`name` and the program names it may be a variant or version of."""
    found = [name]
    base = name
    while (variant := _VARIANT.search(base)) is not None and variant.start() > 0:
        base = base[: variant.start()]
    found.append(base)
    case = _CASE.search(base)
    if case is not None:
        base = base[: case.start()]
        found.append(base)
    version = _VERSION.search(base)
    if version is not None and version.start() > 0:
        found += [base[: version.start()], base[: version.start() + 1].rstrip("-_")]
    dash = re.search(r"[-_]", base)
    if dash is not None and dash.start() > 0:
        found.append(base[: dash.start()])
    return [n for n in dict.fromkeys(found) if n]


_PROFILE_COMMANDS = frozenset({"install", "add", "upgrade", "remove", "rollback", "wipe-history"})
_NIX_ENV_CHANGES = frozenset(
    {"-i", "--install", "-u", "--upgrade", "-e", "--uninstall", "--rollback", "--set"}
    | {"-iA", "-uA", "--switch-generation", "-G"}
)
PROFILE = f"{HOME}/.nix-profile"


def profile_writes(name: str, args: tuple[str, ...]) -> tuple[str, ...]:
    """The user's profile, when `name ARGS` changes the programs installed in it."""
    before, _, _ = _split(args)
    if name == "nix":
        words = [w for w in before if not w.startswith("-")]
        if "profile" in words:
            after = words[words.index("profile") + 1 :]
            if after[:1] and after[0] in _PROFILE_COMMANDS:
                return (PROFILE,)
        return ()
    if name == "nix-env" and any(
        w in _NIX_ENV_CHANGES or (len(w) > 1 and w[0] == "-" and w[1] in "iue") for w in before
    ):
        return (PROFILE,)
    return ()
