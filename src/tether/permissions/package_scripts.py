"""The package.json scripts a package manager runs (npm, pnpm, yarn, bun) and the tasks
`deno task` runs, read from its words as the manager reads them: options before and between
the words (`npm --loglevel silent run X`: a word after an option that may take a value may
be that value or the command, so both are judged), the directory it works in (`--prefix`,
`-C`, `--dir`, `--cwd`), the commands that run lifecycle scripts (`install` runs
`preinstall`, `install`, `postinstall`, `prepare`...; `restart` runs `stop` and `start`
without its own) and `yarn X`/`pnpm X`/`bun X` running the script X. What changes what the
scripts run and is not understood is code not read: a script shell that is not a plain
shell, a config file tether does not know (`--userconfig`), more than one package
(`--workspaces`, `-r`, `--filter` other than `.`), a project config file with a setting that
runs code (`.npmrc`'s `script-shell`, `.yarnrc.yml`'s `yarnPath`, `bunfig.toml`'s
`preload`; `package_configs.py`)."""

from __future__ import annotations

import re

from tether.permissions.node_option_words import node_option_readings
from tether.permissions.npm_config import npm_setting
from tether.permissions.option_names import long_option
from tether.permissions.package_workspaces import EVERY
from tether.permissions.pnpm_settings import pnpm_setting
from tether.permissions.runner_tables import BUN_ALIASES, NPM, PNPM, YARN
from tether.permissions.script_arguments import passed_readings
from tether.permissions.shell_words import is_literal
from tether.permissions.yarn_workspaces import yarn_workspace

