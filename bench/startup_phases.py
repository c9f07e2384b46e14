"""Child of bench/startup.py: `tether -p hi` done step by step, noting when each step ran.

Run as `python startup_phases.py` in the bench's environment (fake server, own home). It runs
what `tether -p` runs (the early work on threads, the headless front end's imports, `build`,
`prepare`, one turn), with the
steps of the session build and of the first turn timed by wrapping the functions `setup`
calls (looked up by name at call time, so wrapping them here changes nothing else). Prints one
JSON object: `marks`, wall-clock times (time.time(), comparable with the parent's) of the
first line running, the imports done, the build done, the preparations done and the first
request's body ready; `steps`, seconds spent in each named step of the build and the turn.
The parent knows the spawn time and when the first request reached the server.
"""

from __future__ import annotations

import time

marks = {"started": time.time()}

from pathlib import Path  # noqa: E402

from tether.cli.early_work import start_early_work  # noqa: E402

start_early_work(Path.cwd(), settings_given=False)  # as `-p` does before its imports

import asyncio  # noqa: E402
import importlib  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402
from collections.abc import Callable  # noqa: E402
from typing import Any  # noqa: E402

import tether.cli.headless  # noqa: E402, F401  (what `tether -p` imports before its session)
from tether.cli import setup  # noqa: E402

marks["imported"] = time.time()

steps: dict[str, float] = {}

# The build's steps: (module, function) as the build calls them, each looked up in that module
# at call time. A name that has moved fails here at once, so the bench cannot time nothing.
BUILD_STEPS = {
    ("tether.cli.session_place", "project_root"): "project and trust",
    ("tether.cli.session_place", "workspace_trust"): "project and trust",
    ("tether.cli.session_place", "settings_files"): "settings",
    ("tether.cli.session_place", "load_settings"): "settings",
    ("tether.cli.session_place", "restrict_settings"): "settings",
    ("tether.cli.session_discovery", "discover_skills"): "skills and agents",
    ("tether.cli.session_discovery", "review_workspace"): "project and trust",
    ("tether.cli.session_discovery", "discover_agents"): "skills and agents",
    ("tether.cli.setup", "build_model"): "model client",
    ("tether.cli.setup", "build_gate"): "permission rules and hooks",
    ("tether.cli.setup", "builtin_tools"): "tools",
    ("tether.cli.setup", "ToolRegistry"): "tools",
    ("tether.cli.setup", "plan_session_sandbox"): "sandbox",
    ("tether.cli.setup", "ProjectInstructions"): "instructions and memory",
    ("tether.cli.setup", "project_memory"): "instructions and memory",
    ("tether.cli.system_prompt", "build_system_prompt"): "system prompt",
    ("tether.cli.resuming", "new_recorder"): "session file",
    ("tether.cli.session_wiring", "record_run"): "run record",
    ("tether.cli.session_wiring", "attach_mcp"): "MCP configuration",
}


def _timed(name: str, function: Callable[..., Any]) -> Callable[..., Any]:
    def timed(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            steps[name] = steps.get(name, 0.0) + time.perf_counter() - started

    return timed


for (module_name, attribute), step in BUILD_STEPS.items():
    module = importlib.import_module(module_name)
    setattr(module, attribute, _timed(step, getattr(module, attribute)))


def _wrap_request_encoding() -> None:
    """The first turn's request body: its encoding timed, and the moment it is ready (the HTTP
    client is built meanwhile on a thread of its own, and must not be imported here)."""
    from tether.models import anthropic

    build_body, encode_body = anthropic.build_body, anthropic.encode_body

    def encode_marked(*args: Any, **kwargs: Any) -> Any:
        body = encode_body(*args, **kwargs)
        if "encoded" not in marks:
            marks["encoded"] = time.time()
            marks["cpu_at_encoded"] = time.process_time()
        return body

    anthropic.build_body = _timed("request encoding", build_body)
    anthropic.encode_body = _timed("request encoding", encode_marked)


_wrap_request_encoding()

from tether.protocol import UserInput  # noqa: E402


async def main() -> None:
    session = setup.build_session(setup.RunOptions(cwd=Path.cwd()))
    marks["built"] = time.time()
    await session.prepare()
    marks["prepared"] = time.time()
    async for _ in session.submit(UserInput(text="hi")):
        pass
    marks["finished"] = time.time()
    await session.aclose()


asyncio.run(main())
print(json.dumps({"marks": marks, "steps": steps, "modules": len(sys.modules)}))
