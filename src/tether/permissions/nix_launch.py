"""What `nix run` launches: `nix run INSTALLABLE [-- ARGS]` runs the program its installable
names (a flake's package or app, `nixpkgs#curl`, `github:o/r#tool`, `.#curl`; with `-f FILE`
or `--expr`, an attribute path `curl`), judged as `PROGRAM ARGS` (launchers.py): a deny rule
on curl holds for `nix run nixpkgs#curl`, whichever rule allows nix. The program is the
attribute's last name (`legacyPackages.x86_64-linux.curl` is curl; an output `curl^bin`
too), as nix's `meta.mainProgram` defaults to it.

nix takes any nix.conf setting as an option (`--SETTING VALUE`), so an option's arity is not
known in general: every word after `run` that may be the installable is taken for it (each is
judged), and the words after `--` are its arguments. (`nix shell -c CMD`, `nix develop -c
CMD` and `nix-shell --run CMD` put the command on the line: bash_rules' tails see it.)

`nix profile install`/`add`/`upgrade`/`remove` and `nix-env -i`/`-u`/`-e` change the programs
on the user's PATH for every later shell: a write of `~/.nix-profile`, outside the workspace.
"""

from __future__ import annotations

from tether.permissions.shell_words import HOME, is_literal

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


def nix_runs(args: tuple[str, ...]) -> list[tuple[str, ...]]:
    """The command lines `nix ARGS` may launch through `run` (none for anything else)."""
    before, _, after = _split(args)
    if "run" not in before:
        return []
    words = before[before.index("run") + 1 :]
    attributes = any(word in _ATTRIBUTES for word in before)
    runs: list[tuple[str, ...]] = []
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
            program = _program(word, attributes=attributes)
            if program is not None:
                runs.append((program, *after))
        i += 1
    return runs


def _split(args: tuple[str, ...]) -> tuple[tuple[str, ...], bool, tuple[str, ...]]:
    if "--" in args:
        at = args.index("--")
        return args[:at], True, args[at + 1 :]
    return args, False, ()


def _program(word: str, *, attributes: bool) -> str | None:
    """The program an installable names; None when it names a flake's default (`.`,
    `nixpkgs`) or cannot be read."""
    if not is_literal(word):
        return None
    if "#" in word:
        attribute = word.partition("#")[2]
    elif attributes:
        attribute = word
    else:
        return None
    name = attribute.partition("^")[0].rpartition(".")[2].strip('"')
    return name or None


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
