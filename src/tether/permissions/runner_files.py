"""The commands build runners other than make run from their files, read where that is simple to
read exactly, as text judged as bash (as make's recipes are): ninja's rules' `command =` lines
(every rule's: any may build), just's recipes (the goal's and those it depends on, the first
recipe by default) and backtick assignments, a Taskfile's `cmds`, `deps`, `sh:` variables of the
task named (`default`) and its `dotenv` files (reads). What is not read this way is code not
read: rake's Rakefile (Ruby), the Python task files of nox, invoke, scons and doit
(`noxfile.py`, `tasks.py`, `SConstruct`, `dodo.py`), ninja's `include`/`subninja`, just's `set
shell`, shebang recipes, `import`/`mod`, a Taskfile's `includes` and anything not understood."""

from __future__ import annotations

import re
import shlex

import yaml

RUNNER_FILES = {
    "ninja": ("build.ninja",),
    "just": ("justfile", "Justfile", ".justfile", "JUSTFILE"),
    "task": ("Taskfile.yml", "taskfile.yml", "Taskfile.yaml", "taskfile.yaml"),
    "rake": ("Rakefile", "rakefile", "Rakefile.rb", "rakefile.rb"),
    "nox": ("noxfile.py",),
    **dict.fromkeys(("invoke", "inv"), ("tasks.py", "tasks/__init__.py")),
    "scons": tuple(
        f"{n}{py}" for py in ("", ".py") for n in ("SConstruct", "Sconstruct", "sconstruct")
    ),
    "doit": ("dodo.py",),
}
"""The file each runner reads from its directory (or the nearest one up that holds one), the
first that exists."""
_CODE_NOT_READ = {
    "rake": "its Rakefile's Ruby code",
    "nox": "noxfile.py's Python code",
    "invoke": "its tasks module's Python code",
    "inv": "its tasks module's Python code",
    "scons": "its SConstruct's Python code",
    "doit": "dodo.py's Python code",
}
"""Runners whose file is code in a language tether does not read: running it is asked, as any
code not seen (the Python task runners as `python3 -m X` too: RUNNER_MODULES)."""
_TEMPLATE = re.compile(r"\{\{.*?\}\}", re.S)
_JUST_HEADER = re.compile(r"^@?([A-Za-z_][\w-]*)([^:=]*):(?!=)(.*)$")
_MAX_TASKS = 64

Reading = tuple[str | None, tuple[str, ...]]


def runner_text(kind: str, text: str, names: tuple[str, ...]) -> Reading:
    """What runner `kind` runs from its file's `text` for the goals `names` (() the
    default), and why some of it is not read."""
    if not text.strip():
        return None, ()
    if kind in _CODE_NOT_READ:
        return None, (f"{kind} runs {_CODE_NOT_READ[kind]}, which tether does not read",)
    if kind == "ninja":
        return _ninja(text)
    if kind == "just":
        return _just(text, names)
    return _task(text, names)


def _ninja(text: str) -> Reading:
    unread: list[str] = []
    commands: list[str] = []
    for line in text.replace("$\n", "").splitlines():
        word = line.split(maxsplit=1)[:1]
        if word in (["include"], ["subninja"]):
            unread.append(f"build.ninja's {word[0]}, which tether does not read")
        found = re.match(r"\s+(command|rspfile_content)\s*=\s*(.*)$", line)
        if found is not None:
            commands.append(_ninja_shell(found.group(2)))
    return "\n".join(commands) or None, tuple(unread)


def _ninja_shell(value: str) -> str:
    """A ninja value as the shell text it becomes: `$$` a `$`, `$ ` a space, `$:` a colon,
    a variable (`$in`, `${out}`) a value known only as ninja runs."""
    value = re.sub(r"\$([ :])", r"\1", value)
    parts = value.split("$$")
    return "$".join(re.sub(r"\$\{?(\w+)\}?", r"${\1}", p) for p in parts)


