"""The launcher table, as data: programs whose arguments name another program or code to run
(`uv run CMD`, `tox exec -- CMD`, `npx CMD`, `pipx run APP`, `pre-commit hazmat cd DIR CMD`),
by the launcher's program or module name (`uv`, `python3 -m uv`, `.venv/bin/tox` alike).

Each entry gives the options before the subcommand and, by subcommand, where the launched
command is: the first word after the subcommand's options (`command`), the words after `--`
(`after_dashdash`), or nowhere (`nothing`: the subcommand runs the project's own configuration,
or installs). A subcommand the entry does not list is asked for the launchers whose every
subcommand is listed (`closed`), or judged as the launcher's own for the others (`npm test`).
Only grammars checked against the programs belong here: an option missing from a `command`
subcommand's grammar means not knowing where the command starts, and the command is asked.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Literal

from tether.permissions.runner_argv import npm_command
from tether.permissions.runner_tables import NPM
from tether.permissions.wrapper_options import WrapperSpec
from tether.permissions.wrapper_options import names as _s

How = Literal["command", "after_dashdash", "nothing"]


@dataclass(frozen=True)
class Sub:
    """One subcommand of a launcher."""

    how: How
    options: WrapperSpec = field(default_factory=WrapperSpec)
    """Its options before the launched command (`command` only)."""
    shell: frozenset[str] = frozenset()
    """Options whose value is a shell command line (`npx -c 'CMD'`)."""
    module: frozenset[str] = frozenset()
    """Flags making the command a Python module (`uv run -m pytest`: `python3 -m pytest`)."""
    skips: int = 0
    """Positionals before the command (`pre-commit hazmat cd DIR CMD`)."""
    hooks: bool = False
    """It writes git hooks (`pre-commit install`): `.git/hooks/TYPE` for each `-t TYPE`."""
    scripts: bool = False
    """A command word ending `.py` (or a URL) is a Python script it runs (`uv run x.py`)."""
    packages: frozenset[str] = frozenset()
    """Options whose value may be a package directory it installs and runs (`uvx --from DIR`,
    `pipx run --spec DIR`): its code, judged as `python3 DIR` (outside the workspace: asked)."""
    environments: bool = False
    """The command may start with `ENV:` (`hatch run test:pytest` runs pytest in `test`)."""
    fetches: bool = False
    """It runs a package fetched from a registry (`pnpm dlx X`, `uvx X`, `npm init X`): code
    nobody has seen, unless a rule names the subcommand (bash_judge_code._fetched)."""
    fetch_options: frozenset[str] = frozenset()
    """Options naming a package it fetches and runs (`npx --package X`)."""
    program: str = ""
    """The words after the subcommand are this program's (`cmake -E env ARGS` is `env ARGS`)."""
    chdir: bool = False
    """The first word is the directory the command runs in (`cmake -E chdir DIR CMD`), judged
    as `cd DIR && CMD` (a word not literal: asked)."""


@dataclass(frozen=True)
class Launcher:
    options: WrapperSpec
    """Options before the subcommand (strict: one not understood is asked)."""
    subcommands: Mapping[tuple[str, ...], Sub]
    """By the subcommand's words; `()`: none, the command follows the options (`uvx CMD`)."""
    closed: bool = True
    """Every subcommand is listed: another one is asked."""
    overrides: frozenset[str] = field(default_factory=frozenset[str])
    """Options whose `KEY=VALUE` may set a command line (`tox -x testenv.commands=CMD`)."""
    names: Callable[[str], str | None] | None = None
    """The subcommand a word names, as the program reads it (npm's aliases and abbreviations:
    `npm innit`, `npm exe`); None: as written."""


_NOTHING = Sub("nothing")
_QUIET = _s("-q", "--quiet", "-v", "--verbose", "-h", "--help", "-V", "--version")


def _nothing(*words: str) -> dict[tuple[str, ...], Sub]:
    return {(word,): _NOTHING for word in words}


