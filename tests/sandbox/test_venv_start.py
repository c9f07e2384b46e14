"""Python's start files in the workspace's virtual environments (`.pth` import lines,
`sitecustomize`, `usercustomize`), which every later `python` of the environment outside
runs: a command's are moved aside, while a `.pth` of paths only (`pip install -e`) is kept."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tether.sandbox.git_sweep import DISABLED

from .conftest import Layout, bash_runner, end_session, needs_bwrap, sandboxed_context

pytestmark = needs_bwrap

SITE = f".venv/lib/python{sys.version_info[0]}.{sys.version_info[1]}/site-packages"


def environment(ws: Path, where: str = ".venv") -> Path:
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(ws / where)], check=True)
    site = ws / where / SITE.removeprefix(".venv/")
    assert site.is_dir()
    return site


async def session(boundary: Layout, command: str) -> str:
    ctx = sandboxed_context(boundary)
    out = await bash_runner(ctx)(command=command)
    await end_session(ctx)
    return out.content


def python_outside(ws: Path, where: str = ".venv", code: str = "pass") -> str:
    done = subprocess.run(
        [str(ws / where / "bin" / "python"), "-c", code],
        cwd=ws,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


async def test_start_files_a_command_writes_in_an_environment_are_moved_aside(
    boundary: Layout,
) -> None:
    """In environments the command makes (those present at its start are read-only inside:
    `test_installed_code.py`)."""
    ws = boundary.workspace
    site = ws / SITE
    tox_site = ws / ".tox/py311" / SITE.removeprefix(".venv/")
    boundary.hand_over()
    ran = ws / "RAN"
    code = f"open({str(ran)!r}, 'a').write('x')"
    tox = f".tox/py311/{SITE.removeprefix('.venv/')}"
    command = " && ".join(
        [
            "python3 -m venv --without-pip .venv",
            "python3 -m venv --without-pip .tox/py311",
            f'echo "import os; {code}" > {SITE}/evil.pth',
            f'echo "{code}" > {SITE}/sitecustomize.py',
            f'mkdir -p {SITE}/usercustomize && echo "{code}" > {SITE}/usercustomize/__init__.py',
            f'echo "import x" > {tox}/a.pth',
            'mkdir -p evil && echo "' + code + '" > evil/sitecustomize.py',
            f"echo {ws / 'evil'} > {SITE}/paths.pth",
            "echo DONE",
        ]
    )
    out = await session(boundary, command)
    assert "DONE" in out, out
    assert "moved aside" in out, out
    for name in ("evil.pth", "sitecustomize.py", "usercustomize/__init__.py", "paths.pth"):
        assert not (site / name).exists(), name
        assert (site / f"{name}{DISABLED}").exists(), name
    assert (tox_site / f"a.pth{DISABLED}").exists()
    python_outside(ws)
    python_outside(ws, ".tox/py311")
    assert not ran.exists()


async def test_a_pth_of_paths_only_is_kept(boundary: Layout) -> None:
    """What `pip install -e` of a `src` layout writes: the project's path, nothing run (in an
    environment the command makes: one present at its start is read-only inside)."""
    ws = boundary.workspace
    site = ws / SITE
    (ws / "src" / "proj").mkdir(parents=True)
    (ws / "src" / "proj" / "__init__.py").write_text("NAME = 'proj'\n")
    boundary.hand_over()
    command = (
        "python3 -m venv --without-pip .venv && "
        f"printf '# editable\\n{ws / 'src'}\\n\\n' > {SITE}/__editable__.proj-0.1.pth && echo DONE"
    )
    out = await session(boundary, command)
    assert "DONE" in out, out
    assert "moved aside" not in out, out
    assert (site / "__editable__.proj-0.1.pth").is_file()
    assert python_outside(ws, code="import proj; print(proj.NAME)") == "proj"


async def test_the_users_own_start_files_stay(boundary: Layout) -> None:
    """A `.pth` with an import line that was there before the session is the user's."""
    ws = boundary.workspace
    site = environment(ws)
    (site / "mine.pth").write_text("import os\n")
    boundary.hand_over()
    out = await session(boundary, "ls .venv >/dev/null && echo DONE")
    assert "DONE" in out, out
    assert "moved aside" not in out, out
    assert (site / "mine.pth").read_text() == "import os\n"


