"""deno's permission flags as what they grant the code it runs. Without them deno is its own
sandbox: the script reads, writes, runs and reaches nothing, so its code is only the script's.
`-A`/`--allow-all`, `--allow-run` (any program: it runs outside deno's sandbox, with every
permission) and `--allow-ffi` (native code) give the code everything: asked. `--allow-read`
and `--allow-write` with paths are reads (whole trees) and writes of those paths, judged by the
Read and Edit rules; bare, they grant every file: asked. `--allow-env`, `--allow-net` and
`--allow-import` bare (every variable, every host), `--allow-net` to a host not loopback, and a
permission set from the configuration (`-P`): asked. A script given as a URL or a package
(`https://...`, `jsr:`, `npm:`) is code from the network: asked. `deno install -g` writes a
program later commands run; `--allow-scripts` runs packages' lifecycle scripts: asked.
`deno eval` (code on the line) and `deno task` (deno.json's tasks) are judged elsewhere."""

from __future__ import annotations

import re
from dataclasses import replace

from tether.permissions.deno_options import DenoLine, deno_line
from tether.permissions.deno_outputs import deno_outputs
from tether.permissions.deno_settings import deno_settings
from tether.permissions.program_use import ProgramUse
from tether.permissions.shell_words import is_literal, program_name, readable

_RUNNERS = frozenset(
    {"", "run", "watch", "serve", "test", "bench", "repl", "jupyter", "compile", "desktop"}
)
"""deno's subcommands that run code with the permissions given to them (`compile` and
`desktop` bake them into the program they write, run later); "" is `deno SCRIPT`. The
others run no code with these flags (`eval`, `task`, `x` are judged elsewhere, `install`
below)."""
_EVERYTHING = frozenset({"--allow-all", "--allow-run", "--allow-ffi"})
_BROAD = {
    "--allow-read": "reads of every file",
    "--allow-write": "writes of every file",
    "--allow-env": "every environment variable",
    "--allow-net": "every host",
    "--allow-import": "imports of code from every host",
}
_LOOPBACK = re.compile(r"(localhost|127(\.[0-9]+){0,3}|\[::1\])(:[0-9]+)?")
_FETCHED = re.compile(r"(https?|jsr|npm):", re.I)


def deno_use(argv: tuple[str, ...]) -> ProgramUse | None:
    """What deno's permission flags let the code it runs do, what its subcommands write or
    fetch (deno_outputs.py) and what its settings options trust or read (deno_settings.py);
    None for another program, or when they grant nothing beyond
    the files they name."""
    found = [u for u in (_granted(argv), deno_outputs(argv), deno_settings(argv)) if u]
    if not found:
        return None
    use = found[0]
    for other in found[1:]:
        use = replace(
            use,
            reads=use.reads + other.reads,
            writes=use.writes + other.writes,
            asks=use.asks + other.asks,
            changes=use.changes or other.changes,
        )
    return use


def _granted(argv: tuple[str, ...]) -> ProgramUse | None:
    if not argv or not is_literal(argv[0]) or program_name(argv[0]) != "deno":
        return None
    line = deno_line(argv[1:])
    asks: list[str] = []
    command = line.command
    if command in ("install", "add"):
        asks += _install(line)
    reads: list[str] = []
    writes: list[str] = []
    if command in _RUNNERS:
        running = command in ("", "run", "watch", "serve", "compile", "desktop")
        if running and line.operands and _FETCHED.match(line.operands[0]):
            script = readable(line.operands[0])
            asks.append(f"deno runs {script}, code from the network: not seen")
        for option, value in line.options:
            _grant(option, value, reads, writes, asks)
    asks += line.asks()  # after what the options read give, the more telling reasons
    if not reads and not writes and not asks:
        return None
    return ProgramUse(
        reads=tuple(reads),
        writes=tuple(writes),
        asks=tuple(asks),
        changes=True,
    )


def _grant(
    option: str, value: str | None, reads: list[str], writes: list[str], asks: list[str]
) -> None:
    if option == "--permission-set":
        asks.append("deno --permission-set takes the permissions its configuration names")
    elif option in _EVERYTHING:
        shown = option if value is None else f"{option}={value}"
        asks.append(f"deno {readable(shown)} gives the code it runs every permission")
    elif option in _BROAD and (value is None or value == ""):
        asks.append(f"deno {option} gives the code it runs {_BROAD[option]}")
    elif value is not None and not is_literal(value):
        asks.append(f"deno {option} grants what is known only as it runs")
    elif option == "--allow-read" and value is not None:
        reads.extend(part for part in value.split(",") if part)
    elif option == "--allow-write" and value is not None:
        writes.extend(part for part in value.split(",") if part)
    elif option in ("--allow-net", "--allow-import") and value is not None:
        hosts = [h for h in value.split(",") if h and not _LOOPBACK.fullmatch(h)]
        if hosts:
            reach = "reach" if option == "--allow-net" else "import code from"
            asks.append(f"deno {option} lets the code it runs {reach} {readable(hosts[0])}")


def _install(line: DenoLine) -> list[str]:
    asks: list[str] = []
    for option, _value in line.options:
        if option == "--global":
            asks.append("deno install -g writes a program to deno's bin directory, run later")
        elif option == "--allow-scripts":
            asks.append("deno install --allow-scripts runs packages' lifecycle scripts: not seen")
    return asks
