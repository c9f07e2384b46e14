"""The commands Python projects' task runners run from their files, read where that is simple
to read exactly, as text judged as bash (as make's recipes are): `pdm run NAME` runs
`[tool.pdm.scripts]` NAME (`cmd`, `shell`, `composite`; with its `pre_`/`post_` hooks and
`pre_run`/`post_run`/`pre_script`/`post_script`, and `pdm install|lock|build|publish|sync`
their hooks), `poe NAME` `[tool.poe.tasks]` NAME (`cmd`, `shell`, `sequence`, `ref`,
`deps`), `hatch run [ENV:]NAME` an environment's `scripts` (in pyproject.toml or hatch.toml,
a command naming another script expanded, and the environments' `pre-install-commands` and
`post-install-commands`), and `tox` every `commands`, `commands_pre`, `commands_post` and
`install_command` of tox.ini, setup.cfg, pyproject's `legacy_tox_ini` or a TOML
configuration. An `env_file`/`envfile` is a read of that file (`: < FILE`). What is not read
this way (Python called by `call`/`script`/`expr`, `switch` tasks, includes) is code not
read."""

from __future__ import annotations

import configparser
import re
import shlex
import tomllib
from typing import Any, cast

from tether.permissions.launcher_table import LAUNCHERS
from tether.permissions.wrapper_options import parse_options

Reading = tuple[str | None, tuple[str, ...]]

PYTHON_RUNNERS = {
    "pdm": ("pyproject.toml",),
    "poe": ("pyproject.toml",),
    "hatch": ("pyproject.toml", "hatch.toml"),
    "tox": ("tox.ini", "setup.cfg", "pyproject.toml", "tox.toml"),
}
"""The files each runner reads from its project's directory (every one that exists)."""
_MAX = 64
ELSEWHERE = "\0elsewhere"
"""In `runner_names`: the runner reads a project or configuration its options name."""
_ELSEWHERE = {
    "pdm": ("-p", "--project", "-g", "--global"),
    "poe": ("-C", "--directory", "--root"),
    "hatch": ("-p", "--project"),
    "tox": ("-c", "--conf", "--root", "--workdir"),
}
"""(tox's `-x KEY=VALUE` overrides are judged by the launcher table, its files read still.)"""
_SUBSTITUTION = re.compile(r"\{[^{}]*\}")
_PDM_HOOKED = frozenset({"install", "lock", "build", "publish", "sync", "add", "remove"})
_TOX_READS_NOTHING = frozenset(
    {"list", "l", "config", "c", "quickstart", "q", "depends", "de", "exec", "e"}
    | {"--version", "-h", "--help", "--help-ini", "--hi", "-l", "-a", "--showconfig"}
)


def runner_names(name: str, args: tuple[str, ...]) -> tuple[str, ...] | None:
    """The scripts or tasks runner `name` runs by its words (() for tox: all it reads);
    None when it runs none from its files."""
    own = args[: args.index("--")] if "--" in args else args  # the launched command's after
    words = [a for a in args if not a.startswith("-")]
    if any(a.split("=")[0] in _ELSEWHERE.get(name, ()) for a in own):
        return (ELSEWHERE,)
    if name == "tox":
        return None if _TOX_READS_NOTHING & set(args[:1] + tuple(words[:1])) else ()
    if name == "poe":
        return tuple(words[:1]) or None
    if name == "pdm":
        if words[:1] == ["run"] and len(words) > 1:
            script = words[1]
            hooks = ("pre_run", "post_run", "pre_script", "post_script")
            return (script, f"pre_{script}", f"post_{script}", *hooks)
        if words[:1] and words[0] in _PDM_HOOKED:
            return (f"pre_{words[0]}", f"post_{words[0]}")
        return None
    if name == "hatch":
        return _hatch_script(args)
    return None


