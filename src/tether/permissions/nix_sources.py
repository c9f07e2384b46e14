"""Where the code nix runs comes from: a package of the registry's nixpkgs, not overridden, is
known by its attribute name (nix_launch, nix_programs); anything else is code tether cannot
read. `nix run|shell|develop` of another flake (`github:o/r#hello`, `/tmp/x#ls`, `.#x`), of a
file or an expression (`-f x.nix`, `--expr`), `nix develop`'s build phases (`--phase`,
`--build`, ...), and `nix-shell` of an expression (`-E`, a file, `shell.nix`) run what their
text says; nixpkgs itself may be replaced (`--override-flake`, `--override-input`,
`--flake-registry`, `-I`, `NIX_PATH`), and binaries may come from an unsigned cache or a hook
(`--option substituters`, `--no-require-sigs`, `--post-build-hook`, `NIX_CONFIG`,
`--accept-flake-config`). Each is judged like a script tether does not read
(bash_rules.script_verdict: asked where a Bash deny or ask rule exists, denied in
bypassPermissions mode). So is what any nix command runs or changes beyond its words
(`_other_code`): evaluation allowed to run programs, registry and channel entries, templates
and bundlers of other flakes."""

from __future__ import annotations

import re

from tether.permissions.shell_words import is_literal, program_name

Assignments = tuple[tuple[str, str], ...]

_NIXPKGS = re.compile(r"(flake:)?nixpkgs(/[\w.-]+)?|github:NixOS/nixpkgs(/[\w.-]+)?", re.I)
"""A flake reference to the registry's nixpkgs (perhaps at a branch)."""
_SETTINGS = frozenset(
    {"substituters", "trusted-substituters", "require-sigs", "trusted-public-keys"}
    | {"pre-build-hook", "post-build-hook", "build-hook", "diff-hook", "run-diff-hook"}
    | {"flake-registry", "accept-flake-config", "nix-path", "plugin-files", "builders"}
    | {"allow-unsafe-native-code-during-evaluation", "include", "store", "eval-store"}
    | {"allow-import-from-derivation"}
)
"""nix.conf settings that change where nix's code or binaries come from."""
_REPLACING = frozenset(
    {"--override-flake", "--override-input", "--reference-lock-file", "--inputs-from"}
    | {"-I", "--include", "--arg", "--argstr", "--arg-from-file", "--arg-from-stdin"}
    | {"--expr", "-E", "--file", "-f"}
)
"""Options that take the code from elsewhere than the registry's nixpkgs."""
PHASES = frozenset(
    {"--phase", "--unpack", "--configure", "--build", "--check", "--install"}
    | {"--installcheck", "--redirect"}
)
"""`nix develop` options that run the derivation's build phases."""
_ENVIRONMENT = frozenset({"NIX_CONFIG", "NIX_PATH", "NIX_USER_CONF_FILES", "NIX_CONF_DIR"})
_VALUED = frozenset(
    {"--option", "--override-input", "--override-flake", "--arg", "--argstr"}
    | {"-I", "--include", "--expr", "-E", "--file", "-f", "--reference-lock-file"}
    | {"--inputs-from", "--store", "--eval-store", "--experimental-features"}
    | {"--extra-experimental-features", "--max-jobs", "-j", "--cores", "--log-format"}
    | {"--profile", "--system", "--phase", "-A", "--attr", "--run", "--command", "-c"}
    | {"--keep", "-k", "--unset", "-u", "--arg-from-file", "--redirect"}
    | {"-t", "--template", "--bundler", "--registry", "--add-root", "--from", "--to"}
    | {"--out-link", "-o", "--apply", "--write-to"}
)
"""Options that take a value (the value is no installable); two for `--option`, `--arg`."""
_TWO = frozenset({"--option", "--override-input", "--override-flake", "--arg", "--argstr"})
_SUBCOMMANDS = frozenset({"run", "shell", "develop"})
_EVALUATORS = frozenset(
    {"nix", "nix-shell", "nix-instantiate", "nix-build", "nix-env", "nix-store", "nix-channel"}
)
_EVAL_SETTINGS = frozenset({"allow-unsafe-native-code-during-evaluation", "plugin-files"})
"""Settings with which any evaluation runs programs (`builtins.exec`) or loads shared objects."""
_TEMPLATES = re.compile(r"(flake:)?templates|github:NixOS/templates(/[\w.-]+)?", re.I)
_BUNDLERS = re.compile(r"(flake:)?bundlers|github:NixOS/bundlers(/[\w.-]+)?", re.I)


