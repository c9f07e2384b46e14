"""The installed code of a project's environments, kept read-only inside the sandbox: what a
virtual environment (a directory with a `pyvenv.cfg`) holds in its `site-packages` and its
`bin`, and a `node_modules` directory whole (its packages and `.bin`). The user's next
`.venv/bin/python`, `pytest`, `npm test` or `npx jest` runs that code outside the sandbox, and
a `.pth` of the environment imports some of it at every interpreter start: a module changed
inside would run there.

They are looked for where they exist when a command starts: environments as
`venv_start.environments` finds them (at a root, one level below, in `.tox` and `.nox`), and
`node_modules` at a root and up to `NODE_MODULES_DEPTH` levels below it (a workspace's
packages), past no other `node_modules`, environment or dot directory. Installing into them
(`pip install`, `npm install`) fails inside: the network is off in the sandbox by default
anyway, and the note on the failure (`limits.py`) says to run it with the sandbox off.

An environment or a `node_modules` a command makes where none was is the command's, as a
repository it makes is: it is read-only to the next command (it exists when that one starts),
and its start files (`.pth`, `sitecustomize`) are swept as any environment's
(`venv_start.py`). The rest of it is not moved aside: nothing tells a module the command
installed from one it wrote, and the user who runs an environment the session made runs what
the session installed there either way.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from tether.sandbox.protected import Protected
from tether.sandbox.venv_start import environments, site_dirs

NODE_MODULES_DEPTH = 2
"""`node_modules` is looked for at a root and this many levels below it."""
MAX_LISTED = 2000
"""At most this many directories are listed a command in the search for `node_modules`."""

WHY = "installed code that runs outside later"
_ENVIRONMENT = Protected("", True, None, f"{WHY}: a virtual environment's")
_NODE = Protected("", True, None, f"{WHY}: node_modules")


def installed_code(root: Path) -> list[tuple[Path, Protected]]:
    """The paths under `root` to bind read-only: each environment's `site-packages` and
    `bin`, each `node_modules`."""
    found: list[tuple[Path, Protected]] = []
    for environment in environments((str(root),)):
        paths = [*site_dirs(environment), os.path.join(environment, "bin")]
        found += [(Path(p), _ENVIRONMENT) for p in paths if os.path.isdir(p)]
    found += [(Path(p), _NODE) for p in _node_modules(str(root))]
    return found


def _node_modules(root: str) -> list[str]:
    found: list[str] = []
    pending = [(root, 0)]
    listed = 0
    while pending and listed < MAX_LISTED:
        directory, depth = pending.pop()
        listed += 1
        if os.path.isfile(os.path.join(directory, "pyvenv.cfg")):
            continue
        with contextlib.suppress(OSError), os.scandir(directory) as entries:
            for entry in entries:
                if not entry.is_dir(follow_symlinks=False):
                    continue
                if entry.name == "node_modules":
                    found.append(entry.path)
                elif depth < NODE_MODULES_DEPTH and not entry.name.startswith("."):
                    pending.append((entry.path, depth + 1))
    return found


def is_installed_path(text: str, base: Path) -> bool:
    """Whether a path in a command's output lies in installed code (`site-packages`,
    `node_modules`, an environment's `bin`; a relative one from `base`), for the note on a
    write that failed there."""
    parts = text.split("/")
    if "site-packages" in parts or "node_modules" in parts:
        return True
    if "bin" not in parts[:-1]:
        return False
    environment = "/".join(parts[: len(parts) - 1 - parts[::-1].index("bin")])
    return os.path.isfile(os.path.join(base, environment or ".", "pyvenv.cfg"))