def _hatch_script(args: tuple[str, ...]) -> tuple[str, ...] | None:
    """The script `hatch [GLOBAL OPTIONS] run [ENV:]NAME` or `hatch env run [OPTIONS] [--]
    NAME` runs (`env run` is the command behind `run`), its options read with the launcher
    table's grammar (`hatch -e ENV run`, `--env=ENV`); None for another subcommand. Options
    not understood: every word that may be the script."""
    hatch = LAUNCHERS["hatch"]
    parsed = parse_options(args, hatch.options)
    if isinstance(parsed, str):
        return tuple(a for a in args if not a.startswith("-"))
    rest = args[parsed.rest :]
    if rest[:1] == ("run",):
        rest = rest[1:]
    elif rest[:2] == ("env", "run"):
        ran = parse_options(rest[2:], hatch.subcommands[("env", "run")].options)
        if isinstance(ran, str):
            return tuple(a for a in rest[2:] if not a.startswith("-"))
        rest = rest[2 + ran.rest :]
    else:
        return None
    rest = rest[1:] if rest[:1] == ("--",) else rest
    return rest[:1] or None


def python_runner_text(kind: str, texts: list[str], names: tuple[str, ...]) -> Reading:
    """What runner `kind` runs from its files' `texts` for `names`, and why some is not read."""
    commands: list[str] = []
    unread: list[str] = []
    for text in (t for t in texts if t.strip()):
        data = _toml(text)
        if kind == "tox":
            _tox(text, data, commands, unread)
        elif data is None:
            unread.append(f"tether cannot read {kind}'s project file")
        elif kind == "pdm":
            _pdm(_table(data, "tool", "pdm", "scripts"), names, commands, unread)
        elif kind == "poe":
            tool = _table(data, "tool", "poe")
            if "include" in tool or "envfile" in tool:
                unread.append("poe's included tasks and env files, which tether does not read")
            _poe(_table(tool, "tasks"), names, commands, unread)
        else:
            envs = _table(data, "tool", "hatch", "envs") or _table(data, "envs")
            _hatch(envs, names, commands, unread)
    return "\n".join(commands[: _MAX * 4]) or None, tuple(dict.fromkeys(unread))


def _toml(text: str) -> dict[str, Any] | None:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return None


def _table(data: object, *keys: str) -> dict[str, Any]:
    for key in keys:
        data = cast(dict[str, Any], data).get(key) if isinstance(data, dict) else None
    return cast(dict[str, Any], data) if isinstance(data, dict) else {}


def _command(value: object) -> str | None:
    """A command given as a string or as a list of words."""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(w, str) for w in cast(list[Any], value)):
        return shlex.join(cast(list[str], value))
    return None


def _env_file(value: object) -> list[str]:
    files = value if isinstance(value, list) else [value]
    return [f": < {shlex.quote(f)}" for f in cast(list[Any], files) if isinstance(f, str)]


def _pdm(
    scripts: dict[str, Any], names: tuple[str, ...], out: list[str], unread: list[str]
) -> None:
    shared = _table(scripts, "_")
    out += _env_file(shared.get("env_file"))
    wanted = list(names)
    for name in wanted:
        if len(wanted) > _MAX or name not in scripts:
            continue
        script = scripts[name]
        script = {"cmd": script} if isinstance(script, (str, list)) else script
        if not isinstance(script, dict):
            continue
        body = cast(dict[str, Any], script)
        env_file = body.get("env_file")
        out += _env_file(env_file.get("override") if isinstance(env_file, dict) else env_file)  # pyright: ignore[reportUnknownMemberType]
        for key in ("cmd", "shell"):
            command = _command(body.get(key))
            out += [command] if command is not None else []
        if "call" in body:
            unread.append(f"pdm's script {name} calls Python, which tether does not read")
        for step in body.get("composite") or []:
            command = _command(step)
            first = shlex.split(command)[:1] if command else []
            if first and first[0] in scripts:
                wanted.append(first[0])
            elif command is not None:
                out.append(command)