def unseen_nix_code(argv: tuple[str, ...], assignments: tuple[tuple[str, str], ...]) -> str | None:
    """What `nix run|shell|develop` or `nix-shell` takes from elsewhere than the registry's
    nixpkgs (the word, or what it is), or None when all it runs is nixpkgs' packages."""
    if not argv or not is_literal(argv[0]):
        return None
    name = program_name(argv[0])
    if name not in _EVALUATORS:
        return None
    args = argv[1:]
    if "--" in args and name == "nix":
        args = args[: args.index("--")]
    other = _other_code(name, args, assignments)
    if other is not None or name not in ("nix", "nix-shell"):
        return other
    if name == "nix" and not _SUBCOMMANDS & set(args):
        return None
    for variable, _ in assignments:
        if variable in _ENVIRONMENT:
            return f"what {variable} brings in"
    words, options = _words(args)
    for option in options:
        found = _replacing(option, name)
        if found is not None:
            return found
    if name == "nix-shell":
        return _nix_shell(args, words)
    sub = next((w for w in words if w in _SUBCOMMANDS), None)
    if sub is None:
        return None
    installables = words[words.index(sub) + 1 :]
    if sub == "shell" and not installables:
        return None
    if sub == "run":
        installables = installables[:1]
    if not installables:
        return "the flake in this directory"
    return next((word for word in installables if not _from_nixpkgs(word)), None)


def _other_code(name: str, args: tuple[str, ...], assignments: Assignments) -> str | None:
    """What any nix command runs or changes besides what it names: evaluation allowed to run
    programs (`--allow-unsafe-native-code-during-evaluation`, `--option NAME`, NIX_CONFIG,
    `plugin-files`), a registry or channel entry that every later `nixpkgs#x` or `<nixpkgs>`
    means (`nix registry add|pin|remove`, `nix-channel --add|--remove`), a template's files
    (`nix flake init|new -t` of another flake), a bundler and what it bundles (`nix bundle`)."""
    words, options = _words(args)
    for option in options:
        if option.removeprefix("--").removeprefix("extra-") in _EVAL_SETTINGS:
            return f"what {option} lets evaluation run"
    for variable, value in assignments:
        if variable in ("NIX_USER_CONF_FILES", "NIX_CONF_DIR", "NIXPKGS_CONFIG"):
            return f"what {variable} brings in"
        if variable == "NIX_CONFIG" and _config_runs(value):
            return f"what {variable} lets evaluation run"
    if name == "nix-channel" and {"--add", "--remove"} & set(args):
        return "the channel it changes, which every later <nixpkgs> means"
    installed = _installed(name, args, words) or _built(name, args, words, options)
    if installed is not None:
        return installed
    sub, rest = (words[0], words[1:]) if name == "nix" and words else ("", [])
    if sub == "registry" and rest[:1] and rest[0] in ("add", "pin", "remove"):
        return "the registry entry it writes, which every later use of that flake means"
    if sub == "flake" and rest[:1] and rest[0] in ("init", "new"):
        template = _value(args, ("-t", "--template"))
        if template is not None and not _TEMPLATES.fullmatch(template.partition("#")[0]):
            return template
    if sub == "bundle":
        bundler = _value(args, ("--bundler",))
        if bundler is not None and not _BUNDLERS.fullmatch(bundler.partition("#")[0]):
            return bundler
        return next((w for w in rest if not _from_nixpkgs(w)), None if rest else "the flake here")
    return None


def _config_runs(text: str) -> bool:
    """Whether nix.conf text (NIX_CONFIG) may let evaluation run programs: a setting that
    does, an `include`, or text known only as it runs."""
    if not is_literal(text):
        return True
    for line in text.splitlines():
        setting = line.partition("=")[0].strip().removeprefix("extra-")
        if setting in _EVAL_SETTINGS or setting.lstrip("!").startswith("include"):
            return True
    return False


