"""Installed code in the workspace (a virtual environment's `site-packages` and `bin`, every
environment with a `pyvenv.cfg`; `node_modules`, its packages and `.bin`) runs outside the
sandbox later: read-only inside, and the failure says why and what to do."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tether.sandbox.limits import describe, explain_failure

from .conftest import Layout, bash_runner, end_session, needs_bwrap, sandboxed_context

VERSION = f"python{sys.version_info[0]}.{sys.version_info[1]}"


def environment(ws: Path, where: str) -> Path:
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(ws / where)], check=True)
    site = ws / where / "lib" / VERSION / "site-packages"
    (site / "pip").mkdir()
    (site / "pip" / "__init__.py").write_text("# pip\n")
    (site / "_distutils_hack").mkdir()
    (site / "_distutils_hack" / "__init__.py").write_text("# hack\n")
    return site


def node_modules(ws: Path, where: str) -> Path:
    modules = ws / where / "node_modules"
    (modules / "jest").mkdir(parents=True)
    (modules / "jest" / "index.js").write_text("// jest\n")
    (modules / ".bin").mkdir()
    (modules / ".bin" / "jest").write_text("#!/bin/sh\n")
    return modules


WRITES = {
    "append to a package": "echo 'import os' >> {site}/pip/__init__.py",
    "append to a start import": "echo 'import os' >> {site}/_distutils_hack/__init__.py",
    "a new module": "echo 'import os' > {site}/evilmod.py",
    "a new package": "mkdir {site}/evilpkg",
    "a program": "echo 'echo x' > {env}/bin/pytest",
    "the interpreter's link": "ln -sf /bin/sh {env}/bin/python3",
    "through lib64": "echo x > {env}/lib64/{version}/site-packages/other.py",
    "rename the packages aside": "mv {site} {env}/lib/{version}/aside",
    "a node package": "echo x >> {modules}/jest/index.js",
    "a node program": "echo x >> {modules}/.bin/jest",
    "a new node program": "echo x > {modules}/.bin/tsc",
    "rename node_modules aside": "mv {modules} {modules}-aside",
}


@needs_bwrap
async def test_installed_code_is_read_only_inside(boundary: Layout) -> None:
    ws = boundary.workspace
    places = [
        (".venv", ""),  # the usual names
        ("venv", "packages/web"),  # a workspace package's node_modules
        (".tox/py311", "apps/api"),  # tox's environments; a package two levels down
    ]
    made = [(environment(ws, env), node_modules(ws, node)) for env, node in places]
    (ws / ".venv" / "lib64").unlink(missing_ok=True)
    (ws / ".venv" / "lib64").symlink_to("lib")
    before = {p: p.read_bytes() for p in ws.rglob("*") if p.is_file() and not p.is_symlink()}
    boundary.hand_over()
    ctx = sandboxed_context(boundary)
    run = bash_runner(ctx)
    for (env, _), (site, modules) in zip(places, made, strict=True):
        for what, write in WRITES.items():
            if what == "through lib64" and env != ".venv":
                continue
            command = write.format(
                site=site.relative_to(ws), env=env, modules=modules.relative_to(ws), version=VERSION
            )
            outcome = await run(command=command)
            assert outcome.is_error, (what, env, outcome.content)
            assert "installed code read-only" in outcome.content, (what, outcome.content)
    await end_session(ctx)
    after = {p: p.read_bytes() for p in ws.rglob("*") if p.is_file() and not p.is_symlink()}
    assert after == before
    assert (ws / ".venv" / "bin" / "python3").resolve() != Path("/bin/sh").resolve()


@needs_bwrap
async def test_the_projects_own_code_beside_them_stays_writable(boundary: Layout) -> None:
    ws = boundary.workspace
    environment(ws, ".venv")
    node_modules(ws, "")
    (ws / "src").mkdir()
    boundary.hand_over()
    ctx = sandboxed_context(boundary)
    outcome = await bash_runner(ctx)(
        command="echo x > src/app.py && echo y > package.json && cat src/app.py package.json"
    )
    await end_session(ctx)
    assert (outcome.content, outcome.is_error) == ("x\ny", False)


def test_an_install_that_fails_says_why_and_what_to_do(boundary: Layout) -> None:
    sandbox = boundary.sandbox()
    pip = (
        "WARNING: Retrying after connection broken by 'NewConnectionError(': Failed to "
        "establish a new connection: [Errno 101] Network is unreachable')'\n"
        "ERROR: Could not find a version that satisfies the requirement requests"
    )
    note = explain_failure(sandbox, 1, pip)
    assert note is not None
    assert "read-only in the sandbox because their code runs outside" in note
    assert "with the sandbox off" in note
    npm_offline = (
        "npm error code EROFS\nnpm error path /w/node_modules/.bin/jest: Read-only file system"
    )
    note = explain_failure(sandbox, 1, npm_offline)
    assert note is not None
    assert "runs outside the sandbox later" in note
    assert "with the sandbox off" in note
    said = describe(sandbox)
    assert "installed code" in said
    assert "with the sandbox off" in said
