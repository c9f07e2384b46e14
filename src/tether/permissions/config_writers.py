"""Subcommands that write a program's user-level configuration, whose settings make programs
run later: `pip config set`, `npm config set`, `yarn config set`, `gh alias set`, `go env -w`,
`bundle config`, `direnv allow`...

They name no file, yet each writes one in the home (`~/.config/pip/pip.conf`, `~/.npmrc`,
`~/.config/gh/config.yml`, `~/.config/go/env`): an index URL, a script shell, an alias that
runs a shell, `GOFLAGS=-toolexec=...`, an `.envrc` allowed to run. Judged as writes of those
files, they are outside the workspace (asked in every mode but bypassPermissions, denied in
plan mode) or, where the home is writable, protected paths (`tether.home_files`).
"""

from __future__ import annotations

from collections.abc import Mapping

from tether.permissions.go_generate import go_global
from tether.permissions.option_names import OptionGrammar, long_option, option_pairs
from tether.permissions.shell_words import DYN, HOME, program_name, tilde_expanded

_PIP = HOME + "/.config/pip/pip.conf"
_SHELL_STARTUP = tuple(
    HOME + name for name in ("/.bashrc", "/.bash_profile", "/.zshrc", "/.config/fish/config.fish")
)
_CONDA_CONFIG = (
    *("--set", "--add", "--append", "--prepend", "--remove", "--remove-key", "--stdin"),
    "--write-default",
)
_CONDA_FAMILY = frozenset({"conda", "mamba", "micromamba"})
_CONDA_VALUED = frozenset(
    {"-r", "--root-prefix", "-p", "--prefix", "-n", "--name", "-s", "--shell", "--rc-file"}
    | {"-f", "--file"}
)
"""Their options taking a value, before or between the words that select a write
(`micromamba -r DIR shell -s bash init`); argparse takes `--se` for `--set` (conda, mamba)."""
_MAMBA_CONFIG = ("set", "append", "prepend", "remove", "remove-key")
_STATE = DYN + "/conda-meta/state"
_ENV_VARIABLES = tuple((("env", "config", "vars", verb), _STATE) for verb in ("set", "unset"))
"""`conda env config vars set NAME=VALUE` writes the environment's state file (in the active
environment, or the one `-n`/`-p` names): its variables are set at every later activation
(`LD_PRELOAD`, `PATH`), so it is asked as a write of a file chosen as it runs, unless
`-p DIR` alone names the environment: then `DIR/conda-meta/state` (`_env_state`)."""
_ENV_NAMED = OptionGrammar(("-n", "--name", "-p", "--prefix"), prefixes=True)
_NPM = HOME + "/.npmrc"