def _value(args: tuple[str, ...], options: tuple[str, ...]) -> str | None:
    """The last value of one of `options` (`-t X`, `--template=X`, `-tX`)."""
    found: str | None = None
    for i, arg in enumerate(args):
        name, eq, value = arg.partition("=")
        if name in options and eq:
            found = value
        elif arg in options and i + 1 < len(args):
            found = args[i + 1]
        elif any(len(o) == 2 and arg.startswith(o) and len(arg) > 2 for o in options):
            found = arg[2:]
    return found


def _words(args: tuple[str, ...]) -> tuple[list[str], list[str]]:
    """The positional words before `-c`/`--command` (a command follows it), and the options
    with their first value, `--option NAME` as `--NAME`."""
    words: list[str] = []
    options: list[str] = []
    i = 0
    while i < len(args):
        word = args[i]
        if word in ("-c", "--command"):
            break
        if word.startswith("-") and word != "-":
            if word == "--option" and i + 1 < len(args):
                options.append(f"--{args[i + 1]}")
            else:
                options.append(word.partition("=")[0])
            i += 3 if word in _TWO else 2 if word in _VALUED else 1
            continue
        words.append(word)
        i += 1
    return words, options


def _replacing(option: str, name: str) -> str | None:
    """`option` where it takes code or binaries from elsewhere."""
    setting = option.removeprefix("--")
    for prefix in ("extra-", "no-"):
        setting = setting.removeprefix(prefix)
    if option in _REPLACING and not (name == "nix-shell" and option in ("-E", "--expr")):
        return f"what {option} brings in"
    if option.startswith("--") and setting in _SETTINGS:
        return f"what {option} brings in"
    if option in PHASES:
        return f"the derivation's build phases ({option})"
    return None


def _installed(name: str, args: tuple[str, ...], words: list[str]) -> str | None:
    """What a command builds or puts in the user's profile (run by every later shell) from
    elsewhere than nixpkgs: `nix profile install|add` of another flake, `nix-env -i|-u|--set`
    of `-f FILE` or `-E EXPR`, `nix-build` of a file or expression (the directory's
    `default.nix` without one); `<nixpkgs>` and nixpkgs' packages are known."""
    if name == "nix" and words[:1] == ["profile"] and words[1:2] in (["install"], ["add"]):
        found = [w for w in words[2:] if not _from_nixpkgs(w)]
        return found[0] if found else None if words[2:] else "the flake in this directory"
    if name not in ("nix-env", "nix-build", "nix-instantiate"):
        return None  # nix-instantiate evaluates (`--eval` too) what nix-build would build
    if "--version" in args or "--help" in args or (name == "nix-instantiate" and "--parse" in args):
        return None  # `--parse` reads the file's syntax, evaluating nothing
    if "-E" in args or "--expr" in args:
        expression = _value(args, ("-E", "--expr"))
        plain = expression is not None and plain_expression(expression) and not words
        return None if plain and name == "nix-instantiate" else "the expression given"
    if name == "nix-env":
        installs = any(a in ("--install", "--upgrade", "--set") for a in args) or any(
            a.startswith("-") and not a.startswith("--") and set(a[1:]) & set("iu") for a in args
        )
        source = _value(args, ("-f", "--file"))
        for i, arg in enumerate(args[:-1]):  # `-uf FILE`: nix splits a bundle of letters
            if source is None and re.fullmatch(r"-[a-zA-Z]+f", arg):
                source = args[i + 1]
        return source if installs and source is not None and not _angled(source) else None
    files = [w for w in words if not _angled(w)]
    return files[0] if files else None if words else "the default.nix in this directory"


_BUILDERS = frozenset(
    {"build", "eval", "path-info", "derivation", "print-dev-env", "log", "why-depends"}
    | {"search", "flake", "copy", "store", "hash", "fmt", "repl", "upgrade-nix"}
)
"""nix subcommands that evaluate an installable's expression and may build what it names."""
_STORE_IMPORTS = frozenset({"--import", "--restore", "--load-db", "--serve"})