_UV_GLOBAL = WrapperSpec(
    flags="qvnh",
    long_flags=_QUIET
    | _s("--no-cache", "--offline", "--no-offline", "--native-tls", "--no-native-tls")
    | _s("--no-progress", "--no-config", "--preview", "--no-preview", "--no-python-downloads")
    | _s("--allow-python-downloads", "--managed-python", "--no-managed-python"),
    long_valued=_s("--directory", "--project", "--cache-dir", "--config-file", "--color")
    | _s("--python-preference", "--allow-insecure-host"),
)
_UV_RESOLVING_VALUED = _s(
    "--with", "--with-editable", "--with-requirements", "--python", "--index", "--default-index"
) | _s(
    "--index-url", "--extra-index-url", "--find-links", "--index-strategy", "--resolution",
    "--keyring-provider", "--prerelease", "--refresh-package", "--reinstall-package",
    "--no-build-package", "--no-binary-package", "--link-mode", "--config-setting",
    "--exclude-newer", "--from", "--env-file", "--constraints", "--overrides",
    "--build-constraints",
)  # fmt: skip
_UV_RESOLVING_FLAGS = _s(
    "--isolated", "--no-sync", "--frozen", "--locked", "--refresh", "--reinstall", "--upgrade",
    "--no-build", "--no-binary", "--no-build-isolation", "--compile-bytecode", "--no-env-file",
    "--no-sources", "--offline", "--no-cache", "--native-tls", "--no-progress", "--no-config",
    "--no-project", "--all-extras", "--no-dev", "--dev", "--all-groups", "--no-default-groups",
    "--active", "--no-active", "--exact", "--inexact", "--all-packages", "--script",
    "--no-editable", "--no-group", "--only-dev", "--gui-script", "--module",
) | _QUIET  # fmt: skip
_UV_RUN = WrapperSpec(
    flags="qvnsUm",
    valued="wpCfi",
    long_flags=_UV_RESOLVING_FLAGS,
    long_valued=_UV_RESOLVING_VALUED
    | _s("--package", "--extra", "--group", "--only-group", "--no-extra", "--directory")
    | _s("--project", "--cache-dir", "--config-file", "--color", "--python-preference"),
    reads=_s("--env-file", "--with-requirements"),
)
_UVX = Sub(
    "command",
    _UV_RUN,
    scripts=True,
    packages=_s("--from", "--with", "-w", "--with-editable", "--with-requirements"),
    fetch_options=_s("--with", "-w"),
)
_UVX_FETCHED = replace(_UVX, fetches=True)
_PIPX_RUN = WrapperSpec(
    flags="qve",
    valued="i",
    long_flags=_QUIET
    | _s("--no-cache", "--pypackages", "--system-site-packages", "--editable", "--path")
    | _s("--fetch-missing-python"),
    long_valued=_s("--spec", "--python", "--index-url", "--pip-args", "--backend"),
)
_BARE = WrapperSpec(long_flags=_QUIET, flags="qvh")
"""Subcommands that pass every word after them to the command (`poetry run CMD`)."""
_NPX_OPTIONS = WrapperSpec(
    flags="yq",
    valued="pcw",
    long_flags=_s("--yes", "--no", "--quiet", "--silent", "--workspaces", "--ignore-scripts")
    | _s("--include-workspace-root", "--no-install", "--prefer-offline", "--prefer-online"),
    long_valued=_s("--package", "--call", "--workspace", "--prefix", "--registry", "--cache")
    | _s("--loglevel", "--userconfig"),
)
_NPX = Sub("command", _NPX_OPTIONS, shell=_s("-c", "--call"), fetch_options=_s("--package", "-p"))
_NPX_FETCHED = replace(_NPX, fetches=True)
_FETCHED = Sub("nothing", fetches=True)
_PNPM_GLOBAL = WrapperSpec(
    flags="rwshv",
    valued="CF",
    long_flags=_s("--recursive", "--workspace-root", "--silent", "--stream", "--parallel")
    | _s("--aggregate-output", "--use-stderr", "--color", "--no-color", "--no-bail", "--bail")
    | _s("--include-workspace-root", "--fail-if-no-match", "--sort", "--no-sort", "--reverse")
    | _s("--offline", "--prefer-offline", "--ignore-scripts", "--frozen-lockfile", "--help")
    | _s("--version", "--shell-emulator"),
    long_valued=_s("--dir", "--filter", "--filter-prod", "--reporter", "--loglevel")
    | _s("--workspace-concurrency", "--test-pattern", "--changed-files-ignore-pattern")
    | _s("--resume-from", "--store-dir", "--virtual-store-dir", "--modules-dir", "--registry")
    | _s("--lockfile-dir", "--global-dir", "--package"),
)
"""pnpm's options before its command (`pnpm -C DIR dlx X`, `pnpm --filter PKG exec X`): the
valued ones' values are not the command."""
_YARN_GLOBAL = WrapperSpec(
    flags="shv",
    long_flags=_s("--verbose", "--offline", "--prefer-offline", "--silent", "--json", "--help")
    | _s("--ignore-scripts", "--non-interactive", "--no-default-rc", "--no-progress", "--flat")
    | _s("--frozen-lockfile", "--pure-lockfile", "--production", "--no-lockfile", "--force")
    | _s("--ignore-engines", "--ignore-platform", "--ignore-optional", "--check-files", "--har")
    | _s("--skip-integrity-check", "--no-bin-links", "--strict-semver", "--focus", "--version")
    | _s("--no-node-version-check", "--scripts-prepend-node-path", "--update-checksums"),
    long_valued=_s("--cwd", "--modules-folder", "--cache-folder", "--global-folder", "--otp")
    | _s("--link-folder", "--mutex", "--network-timeout", "--registry", "--https-proxy")
    | _s("--preferred-cache-folder", "--proxy", "--network-concurrency", "--emoji")
    | _s("--use-yarnrc"),
)
"""yarn's options before its command (`yarn --cwd DIR dlx X`)."""
"""`pnpm create X`, `npm init X`: the package `create-X`, fetched and run."""
_NPM_GLOBAL = WrapperSpec(
    flags="sqdygflvhH?",
    valued="Cwcm",
    long_flags=frozenset(o for o in NPM.flags | NPM.picks if o.startswith("--")),
    long_valued=frozenset(o for o in NPM.known() if o.startswith("--")),
)
"""npm's options before its command, as runner_argv reads them (`npm --prefix DIR exec X`,
`npm --registry URL init X`): the valued ones' values are not the command."""
_TOX_VALUED = _s(
    "-c", "--conf", "--root", "--workdir", "-x", "--override", "-e", "-m", "-f", "--runner",
    "--installpkg", "--hashseed", "--discover", "--exit-and-dump-after", "-i", "--index-url",
    "--result-json", "--colored", "--stderr-color", "--parallel-live", "--sdistonly",
)  # fmt: skip
_TOX_PARALLEL = re.compile(r"auto|all|[0-9]+")
"""`tox -p`'s optional value (argparse's `nargs="?"`): without one it runs in parallel."""
_TOX = WrapperSpec(
    flags="vqhrnla",
    valued="cxemfi",
    optional_values={"-p": _TOX_PARALLEL, "--parallel": _TOX_PARALLEL},
    long_flags=_QUIET
    | _s("--recreate", "--notest", "--no-recreate-pkg", "--skip-pkg-install", "--develop")
    | _s("--skip-missing-interpreters", "--no-provision", "--list-dependencies", "--pre")
    | _s("--no-list-dependencies", "--no-capture", "--no-recreate-provision", "--devenv")
    | _s("--parallel-no-spinner", "--alwayscopy", "--sitepackages", "--listenvs")
    | _s("--listenvs-all", "--showconfig", "--help-ini", "--hi", "--no-test"),
    long_valued=_TOX_VALUED,
)
_TOX_SUBS = {
    **{(w,): _NOTHING for w in ("run", "r", "run-parallel", "p", "depends", "de", "list", "l")},
    **{(w,): _NOTHING for w in ("devenv", "d", "config", "c", "quickstart", "q", "legacy", "le")},
    ("exec",): Sub("after_dashdash"),
    ("e",): Sub("after_dashdash"),
    (): _NOTHING,
}
_PRE_COMMIT_SUBS = {
    **_nothing("autoupdate", "clean", "gc", "install-hooks", "migrate-config", "run", "help"),
    **_nothing("sample-config", "try-repo", "validate-config", "validate-manifest"),
    ("install",): Sub("nothing", hooks=True),
    ("uninstall",): Sub("nothing", hooks=True),
    ("init-templatedir",): Sub("nothing", hooks=True),
    ("hazmat", "cd"): Sub("command", skips=1),
    ("hazmat", "ignore-exit-code"): Sub("command"),
    ("hazmat", "n1"): Sub("command"),
}
_PRE_COMMIT = WrapperSpec(long_flags=_s("-h", "--help", "-V", "--version"), flags="hV")
_POETRY = WrapperSpec(
    flags="qvnhV",
    valued="CP",
    long_flags=_QUIET
    | _s("--no-ansi", "--ansi", "--no-interaction", "--no-plugins")
    | _s("--no-cache"),
    long_valued=_s("--directory", "--project"),
)
_PDM = WrapperSpec(
    flags="qvhIV",
    valued="c",
    long_flags=_QUIET | _s("--ignore-python", "--pep582"),
    long_valued=_s("--config"),
)
_PDM_RUN = WrapperSpec(
    flags="lsgqv",
    valued="p",
    long_flags=_QUIET | _s("--list", "--site-packages", "--global", "--recreate", "--json"),
    long_valued=_s("--project", "--venv", "--skip"),
)
_HATCH = WrapperSpec(
    flags="qvh",
    valued="ep",
    long_flags=_QUIET | _s("--interactive", "--no-interactive", "--no-color"),
    long_valued=_s("--env", "--project", "--color", "--data-dir", "--cache-dir", "--config"),
)
_HATCH_ENV_RUN = WrapperSpec(
    valued="eix",
    long_flags=_s("--force-continue", "--ignore-compat"),
    long_valued=_s("--env", "--include", "--exclude", "--filter"),
)
_PIPENV = WrapperSpec(
    flags="qvh",
    long_flags=_QUIET
    | _s("--where", "--venv", "--py", "--envs", "--rm", "--bare", "--man", "--support")
    | _s("--site-packages", "--clear", "--three", "--no-site-packages"),
    long_valued=_s("--python", "--pypi-mirror"),
)
_CONDA_RUN = WrapperSpec(
    flags="vs",
    valued="np",
    long_flags=_s("--verbose", "--dev", "--debug-wrapper-scripts", "--no-capture-output")
    | _s("--live-stream"),
    long_valued=_s("--name", "--prefix", "--cwd"),
)
"""`conda run`'s options (argparse: an abbreviation is not understood here, asked); mamba's
(1.x) are conda's."""
_MICROMAMBA_RUN = WrapperSpec(
    flags="vqyd",
    valued="npr",
    long_flags=_QUIET | _s("--detach", "--clean-env", "--yes", "--offline", "--json"),
    long_valued=_s("--name", "--prefix", "--root-prefix", "--cwd", "--label", "--attach"),
)
"""micromamba's (and mamba 2's) `run` options; `-e NAME=VALUE` sets the command's environment
(`LD_PRELOAD`): left out, so asked."""