RUNNERS = frozenset({"npm", "pnpm", "yarn", "bun"})
_RUN = frozenset({"run", "run-script", "rum", "urn"})
_INSTALL = ("preinstall", "install", "postinstall", "preprepare", "prepare", "postprepare")
_INSTALLS = frozenset(
    {"install", "i", "in", "ins", "inst", "insta", "instal", "isnt", "isnta", "isntal"}
    | {"isntall", "add", "a", "ci", "clean-install", "ic", "install-clean", "isntall-clean"}
    | {"uninstall", "remove", "rm", "r", "un", "unlink", "update", "up", "upgrade", "udpate"}
    | {"dedupe", "ddp", "prune", "rebuild", "rb", "link", "ln", "import", "fetch"}
    | {"deploy", "patch-commit"}
)
_TESTS = frozenset({"install-test", "it", "install-ci-test", "cit"})
_LIFECYCLE: dict[str, tuple[str, ...]] = {
    "test": ("pretest", "test", "posttest"),
    "t": ("pretest", "test", "posttest"),
    "tst": ("pretest", "test", "posttest"),
    "start": ("prestart", "start", "poststart"),
    "stop": ("prestop", "stop", "poststop"),
    "restart": (
        *("prerestart", "restart", "postrestart", "prestop", "stop", "poststop"),
        *("prestart", "start", "poststart"),
    ),
    "pack": ("prepack", "prepare", "postpack"),
    "publish": (
        *("prepublishOnly", "prepack", "prepare", "postpack", "publish", "prepublish"),
        "postpublish",
    ),
    "version": ("preversion", "version", "postversion"),
    "diff": ("preprepare", "prepare", "postprepare"),  # the local package is packed
}
_BUN_PM: dict[str, tuple[str, ...]] = {
    "pack": _LIFECYCLE["pack"],
    "version": _LIFECYCLE["version"],
    "trust": _INSTALL,  # it installs, as `bun install` does
    **dict.fromkeys(
        ("bin", "ls", "list", "whoami", "hash", "hash-string", "hash-print", "cache"), ()
    ),
    **dict.fromkeys(("migrate", "untrusted", "default-trusted", "view", "pkg", "why"), ()),
}
"""`bun pm SUB`: the scripts each runs (`bun pm pack` packs as `bun pack` does); a
subcommand not listed is code not read."""
_UNKNOWN = "?"
"""A command whose scripts tether does not know: code not read."""
_PLAIN = frozenset(
    {"ls", "list", "ll", "la", "view", "v", "info", "show", "outdated", "config", "c", "get"}
    | {"set", "help", "search", "s", "find", "whoami", "ping", "doctor", "audit", "why"}
    | {"explain", "fund", "root", "bin", "prefix", "cache", "login", "logout", "owner"}
    | {"access", "token", "team", "dist-tag", "deprecate", "unpublish", "star", "stars"}
    | {"docs", "bugs", "repo", "home", "pkg", "query", "sbom", "completion", "exec", "x"}
    | {"dlx", "init", "create", "licenses", "store", "env", "node", "--version", "-v"}
)
"""Commands that run no package script (`npm run env` is the script `env`, or env)."""
_BOOLEAN = frozenset(
    {"-s", "--silent", "-q", "--quiet", "-d", "-dd", "-ddd", "--verbose", "-g", "--global"}
    | {"-y", "--yes", "--if-present", "--ignore-scripts", "--offline", "--prefer-offline"}
    | {"--json", "--parseable", "--long", "-l", "--foreground-scripts", "--dry-run", "-f"}
    | {"--force", "--legacy-peer-deps", "-D", "-S", "-E", "-P", "-O", "-B", "--save-dev"}
    | {"--save", "--frozen-lockfile", "--production", "--prod", "--dev", "--stream"}
    | {"--parallel", "--no-bail", "--include-workspace-root", "--help", "-h", "--version"}
)
"""Options that take no value: the word after one is the command."""
_PLACES = frozenset({"--prefix", "-C", "--dir", "--cwd"})
_WORKSPACE = frozenset({"--workspace", "-w"})
_MANY = frozenset({"--workspaces", "-ws", "-r", "--recursive"})
_FILTERS = frozenset({"--filter", "-F"})
_SHELL_SETTINGS = frozenset({"--script-shell", "--config.script-shell", "--shell"})
_CONFIG_FILES = frozenset({"--userconfig", "--globalconfig", "--config", "--npmrc"})
_NODE_OPTIONS = "--node-options"
"""The options every node a script starts takes (`NODE_OPTIONS`): one that loads code, or one
not known harmless, is code not read; the harmless ones below are not."""
_HARMLESS_NODE = re.compile(
    r"--(max-old-space-size|max-semi-space-size|stack-trace-limit|max-http-header-size"
    r"|unhandled-rejections|dns-result-order|stack-size)=[\w.:-]+"
    r"|--(enable-source-maps|trace-warnings|no-warnings|no-deprecation|trace-deprecation"
    r"|throw-deprecation|experimental-vm-modules|openssl-legacy-provider|use-openssl-ca"
    r"|use-bundled-ca|trace-uncaught|pending-deprecation|preserve-symlinks)"
)
SHELLS = frozenset({"sh", "bash", "dash", "/bin/sh", "/bin/bash", "/bin/dash", "/usr/bin/bash"})
_VALUED = _PLACES | _WORKSPACE | _FILTERS | _SHELL_SETTINGS | _CONFIG_FILES | {_NODE_OPTIONS}
_LONG_VALUED = frozenset(o for o in _VALUED if o.startswith("--"))
_FULL_NAMES = (NPM.flags | NPM.picks | NPM.known() | PNPM.flags | YARN.flags) - _VALUED
"""Options of the runners known in full: each itself, no abbreviation of a longer one."""
CONFIGS = {
    "npm": (".npmrc",),
    "pnpm": (".npmrc", ".pnpmfile.cjs"),
    "yarn": (".npmrc", ".yarnrc", ".yarnrc.yml"),
    "bun": (".npmrc", "bunfig.toml"),
}


class PackageRun:
    """What a package manager's words run: the scripts (in order), the words it passes on
    to some of them (each way they may reach it: script_arguments.py), the directory it
    works in (relative to where it starts, or None), the workspace's packages it runs them
    in (their selectors, package_workspaces.py; none: its own), and why some is code not
    read."""

    __slots__ = ("directory", "packages", "passed", "scripts", "unread")

    def __init__(self) -> None:
        self.scripts: list[str] = []
        self.passed: dict[str, tuple[tuple[str, ...], ...]] = {}
        self.directory: str | None = None
        self.packages: list[str] = []
        self.unread: list[str] = []