def _just(text: str, names: tuple[str, ...]) -> Reading:
    unread: list[str] = []
    recipes: dict[str, tuple[list[str], list[str]]] = {}
    first: str | None = None
    current: list[str] | None = None
    commands: list[str] = []
    for line in text.splitlines():
        if line[:1] in (" ", "\t") and current is not None:
            body = line.strip()
            if not current and body.startswith("#!"):
                unread.append("a just recipe run by a shebang interpreter, not read")
            current.append(_TEMPLATE.sub("${JUST}", body).lstrip("@-"))
            continue
        stripped = line.split("#", 1)[0].strip() if not line.startswith("#!") else ""
        current = None
        if not stripped or stripped.startswith("["):
            continue
        if re.match(r"(set|import|mod|export\s+\w+\s*:=\s*`)\b", stripped) or "`" in stripped:
            unread_setting = re.match(
                r"set\s+(shell|windows-shell|script-interpreter|dotenv)", stripped
            )
            if unread_setting or re.match(r"(import|mod)\b", stripped):
                unread.append(f"the justfile's `{stripped[:40]}`, which tether does not read")
            commands += re.findall(r"`([^`]*)`", stripped)  # run as just reads the file
            if not re.match(r"\w[\w-]*\s*:=", stripped.removeprefix("export ").strip()):
                continue
        header = _JUST_HEADER.match(stripped)
        if header is None:
            if not re.match(r"(export\s+)?\w[\w-]*\s*:=|set\s|alias\s", stripped):
                unread.append(f"the justfile line `{stripped[:40]}`, which tether does not read")
            continue
        name = header.group(1)
        depends = re.findall(r"\(?([A-Za-z_][\w-]*)", header.group(3).replace("&&", " "))
        recipes[name] = (current := [], depends)
        first = first or name
    wanted = list(names[:1]) if names else ([first] if first else [])
    for name in wanted:
        if len(wanted) > _MAX_TASKS:
            break
        found = recipes.get(name)
        if found is None:
            continue
        commands += found[0]
        wanted += [d for d in found[1] if d not in wanted]
    return "\n".join(commands) or None, tuple(unread)


def _task(text: str, names: tuple[str, ...]) -> Reading:
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError:
        return None, ("tether cannot read the Taskfile",)
    if not isinstance(data, dict):
        return None, ("tether cannot read the Taskfile",)
    unread = ["the Taskfile's includes, which tether does not read"] if "includes" in data else []
    tasks = data.get("tasks") or {}  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
    commands = _sh_values(data.get("vars"))  # pyright: ignore[reportUnknownMemberType, reportUnknownArgumentType]
    commands += _sh_values(data.get("env"))  # pyright: ignore[reportUnknownMemberType, reportUnknownArgumentType]
    commands += _dotenv(data.get("dotenv"))  # pyright: ignore[reportUnknownMemberType, reportUnknownArgumentType]
    wanted = list(names) or ["default"]
    for name in wanted:
        if len(wanted) > _MAX_TASKS:
            break
        task = tasks.get(name) if isinstance(tasks, dict) else None  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
        if isinstance(task, (str, list)):
            task = {"cmds": task if isinstance(task, list) else [task]}
        if not isinstance(task, dict):
            continue
        commands += _dotenv(task.get("dotenv"))  # pyright: ignore[reportUnknownMemberType, reportUnknownArgumentType]
        for key in ("vars", "env"):
            commands += _sh_values(task.get(key))  # pyright: ignore[reportUnknownMemberType, reportUnknownArgumentType]
        for dep in task.get("deps") or []:  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
            dep = dep.get("task") if isinstance(dep, dict) else dep  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
            if isinstance(dep, str):
                wanted.append(dep)
        for step in task.get("cmds") or []:  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
            step = step.get("defer", step) if isinstance(step, dict) else step  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
            if isinstance(step, str):
                commands.append(str(step))
            elif isinstance(step, dict) and isinstance(step.get("cmd"), str):  # pyright: ignore[reportUnknownMemberType]
                commands.append(step["cmd"])  # pyright: ignore[reportUnknownArgumentType]
            elif isinstance(step, dict) and isinstance(step.get("task"), str):  # pyright: ignore[reportUnknownMemberType]
                wanted.append(step["task"])  # pyright: ignore[reportUnknownArgumentType]
            elif isinstance(step, dict):
                unread.append("a Taskfile step tether does not read")
        if isinstance(task.get("cmd"), str):  # pyright: ignore[reportUnknownMemberType]
            commands.append(str(task["cmd"]))  # pyright: ignore[reportUnknownArgumentType]
    texts = [_TEMPLATE.sub("${TASK}", c) for c in commands]
    return "\n".join(texts) or None, tuple(unread)


def _dotenv(files: object) -> list[str]:
    """A Taskfile's `dotenv` files, each a read of that file (`: < FILE`, judged as bash)."""
    if files is None:
        return []
    if not isinstance(files, list):
        return [": < ${TASK}"]  # not a list: any file
    return [
        f": < {shlex.quote(f)}" if isinstance(f, str) and "{{" not in f else ": < ${TASK}"
        for f in files  # pyright: ignore[reportUnknownVariableType]
    ]


def _sh_values(table: object) -> list[str]:
    """The `sh:` commands of a Taskfile's `vars` or `env` table."""
    if not isinstance(table, dict):
        return []
    found: list[str] = []
    for value in table.values():  # pyright: ignore[reportUnknownVariableType]
        if isinstance(value, dict) and isinstance(value.get("sh"), str):  # pyright: ignore[reportUnknownMemberType]
            found.append(value["sh"])  # pyright: ignore[reportUnknownArgumentType]
    return found
