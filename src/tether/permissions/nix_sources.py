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
bypassPermissions mode)."""

from __future__ import annotations

import re

from tether.permissions.shell_words import is_literal, program_name

_NIXPKGS = re.compile(r"(flake:)?nixpkgs(/[\w.-]+)?|github:NixOS/nixpkgs(/[\w.-]+)?", re.I)
"""A flake reference to the registry's nixpkgs (perhaps at a branch)."""
_SETTINGS = frozenset(
    {"substituters", "trusted-substituters", "require-sigs", "trusted-public-keys"}
    | {"pre-build-hook", "post-build-hook", "build-hook", "diff-hook", "run-diff-hook"}
    | {"flake-registry", "accept-flake-config", "nix-path", "plugin-files", "builders"}
    | {"allow-unsafe-native-code-during-evaluation", "include", "store", "eval-store"}
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
)
"""Options that take a value (the value is no installable); two for `--option`, `--arg`."""
_TWO = frozenset({"--option", "--override-input", "--override-flake", "--arg", "--argstr"})
_SUBCOMMANDS = frozenset({"run", "shell", "develop"})


def unseen_nix_code(argv: tuple[str, ...], assignments: tuple[tuple[str, str], ...]) -> str | None:
    """What `nix run|shell|develop` or `nix-shell` takes from elsewhere than the registry's
    nixpkgs (the word, or what it is), or None when all it runs is nixpkgs' packages."""
    if not argv or not is_literal(argv[0]):
        return None
    name = program_name(argv[0])
    if name not in ("nix", "nix-shell"):
        return None
    args = argv[1:]
    if "--" in args and name == "nix":
        args = args[: args.index("--")]
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
