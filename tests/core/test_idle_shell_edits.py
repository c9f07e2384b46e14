"""Honest work done through the shell runs to its end: a codemod (`sed -i`, a script writing
each file back) over modules of one shape, a build whose objects land deep or in a hidden
directory, units appended to one archive. Each was stopped at the idle bound: an edit in place
renews a file's times as making it does, so a module edited read as a file the turn made
holding what another held; objects below three levels or under a dot were not looked at; an
archive that grows is named by no call. Over the wire."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.core.idle_runs import Run, numbered_bash
from tether.core.repeated_calls import IDLE_STOP_AT
from tether.testing import FakeModelServer

STEPS = 2 * IDLE_STOP_AT
"""Steps done one per reply: past the idle bound."""

_CODEMOD = (
    "import sys\n"
    "path = sys.argv[1]\n"
    "text = open(path).read()\n"
    "open(path, 'w').write(text.replace('old_api', 'new_api'))\n"
    "print(f'rewrote {path}: {text.count(\"old_api\")} changes')\n"
)


def _packages(workspace: Path) -> None:
    """Modules of one shape, but for their numbers (a generated package per unit)."""
    for n in range(1, STEPS + 1):
        (workspace / f"pkg{n}").mkdir()
        (workspace / f"pkg{n}" / "mod.py").write_text(f"from core import old_api\nold_api({n})\n")
    (workspace / "codemod.py").write_text(_CODEMOD)


def _build(script: str) -> Callable[[Path], None]:
    def setup(workspace: Path) -> None:
        (workspace / "build.sh").write_text(script)

    return setup


_DEEP = "build/CMakeFiles/units.dir/src/x86_64"
"""Where CMake puts a target's objects: five levels down."""

CASES = {
    "sed -i over modules of one shape": (_packages, "sed -i 's/old_api/new_api/g' pkg{n}/mod.py"),
    "a codemod script writing each back": (_packages, "python3 codemod.py pkg{n}/mod.py"),
    "objects five levels down": (
        _build(f'mkdir -p {_DEEP}; echo "int u$1;" > {_DEEP}/unit_$1.c.o; echo "[$1] CC u$1"\n'),
        "sh build.sh {n}",
    ),
    "objects in a hidden directory": (
        _build('mkdir -p .build/obj; echo "int u$1;" > .build/obj/unit_$1.o; echo "[$1] CC u$1"\n'),
        "sh build.sh {n}",
    ),
    "units appended to one archive": (
        _build('echo "int u$1;" >> libunits.a; echo "[$1] AR libunits.a unit_$1.o"\n'),
        "sh build.sh {n}",
    ),
}


@pytest.fixture(autouse=True)
def fast_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TETHER_RETRY_DELAY_MS", "1")


@pytest.mark.parametrize("case", sorted(CASES))
def test_shell_work_over_many_files_runs_to_its_end(
    fake_model: FakeModelServer, tether: Run, workspace: Path, case: str
) -> None:
    setup, command = CASES[case]
    setup(workspace)
    replies = numbered_bash(fake_model, command, STEPS, "done")
    result = tether("-p", "go", "--output-format", "json", "--dangerously-skip-permissions")
    assert (result.exit_code, len(replies)) == (0, STEPS + 1), result.stdout[-2000:]
    assert result.json()["result"] == "done"