CONFIG_WRITERS: Mapping[str, tuple[tuple[tuple[str, ...], str], ...]] = {
    **dict.fromkeys(
        ("pip", "pip3"),
        tuple((("config", verb), _PIP) for verb in ("set", "unset", "edit")),
    ),
    "npm": (
        *(
            ((head, verb), _NPM)
            for head in ("config", "c")
            for verb in ("set", "delete", "edit", "fix", "rm", "del")
        ),
        (("set",), _NPM),
        (("edit",), _NPM),
    ),
    "pnpm": tuple(
        (("config", verb), HOME + "/.config/pnpm/rc") for verb in ("set", "delete", "edit")
    ),
    "yarn": tuple(
        (("config", verb), path)
        for verb in ("set", "unset", "delete")
        for path in (HOME + "/.yarnrc.yml", HOME + "/.yarnrc", ".yarnrc.yml")
    ),
    "gh": (
        (("alias", "set"), HOME + "/.config/gh/config.yml"),
        (("alias", "import"), HOME + "/.config/gh/config.yml"),
        (("config", "set"), HOME + "/.config/gh/config.yml"),
    ),
    "go": ((("env", "-w"), HOME + "/.config/go/env"), (("env", "-u"), HOME + "/.config/go/env")),
    "bundle": ((("config",), HOME + "/.bundle/config"),),
    # `conda init` (and mamba's, micromamba's `shell init`) writes the shells' start-up files,
    # which every later shell runs; `--reverse` rewrites them too.
    "conda": (
        *((("config", verb), HOME + "/.condarc") for verb in _CONDA_CONFIG),
        *_ENV_VARIABLES,
        *((("init",), path) for path in _SHELL_STARTUP),
    ),
    "mamba": (
        *((("config", verb), HOME + "/.condarc") for verb in _CONDA_CONFIG),
        *_ENV_VARIABLES,
        *((verbs, path) for verbs in (("init",), ("shell", "init")) for path in _SHELL_STARTUP),
        *((("shell", "deinit"), path) for path in _SHELL_STARTUP),
    ),
    "micromamba": (
        *((("config", verb), HOME + "/.mambarc") for verb in _MAMBA_CONFIG),
        *_ENV_VARIABLES,
        *((("shell", verb), path) for verb in ("init", "deinit") for path in _SHELL_STARTUP),
    ),
    "poetry": ((("config",), HOME + "/.config/pypoetry/config.toml"),),
    "direnv": ((("allow",), HOME + "/.local/share/direnv/allow"),),
    "mise": (
        (("trust",), HOME + "/.local/state/mise/trusted-configs"),
        *((verb, "mise.toml") for verb in (("use",), ("set",), ("config", "set"))),
    ),
    "kubectl": tuple(
        (("config", verb), HOME + "/.kube/config")
        for verb in ("set", "set-cluster", "set-context", "set-credentials", "unset")
    ),
    "aws": ((("configure", "set"), HOME + "/.aws/config"),),
}
"""Per program: the words that select a configuration write (options before them skipped),
and the files written: in the home, or, relative, in the project where the command runs
(yarn 2+ and mise write the project's `.yarnrc.yml` and `mise.toml` unless told `-H`/`-g`).
A form that only reads (`pip config list`, `bundle config get`) is taken for a write too
where the words cannot tell: the question is one a user answers in a second."""

_PYTHON_MODULES = frozenset({"pip", "pip3"})
_PROJECT_LEVEL = {"npm": ".npmrc", "pnpm": ".npmrc"}
"""The project's file the same subcommand may write (`--location=project`: the nearest
package's, taken from where the command runs: the name is protected at any depth)."""


def config_writes(argv: tuple[str, ...]) -> tuple[str, ...]:
    """The home files the command writes its program's configuration to (HOME-marked words)."""
    if not argv:
        return ()
    name, words = program_name(argv[0]), argv[1:]
    if name.startswith("python") and len(words) >= 2 and words[0] == "-m":
        name, words = words[1], words[2:]
        if name not in _PYTHON_MODULES:
            return ()
    forms = CONFIG_WRITERS.get(name)
    if forms is None:
        return ()
    if name == "go":  # `go -C DIR env -w`: go's global options before the subcommand
        words = go_global(words)[1]
    if name in _CONDA_FAMILY:
        plain = _conda_words(words)
    else:
        plain = tuple(w for w in words if not w.startswith("-") or w in ("-w", "-u"))
    found = [path for selector, path in forms if plain[: len(selector)] == selector]
    if _STATE in found:
        found[found.index(_STATE)] = _env_state(words)
    if found and name in _PROJECT_LEVEL:
        found.append(_PROJECT_LEVEL[name])
    return tuple(dict.fromkeys(found))


def _env_state(words: tuple[str, ...]) -> str:
    """The state file `env config vars set|unset` writes: the environment `-p DIR` (the last
    one; conda expands a `~/` itself) names; one found by name (`-n`) or the active one is
    a place chosen as it runs."""
    pairs = option_pairs(words, _ENV_NAMED)
    if not pairs or any(option in ("-n", "--name") for option, _ in pairs):
        return _STATE
    prefix = tilde_expanded(pairs[-1][1]).rstrip("/") or "/"
    return f"{prefix}/conda-meta/state"


def _conda_words(words: tuple[str, ...]) -> tuple[str, ...]:
    """conda's (mamba's, micromamba's) words that select a write: its operands and its config
    write options by their full names, the values of its valued options left out."""
    found: list[str] = []
    skip = False
    for word in words:
        if skip:
            skip = False
        elif not word.startswith("-"):
            found.append(word)
        elif (given := long_option(word, _CONDA_CONFIG)) is not None:
            found.append(given[0])
        else:
            skip = word in _CONDA_VALUED
    return tuple(found)