def _built(name: str, args: tuple[str, ...], words: list[str], options: list[str]) -> str | None:
    """What `nix build|eval|copy|...` evaluates, builds or takes into the store from elsewhere
    than nixpkgs and the workspace's own flake: another flake or a path (`/x#y`,
    `path:/x`, `../x`), a file or an impure expression (`-f`, `--expr` with `--impure`, which
    may import any path), a replaced input, store paths not signed (`nix copy --from`,
    `--no-check-sigs`, `nix-store --import`, NARs unpacked by `--restore`)."""
    if name == "nix-store":
        found = [o for o in options if o in _STORE_IMPORTS]
        return f"the store paths `nix-store {found[0]}` takes from its input" if found else None
    if name != "nix" or not words or words[0] not in _BUILDERS:
        return None
    impure = "--impure" in options or "-f" in options or "--file" in options
    for option in options:
        expression = option in ("--expr", "-E")
        if option in _REPLACING and (impure or not expression):
            return f"what {option} brings in"
        if option in ("--from", "--no-check-sigs"):
            return f"the store paths {option} takes, whose signatures are not checked"
    if words[0] in ("eval", "fmt"):
        return _evaluated(words[0], words[1:], args, options)
    if words[0] in ("copy", "store", "hash", "search", "log", "upgrade-nix"):
        return None  # store paths or a name, no expression of another's
    if words[0] == "flake" and words[1:2] != ["check"]:
        return None  # its metadata, its lock file, its outputs' names: nothing built
    rest = words[2:] if words[0] in ("flake", "derivation") else words[1:]
    return next((w for w in rest if not _from_nixpkgs(w) and not _workspace_flake(w)), None)


def _evaluated(sub: str, rest: list[str], args: tuple[str, ...], options: list[str]) -> str | None:
    """`nix eval` evaluates its expression (`--expr`, `--apply`) or installable, and `nix
    fmt` runs the flake's formatter: the workspace's nix code, which may run programs as it
    is evaluated (import from derivation) or is a program, judged as nix-instantiate of it
    is; nixpkgs' packages are known."""
    if "--help" in options or "--version" in options:
        return None
    if sub == "fmt":
        return "the formatter of the flake in this directory"
    for option in ("--expr", "-E", "--apply"):
        value = _value(args, (option,)) if option in options else None
        if value is not None and not plain_expression(value):
            return "the expression given"
    if "--expr" in options or "-E" in options:
        return None
    if not rest:
        return "the flake in this directory"
    return next((w for w in rest if not _from_nixpkgs(w)), None)


_REACHING = re.compile(r"[/<~]|\b(import|scopedImport|derivation|builtins|fetch\w*)\b|__\w")
"""What lets an expression reach a file, another flake or a program: a path, `<nixpkgs>`,
`import`, `builtins.*` and its `__` aliases, fetchers, derivations (built to be read)."""


def plain_expression(text: str) -> bool:
    """Whether a nix expression is plain data (`1 + 1`, `{ a = 1; }.a`): literal, reaching
    no file, flake or program."""
    return is_literal(text) and _REACHING.search(text) is None


def _workspace_flake(word: str) -> bool:
    """`.`, `.#x`, `./sub#x`: the workspace's own flake, as `nix build` with none does."""
    path = word.partition("#")[0].partition("^")[0]
    return (
        is_literal(word)
        and (path == "" or path == "." or path.startswith("./"))
        and (".." not in path.split("/"))
    )


def _angled(word: str) -> bool:
    """`<nixpkgs>`: the channel's nixpkgs."""
    return word == "<nixpkgs>"


def _nix_shell(args: tuple[str, ...], words: list[str]) -> str | None:
    """`nix-shell -p PKGS` takes them from `<nixpkgs>`; an expression, a file or the
    directory's `shell.nix` is code."""
    if "-E" in args or "--expr" in args:
        return "the expression given"
    if "-p" in args or "--packages" in args:
        return next((word for word in words if not _plain_package(word)), None)
    return words[0] if words else "the shell.nix or default.nix in this directory"


def _plain_package(word: str) -> bool:
    return re.fullmatch(r"[A-Za-z_][\w.+-]*", word) is not None


def _from_nixpkgs(word: str) -> bool:
    """Whether installable `word` is a package of the registry's nixpkgs."""
    if not is_literal(word) or "#" not in word:
        return False
    return _NIXPKGS.fullmatch(word.partition("#")[0]) is not None
