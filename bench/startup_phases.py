"""Child of bench/startup.py: `tether -p hi` done step by step, printing when each step ended.

Run as `python startup_phases.py` in the bench's environment (fake server, own home); prints one
JSON object of wall-clock times (time.time(), comparable with the parent's): the first line of
this file running, the command-line front end imported, settings loaded, the session built, its
preparations done (MCP servers), and the turn's end. The parent knows the spawn time and when
the first request reached the server.
"""

from __future__ import annotations

import time

marks = {"started": time.time()}

import asyncio  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
from pathlib import Path  # noqa: E402

import tether.cli.headless  # noqa: E402, F401  (what `tether -p` imports before it reads settings)

marks["imported"] = time.time()

from tether.cli.setup import RunOptions, build_session  # noqa: E402
from tether.config.settings import load_settings, settings_files, tether_home  # noqa: E402
from tether.protocol import UserInput  # noqa: E402


async def main() -> None:
    workspace = Path.cwd()
    # Settings alone, to split them from the rest of the build (build_session reads them again:
    # a few small files, a fraction of a millisecond once cached by the system).
    load_settings(settings_files(workspace, home=tether_home(os.environ)))
    marks["settings"] = time.time()
    session = build_session(RunOptions(cwd=workspace))
    marks["built"] = time.time()
    await session.prepare()
    marks["prepared"] = time.time()
    async for _ in session.submit(UserInput(text="hi")):
        pass
    marks["finished"] = time.time()
    await session.aclose()


asyncio.run(main())
print(json.dumps(marks))
