"""What `tether -p` loads before its first request: only what that request needs. The costly
parts that come later (the permission engine at the first tool call, the terminal UI, MCP with
the first server) are not imported, and neither are the vendor SDKs at all."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

LATER = (
    "tether.permissions.engine",
    "tether.permissions.shell",
    "rich",
    "prompt_toolkit",
    "mcp",
    "anthropic",
    "openai",
    "yaml",  # tether's own skills' front matter is known ahead
)


def test_headless_builds_its_session_without_what_comes_later(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    program = (
        "import sys\n"
        "from pathlib import Path\n"
        "import tether.cli.headless\n"
        "from tether.cli.setup import RunOptions, build_session\n"
        f"env = {{'ANTHROPIC_API_KEY': 'k', 'TETHER_HOME': {str(tmp_path / 'home')!r}, "
        f"'HOME': {str(tmp_path)!r}, 'PATH': ''}}\n"
        f"build_session(RunOptions(cwd=Path({str(workspace)!r}), env=env))\n"
        f"print(sorted(m for m in {LATER!r} if m in sys.modules))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, check=True
    )
    assert result.stdout == "[]\n"


def test_the_permission_engine_loads_on_first_use() -> None:
    program = (
        "import sys\n"
        "import tether.permissions as policy\n"
        "before = 'tether.permissions.engine' in sys.modules\n"
        "decide = policy.decide\n"
        "print(before, 'tether.permissions.engine' in sys.modules, decide.__module__)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, check=True
    )
    assert result.stdout == "False True tether.permissions.engine\n"
