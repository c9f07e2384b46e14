"""pip and uv read as they read their command lines and files (pip_sources, pip_projects):
clusters of short options, general options before the subcommand, requirements files joined
at a trailing backslash, a workspace project whose own pyproject names outside code, uv's
sources, indexes and find-links, `uv tool install PATH` and `uv run --with-requirements`."""

from __future__ import annotations

import json

import pytest

from tether.permissions import decide

from .conftest import ContextFactory, Tree

RULES = {"permissions": {"allow": [f"Bash({p} *)" for p in ("pip", "pip3", "uv", "python3")]}}


@pytest.fixture
def projects(tree: Tree) -> Tree:
    outside = tree.outside.as_posix()
    (tree.outside / "pkg").mkdir()
    tree.write(
        {
            "reqJ.txt": "../outside/pkg\n",
            "reqA.txt": "-r reqJ.txt\n",
            "reqO.txt": "-r req\\\nA.txt\n",
            "reqC.txt": "# a note \\\n-r reqJ.txt\n",
            "pyp/pyproject.toml": (
                '[project]\nname="pyp"\nversion="1"\n'
                f'dependencies=["opkg @ file://{outside}/pkg"]\n'
            ),
            "pyx/pyproject.toml": (
                '[project]\nname="pyx"\nversion="1"\n'
                f'[project.optional-dependencies]\nt = ["o @ file://{outside}/pkg"]\n'
            ),
            "pyb/pyproject.toml": (
                f'[build-system]\nrequires=["b @ file://{outside}/pkg"]\n[project]\nname="b"\n'
            ),
            "pyu/pyproject.toml": (
                '[project]\nname="pyu"\nversion="1"\ndependencies=["opkg"]\n'
                f'[tool.uv.sources]\nopkg = {{ path = "{outside}/pkg" }}\n'
            ),
            "pyr/pyproject.toml": (
                '[project]\nname="pyr"\nversion="1"\ndependencies=["opkg"]\n'
                '[tool.uv.sources]\nopkg = { path = "../../outside/pkg" }\n'
            ),
            "fl/uv.toml": f'[pip]\nfind-links = ["{outside}"]\n',
            "fi/pyproject.toml": f'[[tool.uv.index]]\nname="x"\nurl="file://{outside}"\n',
            "ok/pyproject.toml": '[project]\nname="ok"\nversion="1"\ndependencies=["requests"]\n',
            "package.json": json.dumps({"name": "r"}),
        }
    )
    return tree


@pytest.mark.parametrize(
    "command",
    [
        "pip install -qr reqJ.txt",
        "pip install -Ur reqJ.txt",
        "pip install -vvvr reqJ.txt",
        "pip install -Ir reqJ.txt",
        "pip install -qrreqJ.txt",
        "pip install -qc reqJ.txt opkg",
        "pip -q install -r reqJ.txt",
        "pip --isolated install -r reqJ.txt",
        "pip --log /dev/null install -r reqJ.txt",
        "pip3 -v --no-cache-dir install -qr reqA.txt",
        "python3 -m pip -q install -r reqJ.txt",
        "uv -q pip install -r reqJ.txt",
        "uv pip --verbose install -qr reqJ.txt",
        "pip install -r reqO.txt",
        "pip install -r reqC.txt",
        "pip install ./pyp",
        "pip install pyp/",
        "pip install -e pyp",
        "pip install -e ./pyp",
        "pip install --editable=pyp",
        "pip install -qe pyp",
        "pip install -e pyp -q",
        "pip install ./pyx",
        "pip install ./pyb",
        "uv pip install -e pyp",
        "uv pip install ./pyp",
        "uv sync --project pyu",
        "uv sync --directory pyu",
        "cd pyu && uv sync",
        "cd pyu && uv lock",
        "cd pyr && uv sync",
        "cd pyu && uv run python3 -c 1",
        "cd fl && uv pip install evilpkg",
        "cd fi && uv lock",
        "uv tool install {outside}/pkg",
        "uv run --with-requirements reqJ.txt python3 -c 1",
    ],
)
def test_outside_code_pip_and_uv_reach_is_asked(
    command: str, projects: Tree, make_ctx: ContextFactory
) -> None:
    text = projects.fill(command)
    verdict = decide("Bash", {"command": text}, make_ctx(RULES))
    assert verdict.behavior == "ask", (text, verdict.reason)


@pytest.mark.parametrize(
    "command",
    [
        "pip install -q requests",
        "pip -q install -U pip",
        "pip install -e ok",
        "cd ok && uv sync",
        "cd fl && uv pip list",
        "uv run --frozen python3 -c 1",
        "pip install -qr ok/pyproject.toml --dry-run",
    ],
)
def test_ordinary_pip_and_uv_commands_are_allowed(
    command: str, projects: Tree, make_ctx: ContextFactory
) -> None:
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict.behavior == "allow", (command, verdict.reason)


@pytest.mark.parametrize(
    "line",
    [
        "opkg @ FILE://localhost{outside}/pkg",
        "opkg @ file://localhost{outside}/pkg",
        "opkg @ File://anyhost{outside}/pkg",
        "opkg @ file:{outside}/pkg",
        "opkg @ file://{outside_escaped}/pkg",
    ],
)
def test_file_urls_read_as_pip_reads_them(
    line: str, projects: Tree, make_ctx: ContextFactory
) -> None:
    # pip's url_to_path: any case of the scheme, a host (localhost) before the path,
    # percent-escapes decoded.
    outside = projects.outside.as_posix()
    escaped = "/" + "".join(f"%{ord(c):02x}" for c in outside[1:3]) + outside[3:]
    text = line.replace("{outside_escaped}", escaped).replace("{outside}", outside)
    projects.write({"reqL.txt": text + "\n"})
    verdict = decide("Bash", {"command": "pip install -r reqL.txt"}, make_ctx(RULES))
    assert verdict.behavior == "ask", (text, verdict.reason)
    direct = decide("Bash", {"command": f"pip install '{text}'"}, make_ctx(RULES))
    assert direct.behavior == "ask", (text, direct.reason)
