"""Following a harmless module's attributes imports it, from the standard library only: a
file of the same name in the directory tether runs from (on `sys.path` when tether is started
as `python -m tether` or `python -c`) is never imported into tether's own process."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

DECIDE = """
import sys
from pathlib import Path
from tether.permissions import PermissionContext, decide, load_rules
ws = Path.cwd()
policy = {"permissions": {"allow": ["Bash(python3:*)"]}}
rules = load_rules([(ws / "s.json", policy)], seed_yaml=None)
ctx = PermissionContext(mode="default", rules=rules, workspace=ws, cwd=ws, home=ws)
code = "import colorsys; print(colorsys.rgb_to_hls(1, 0, 0))"
print(decide("Bash", {"command": f"python3 -c '{code}'"}, ctx).behavior)
print("colorsys" in sys.modules and sys.modules["colorsys"].__file__)
"""


def test_a_workspace_file_named_as_a_harmless_module_is_never_imported(tmp_path: Path) -> None:
    marker = tmp_path / "imported"
    (tmp_path / "colorsys.py").write_text(f"open({str(marker)!r}, 'w').close()\n")
    done = subprocess.run(
        [sys.executable, "-c", DECIDE], cwd=tmp_path, capture_output=True, text=True, check=True
    )
    assert not marker.exists(), done.stdout
    behavior, imported = done.stdout.split()
    assert imported == "False" or not imported.startswith(str(tmp_path))
    assert behavior in ("allow", "ask")