def _poe(tasks: dict[str, Any], names: tuple[str, ...], out: list[str], unread: list[str]) -> None:
    wanted = list(names)
    for name in wanted:
        if len(wanted) > _MAX or name not in tasks:
            continue
        task = tasks[name]
        if isinstance(task, str):
            task = {"cmd": task}
        elif isinstance(task, list):
            task = {"sequence": task}
        if not isinstance(task, dict):
            continue
        body = cast(dict[str, Any], task)
        out += _env_file(body.get("envfile"))
        for key in ("cmd", "shell"):
            command = _command(body.get(key))
            out += [command] if command is not None else []
        for key in ("script", "expr", "switch", "uses"):
            if key in body:
                unread.append(f"poe's task {name} runs its {key}, which tether does not read")
        steps = [body.get("ref"), *(body.get("sequence") or []), *(body.get("deps") or [])]
        for step in steps:
            if isinstance(step, str) and step.strip():
                wanted.append(step.split()[0])  # a task by its name, with its arguments
            elif isinstance(step, dict):  # an inline task
                inline = cast(dict[str, Any], step)
                found = [_command(inline.get(k)) for k in ("cmd", "shell")]
                out += [c for c in found if c is not None]
                if not any(found):
                    unread.append(f"poe's task {name} has a step tether does not read")


def _hatch(envs: dict[str, Any], names: tuple[str, ...], out: list[str], unread: list[str]) -> None:
    env, _, script = names[0].rpartition(":") if names else ("", "", "")
    chosen = [e for e in envs if e == env.partition(".")[0]] if env else list(envs)
    scripts: dict[str, Any] = {}
    for name in chosen or list(envs):
        table = _table(envs, name)
        scripts = {**_table(table, "scripts"), **scripts}
        for key in ("pre-install-commands", "post-install-commands"):
            out += [c for c in (_command(v) for v in table.get(key) or []) if c is not None]
        out += _env_file(table.get("env-file"))
    wanted = [script] if script else []
    for name in wanted:
        if len(wanted) > _MAX or name not in scripts:
            continue
        value = scripts[name]
        for command in value if isinstance(value, list) else [value]:
            if not isinstance(command, str):
                unread.append(f"hatch's script {name}, which tether does not read")
                continue
            first = command.split(maxsplit=1)[:1]
            if first and first[0] in scripts:
                wanted.append(first[0])
            else:
                out.append(command)


def _tox(text: str, data: dict[str, Any] | None, out: list[str], unread: list[str]) -> None:
    if data is not None:
        legacy = _table(data, "tool", "tox").get("legacy_tox_ini")
        if isinstance(legacy, str):
            _tox(legacy, None, out, unread)
            return
        _tox_toml(_table(data, "tool", "tox") if "tool" in data else data, out, unread)
        return
    parser = configparser.RawConfigParser(strict=False, interpolation=None)
    try:
        parser.read_string(text)
    except configparser.Error:
        unread.append("tether cannot read tox's configuration")
        return
    for section in parser.sections():
        if not (section.startswith("testenv") or section in ("tox", "tox:tox")):
            continue
        for key in ("commands", "commands_pre", "commands_post", "install_command"):
            value = parser.get(section, key, fallback="")
            value = value.replace("\\\n", " ")
            out += [_tox_line(line) for line in value.splitlines() if line.strip()]


def _tox_line(line: str) -> str:
    """A tox command line as bash: `{posargs}` dropped, `{toxinidir}` the project, any other
    substitution a word known only as it runs; a leading `-` or `!` (exit status) dropped."""
    line = line.strip().lstrip("-!").strip()
    line = re.sub(r"\{posargs(:[^{}]*)?\}", "", line)
    line = line.replace("{toxinidir}", ".").replace("{tox_root}", ".")
    return _SUBSTITUTION.sub("${TOX}", line)


def _tox_toml(table: object, out: list[str], unread: list[str], depth: int = 0) -> None:
    """Every `commands*` list (of word lists) in a TOML configuration, at any depth."""
    if not isinstance(table, dict) or depth > 8:
        return
    for key, value in cast(dict[str, Any], table).items():
        if key in ("commands", "commands_pre", "commands_post") and isinstance(value, list):
            for command in cast(list[Any], value):
                line = _command(command)
                if line is None:
                    unread.append("a tox command tether does not read")
                else:
                    out.append(_tox_line(line))
        else:
            _tox_toml(value, out, unread, depth + 1)
