"""`CLAUDE_ENV_FILE`: where SessionStart hooks write `export NAME=value` lines whose variables
the session's later Bash commands get, as in Claude Code.

The file is read once, right after the SessionStart hooks ran, by sourcing it in a bash with
the hooks' own environment and keeping the variables it set or changed. Nothing a command
writes later changes what the session's commands get (the file is never read again).
"""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Mapping
from pathlib import Path

from tether.processes import run_marked

READ_TIMEOUT_S = 10.0
"""How long sourcing the file may take; a file that hangs adds nothing."""

_PRINT_ENV = '[ -f "$1" ] || exit 1; set -a; . "$1" >/dev/null 2>&1 </dev/null; env -0'


async def env_file_variables(path: Path, env: Mapping[str, str]) -> dict[str, str]:
    """The variables `path` sets or changes when sourced over `env`; empty when it is missing,
    fails to run, or runs too long. Functions and aliases are not carried (Claude Code's
    documented use is variables). Only a command hook is given the file (its directory is made
    then): with callback or HTTP hooks alone, neither may exist."""
    if not await asyncio.to_thread(path.is_file):
        return {}
    bash = shutil.which("bash", path=env.get("PATH")) or "/bin/bash"
    proc = await asyncio.create_subprocess_exec(
        bash,
        "-c",
        _PRINT_ENV,
        "env-file",
        str(path),
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
        cwd=path.parent,
        env=run_marked(env),
        start_new_session=True,
    )
    try:
        async with asyncio.timeout(READ_TIMEOUT_S):
            out, _ = await proc.communicate()
    except TimeoutError:
        proc.kill()
        await proc.wait()
        return {}
    if proc.returncode != 0:
        return {}
    found: dict[str, str] = {}
    for entry in out.decode("utf-8", errors="replace").split("\0"):
        name, sep, value = entry.partition("=")
        if sep and name not in _SHELL_OWN and env.get(name) != value:
            found[name] = value
    return found


_SHELL_OWN = frozenset({"_", "SHLVL", "PWD", "OLDPWD", "BASH_EXECUTION_STRING"})
"""Variables bash sets itself: not the file's doing."""