def shell_outside(ws: Path, script: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-c", script], cwd=ws, capture_output=True, text=True, check=False
    )


async def test_an_environments_activation_interpreter_and_config_a_command_changes_are_moved_aside(
    boundary: Layout,
) -> None:
    """What the user's next `. .venv/bin/activate` or `.venv/bin/python3` runs outside: the
    activation scripts and the interpreter link are read-only inside (the environment's `bin`
    is: `installed_code.py`); a command that points `pyvenv.cfg` elsewhere has it moved
    aside; none of it runs outside."""
    ws = boundary.workspace
    environment(ws)
    environment(ws, ".tox/py311")
    boundary.hand_over()
    ran = ws / "RAN"
    plant = f"echo planted >> {ran}"
    ctx = sandboxed_context(boundary)
    run = bash_runner(ctx)
    for write in (
        f"printf '\\n{plant}\\n' >> .venv/bin/activate",
        f"printf '\\n{plant}\\n' >> .tox/py311/bin/activate",
        f"rm .venv/bin/python3 && printf '#!/bin/sh\\n{plant}\\n' > .venv/bin/python3",
    ):
        outcome = await run(command=write)
        assert outcome.is_error, outcome
        assert "installed code read-only" in outcome.content, outcome
    command = "sed -i 's|^home = .*|home = /nonexistent/bin|' .venv/pyvenv.cfg && echo DONE"
    out = (await run(command=command)).content
    await end_session(ctx)
    assert "DONE" in out, out
    assert "moved aside" in out, out
    assert (ws / f".venv/pyvenv.cfg{DISABLED}").exists()
    shell_outside(ws, ". .venv/bin/activate; . .tox/py311/bin/activate; .venv/bin/python3 -c 1")
    assert not ran.exists()


async def test_an_environment_a_command_makes_is_the_commands(boundary: Layout) -> None:
    """`python -m venv` inside keeps working: an environment made at a new path is the
    command's (its activation script, interpreter and console scripts stay)."""
    ws = boundary.workspace
    environment(ws)
    boundary.hand_over()
    command = (
        "python3 -m venv --without-pip made && "
        "printf '#!/bin/sh\\necho tool\\n' > made/bin/tool && chmod +x made/bin/tool && "
        "echo DONE"
    )
    out = await session(boundary, command)
    assert "DONE" in out, out
    assert "moved aside" not in out, out
    for name in ("activate", "python3"):
        assert (ws / "made" / "bin" / name).exists(), name
    assert (ws / "made" / "pyvenv.cfg").is_file()
    assert (ws / "made" / "bin" / "tool").is_file()
    done = shell_outside(ws, ". made/bin/activate && python3 -c 'import sys; print(sys.prefix)'")
    assert done.stdout.strip() == str(ws / "made"), done.stderr


async def test_an_environments_pip_configuration_a_command_writes_is_moved_aside(
    boundary: Layout,
) -> None:
    """`$VIRTUAL_ENV/pip.conf` (and `pip.ini`) is read by the environment's pip outside: one a
    command writes (an index it chose) is moved aside, as `pyvenv.cfg` is."""
    ws = boundary.workspace
    environment(ws)
    boundary.hand_over()
    index = "[global]\\nindex-url = file:///nowhere/evilindex\\n"
    command = f"printf '{index}' > .venv/pip.conf && printf '{index}' > .venv/pip.ini && echo DONE"
    out = await session(boundary, command)
    assert "DONE" in out, out
    assert "moved aside" in out, out
    for name in ("pip.conf", "pip.ini"):
        assert not (ws / ".venv" / name).exists(), name
        assert (ws / ".venv" / f"{name}{DISABLED}").exists(), name