LAUNCHERS: Mapping[str, Launcher] = {
    "uv": Launcher(
        _UV_GLOBAL,
        {
            ("run",): _UVX,
            ("tool", "run"): _UVX_FETCHED,
            **_nothing("init", "add", "remove", "sync", "lock", "export", "tree", "venv", "build"),
            **_nothing("publish", "cache", "self", "version", "python", "pip", "help", "format"),
            **_nothing("auth", "generate-shell-completion"),
            **{
                ("tool", w): _NOTHING
                for w in ("install", "uninstall", "list", "upgrade", "update-shell", "dir")
            },
        },
    ),
    "uvx": Launcher(WrapperSpec(), {(): _UVX_FETCHED}),
    "pipx": Launcher(
        WrapperSpec(flags="qvh", long_flags=_QUIET),
        {
            ("run",): Sub("command", _PIPX_RUN, scripts=True, packages=_s("--spec"), fetches=True),
            **_nothing("install", "uninstall", "upgrade", "upgrade-all", "list", "inject"),
            **_nothing("uninject", "reinstall", "reinstall-all", "ensurepath", "environment"),
            **_nothing("completions", "interpreter", "pin", "unpin", "upgrade-shared"),
            **_nothing("uninstall-all", "install-all", "runpip"),
        },
    ),
    "poetry": Launcher(
        _POETRY,
        {
            ("run",): Sub("command", _BARE),
            **_nothing("about", "add", "build", "check", "config", "debug", "env", "export"),
            **_nothing("init", "install", "list", "lock", "new", "publish", "remove", "search"),
            **_nothing("self", "shell", "show", "source", "sync", "update", "version", "cache"),
            **_nothing("python", "help"),
        },
    ),
    "pdm": Launcher(
        _PDM,
        {
            ("run",): Sub("command", _PDM_RUN),
            **_nothing("add", "build", "cache", "completion", "config", "export", "fix"),
            **_nothing("import", "info", "init", "install", "list", "lock", "outdated", "new"),
            **_nothing("publish", "python", "py", "remove", "search", "self", "show", "sync"),
            **_nothing("update", "use", "venv", "help"),
        },
    ),
    "hatch": Launcher(
        _HATCH,
        {
            ("run",): Sub("command", _BARE, environments=True),
            ("env", "run"): Sub("command", _HATCH_ENV_RUN),
            **_nothing("build", "clean", "config", "dep", "fmt", "new", "project", "publish"),
            **_nothing("python", "self", "shell", "status", "test", "version", "help"),
            **{(("env", w)): _NOTHING for w in ("create", "find", "prune", "remove", "show")},
        },
    ),
    "pipenv": Launcher(
        _PIPENV,
        {
            ("run",): Sub("command", _BARE),
            **_nothing("check", "clean", "graph", "install", "lock", "open", "requirements"),
            **_nothing("scripts", "shell", "sync", "uninstall", "update", "upgrade", "verify"),
            **_nothing("audit", "activate"),
            (): _NOTHING,
        },
    ),
    "tox": Launcher(_TOX, _TOX_SUBS, overrides=_s("-x", "--override")),
    **dict.fromkeys(("pre-commit", "pre_commit"), Launcher(_PRE_COMMIT, _PRE_COMMIT_SUBS)),
    "npx": Launcher(WrapperSpec(), {(): _NPX}),
    # pnpx is `pnpm dlx`, bunx `bun x`: each fetches what it runs.
    **dict.fromkeys(("pnpx", "bunx"), Launcher(WrapperSpec(), {(): _NPX_FETCHED})),
    "npm": Launcher(
        _NPM_GLOBAL,
        {("exec",): _NPX, ("init",): _FETCHED},
        closed=False,
        names=npm_command,
    ),
    "pnpm": Launcher(
        _PNPM_GLOBAL,
        {("exec",): _NPX, ("dlx",): _NPX_FETCHED, ("create",): _FETCHED},
        closed=False,
    ),
    **dict.fromkeys(
        ("yarn", "yarnpkg"),
        Launcher(
            _YARN_GLOBAL,
            {("exec",): _NPX, ("dlx",): _NPX_FETCHED, ("create",): _FETCHED},
            closed=False,
        ),
    ),
    "bun": Launcher(WrapperSpec(), {("x",): _NPX_FETCHED}, closed=False),  # bunx
    **dict.fromkeys(
        ("conda", "mamba"),
        Launcher(WrapperSpec(), {("run",): Sub("command", _CONDA_RUN)}, closed=False),
    ),
    "micromamba": Launcher(
        WrapperSpec(), {("run",): Sub("command", _MICROMAMBA_RUN)}, closed=False
    ),
    # cmcmd.cxx: `-E` is read only as the first word; `time` and `chdir` take no options,
    # `env` takes env's `--unset=NAME` and `NAME=VALUE` (its `--modify` is asked by env).
    "cmake": Launcher(
        WrapperSpec(),
        {
            ("-E", "env"): Sub("command", program="env"),
            ("-E", "time"): Sub("command"),
            ("-E", "chdir"): Sub("command", chdir=True),
        },
        closed=False,
    ),
}
"""Launchers by program or `python3 -m` module name."""

TOX_COMMAND_KEYS = ("commands", "commands_pre", "commands_post", "install_command")
"""tox settings whose value is a command line (`list_dependencies_command` too: `*_command`)."""
TOX_HARMLESS_KEYS = frozenset(
    {"description", "labels", "skip_install", "parallel_show_output", "ignore_outcome"}
    | {"ignore_errors", "suicide_timeout", "interrupt_timeout", "terminate_timeout"}
    | {"recreate", "fail_fast", "skip_missing_interpreters", "env_list", "envlist"}
)
"""tox settings that only tune a run; any other (`set_env`, `deps`, `base_python`,
`allowlist_externals`...) may name a program, a package or a variable that loads code."""