def package_run(
    name: str, args: tuple[str, ...], assignments: tuple[tuple[str, str], ...]
) -> PackageRun | None:
    """The scripts `name ARGS` runs from package.json; None when it runs none."""
    words = args
    run = PackageRun()
    if name == "yarn":
        moved = yarn_workspace(words)
        if isinstance(moved, str):
            run.unread.append(moved)
        elif moved is not None:
            run.packages.append(moved[0])
            words = moved[1]
    verbs: list[int] = []
    maybe_value = False
    found = False
    i = 0
    while i < len(words):
        word = words[i]
        option, eq, value = word.partition("=")
        exact = option in _FULL_NAMES  # `npm --global`: no prefix of `--globalconfig`
        full = long_option(word, _LONG_VALUED) if word.startswith("--") and not exact else None
        option = full[0] if full is not None else option  # nopt takes any prefix
        if word == "--":
            break
        workspaces = _npm_workspaces(word) if name == "npm" else None
        if workspaces is not None:
            setting, value = workspaces
            if setting == "--workspace" and value is None:
                value = words[i + 1] if i + 1 < len(words) else ""
                i += 1
            if setting == "--workspace" or value not in ("false", "0", ""):
                _option(name, setting, value or "", run)  # `--ws=false` selects none
        elif word in _MANY:
            _option(name, word, "", run)
        elif name == "pnpm" and option.startswith(("--config.", "--use-node-version")):
            if not eq:
                value = words[i + 1] if i + 1 < len(words) else ""
                i += 1
            setting = pnpm_setting(option, value)  # `--config.node-options=-r x`
            if isinstance(setting, str):
                run.unread.append(setting)
            elif setting is not None:
                _option(name, *setting, run)
        elif word.startswith("-") and word != "-":
            known = option in _VALUED and not (name == "pnpm" and option == "-w")
            if known and not eq:
                value = words[i + 1] if i + 1 < len(words) else ""
                i += 1
            if known or eq:
                _option(name, option, value, run)
            maybe_value = not eq and not known and word not in _BOOLEAN
        elif not found:
            verbs.append(i)  # the command, or the value of the option before it
            found = not maybe_value
            maybe_value = False
        i += 1
    for key, value in assignments:
        setting = key.lower().removeprefix("npm_config_").removeprefix("pnpm_config_")
        if setting != key.lower() and setting.replace("_", "-") in ("script-shell", "shell"):
            _option(name, "--script-shell", value, run)
        elif setting != key.lower() and setting.replace("_", "-") == "node-options":
            _option(name, _NODE_OPTIONS, value, run)
        elif setting != key.lower() and setting in ("userconfig", "globalconfig", "prefix"):
            run.unread.append(f"{key} names a config or directory tether does not read")
        elif key.upper() in ("YARN_YARN_PATH", "YARN_PLUGINS", "YARN_RC_FILENAME"):
            run.unread.append(f"{key} names code tether does not read")
    end = words.index("--") if "--" in words else len(words)
    for position in verbs or [end]:
        run.scripts += _scripts(name, words[position:end])
        for script, after in _script_calls(name, words[position:]):
            readings = passed_readings(name, after)
            run.passed[script] = (*run.passed.get(script, ()), *readings)
    runs = bool(run.scripts)
    if "*" in run.scripts:
        run.unread.append(f"{name} runs the scripts of another package")
    if _UNKNOWN in run.scripts:
        shown = " ".join(w for w in words[:end] if not w.startswith("-"))
        run.unread.append(f"{name} {shown} runs code whose scripts tether does not know")
    run.scripts = [s for s in dict.fromkeys(run.scripts) if s not in ("*", _UNKNOWN)]
    return run if runs else None


def _npm_workspaces(word: str) -> tuple[str, str | None] | None:
    """The workspace setting an npm option word gives, as nopt reads it (npm_config.py:
    `--ws`, `--ws=true`, `--w NAME`, a prefix of `--workspace`): the setting and its value
    (None: the next word for `--workspace`, true for `--workspaces`); None for another."""
    settings = npm_setting(word) if word.startswith("-") and word != "--" else None
    for setting, value in settings or ():
        if setting in ("--workspaces", "--workspace"):
            return setting, value
    return None


