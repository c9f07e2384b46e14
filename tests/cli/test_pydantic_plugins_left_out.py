"""pydantic's plugins are left out in a process of tether's own (`leave_out_pydantic_plugins`):
its plugin loader, imported after, finds none; and the finder that sees to it steps aside
without cutting short an import another thread is making at that moment."""

from __future__ import annotations

import json
import subprocess
import sys

# A thread in the middle of importlib's walk over sys.meta_path (at the finder before the
# path's) while this thread imports pydantic's plugin loader: the walk goes on to the path's
# finder (the finder took itself out of the list being walked, and the walk ended one short).
WALKED = """\
import json, sys
from tether.cli.early_work import leave_out_pydantic_plugins
leave_out_pydantic_plugins()
walk = iter(sys.meta_path)
while next(walk) is not sys.meta_path[-2]:
    pass
import pydantic.plugin._loader as loader
print(json.dumps({
    "rest": [getattr(f, "__name__", type(f).__name__) for f in walk],
    "finders": [type(f).__name__ for f in sys.meta_path],
    "plugins": loader._plugins,
    "found": list(loader.get_plugins()),
}))
"""


def test_the_plugins_are_left_out_and_a_walk_on_another_thread_reaches_the_path() -> None:
    done = subprocess.run(
        [sys.executable, "-c", WALKED], capture_output=True, text=True, check=True
    )
    shown = json.loads(done.stdout)
    assert shown["rest"] == ["PathFinder"]
    assert "_NoPluginsFinder" not in shown["finders"]
    assert (shown["plugins"], shown["found"]) == ({}, [])