def _option(name: str, option: str, value: str, run: PackageRun) -> None:
    if not is_literal(value):
        run.unread.append(f"{name}'s {option} is known only as it runs")
    elif option in _PLACES:
        if run.directory is not None and run.directory != value:
            run.unread.append(f"{name} is given more than one directory")
        run.directory = value
    elif option in _WORKSPACE and not (name == "pnpm" and option == "-w"):
        run.packages.append(value)  # a package's name or directory
    elif option in _FILTERS and value not in (".", "./"):
        run.packages.append(value)
    elif option in _MANY:
        run.packages.append(EVERY)
    elif option in _SHELL_SETTINGS and value not in SHELLS:
        run.unread.append(f"{name} runs its scripts with {value}, which tether does not read")
    elif option == _NODE_OPTIONS:
        readings = node_option_readings(value)  # node's splitting, not a shell's
        if readings is None or not all(_HARMLESS_NODE.fullmatch(w) for r in readings for w in r):
            run.unread.append(f"{name} starts node with the options {value!r}: code not read")
    elif option in _CONFIG_FILES:
        run.unread.append(f"{name} reads the config {value}, which tether does not read")


def _script_names(words: tuple[str, ...]) -> list[str]:
    """Each word after `run` that may be the script's name: the first that is not an
    option's value, and those before it that may be one."""
    names: list[str] = []
    maybe_value = skip = False
    for word in words:
        if skip:
            skip = False
        elif word.startswith("-") and word != "-":
            skip = word in _VALUED
            maybe_value = "=" not in word and not skip and word not in _BOOLEAN
        else:
            names.append(word)
            if not maybe_value:
                break
            maybe_value = False
    return names


def _scripts(name: str, words: tuple[str, ...]) -> list[str]:
    """The scripts the command `words[0]` runs (none: the install a bare `yarn` is); yarn,
    pnpm and bun may run a script by the name of a command they do not have (`yarn
    fetch`), so for them that script too."""
    if name == "bun" and words:
        words = (BUN_ALIASES.get(words[0], words[0]), *words[1:])
    found = _command_scripts(name, words)
    verb = words[0] if words else ""
    own = name == "bun" and verb in ("pm", "create")  # no script by those names runs
    if name != "npm" and verb and verb not in _RUN and "/" not in verb and found and not own:
        found += [f"pre{verb}", verb, f"post{verb}"]
    return found


def _script_calls(name: str, words: tuple[str, ...]) -> list[tuple[str, tuple[str, ...]]]:
    """The script the command `words[0]` runs with the words after its name, which the
    manager passes on to it (`npm run S ...`, `npm test ...`, `yarn S ...`)."""
    if name == "bun" and words:
        words = (BUN_ALIASES.get(words[0], words[0]), *words[1:])
    if not words:
        return []
    verb, rest = words[0], words[1:]
    if verb in _RUN:
        before = rest[: rest.index("--")] if "--" in rest else rest
        calls: list[tuple[str, tuple[str, ...]]] = []
        start = 0
        for script in _script_names(before):
            start = before.index(script, start) + 1
            calls.append((script, rest[start:]))
        return calls
    if verb in ("test", "t", "tst", "start", "stop"):
        return [(_LIFECYCLE[verb][1], rest)]
    scripts = _command_scripts(name, words)
    if name != "npm" and scripts == [f"pre{verb}", verb, f"post{verb}"]:
        return [(verb, rest)]  # `yarn build --watch`, `pnpm lint src`
    return []


def _command_scripts(name: str, words: tuple[str, ...]) -> list[str]:
    verb = words[0] if words else ("install" if name == "yarn" else "")
    rest = [w for w in words[1:] if not w.startswith("-")]
    if verb in _RUN:
        return [s for w in _script_names(words[1:]) for s in (f"pre{w}", w, f"post{w}")]
    if verb in _INSTALLS or (verb == "audit" and "fix" in rest):
        return list(_INSTALL)
    if verb in _TESTS:
        return [*_INSTALL, "pretest", "test", "posttest"]
    if verb in _LIFECYCLE:
        return list(_LIFECYCLE[verb])
    if name == "bun" and verb == "pm":
        return list(_BUN_PM.get(rest[0], (_UNKNOWN,))) if rest else []
    if name == "bun" and verb == "create":
        # A template's own scripts (`bun-create` hooks), a `create-X` package or a repository.
        return [_UNKNOWN]
    if verb in ("workspace", "workspaces") and name == "yarn":
        return ["*"]  # another package's scripts: not read
    if not verb or verb in _PLAIN or name == "npm" or "/" in verb:
        return []
    return [f"pre{verb}", verb, f"post{verb}"]  # `yarn build`, `pnpm build`, `bun build`
