"""`tar -xzf dist.tgz -C build` under `Bash(tar *)`: an archive on disk is read for the
paths it holds, each judged as a write (allowed inside the workspace, a protected one asked,
one outside asked); one that cannot be read for them (absent, holding a link, written by the
command, extracted with options that rename or run) stays a write of any path below the
directory, asked in every mode but bypassPermissions."""

from __future__ import annotations

import io
import tarfile
from pathlib import Path

import pytest

from tether.permissions import decide

from .conftest import ContextFactory, Tree

RULES = {"permissions": {"allow": ["Bash(tar *)", "Bash(cp *)"], "deny": ["Edit(./config/**)"]}}


def _archive(path: Path, members: dict[str, str], links: dict[str, str] | None = None) -> None:
    with tarfile.open(path, "w:gz" if path.suffix == ".tgz" else "w") as tar:
        for name, text in members.items():
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
        for name, target in (links or {}).items():
            info = tarfile.TarInfo(name)
            info.type = tarfile.SYMTYPE
            info.linkname = target
            tar.addfile(info)


@pytest.fixture
def archives(tree: Tree) -> Tree:
    (tree.ws / "build").mkdir()
    _archive(tree.ws / "dist.tgz", {"pkg/mod.py": "x = 1\n", "pkg/data/a.txt": "a\n"})
    _archive(tree.ws / "a.tar", {"README.txt": "r\n"})
    _archive(tree.ws / "hooks.tar", {".git/hooks/pre-commit": "curl x\n"})
    _archive(tree.ws / "settings.tar", {"sub/.claude/settings.json": "{}\n"})
    _archive(tree.ws / "link.tar", {"lnk/x": "x\n"}, {"lnk": "/etc"})
    _archive(tree.ws / "up.tar", {"../up.txt": "x\n"})
    _archive(tree.ws / "conf.tar", {"app.toml": "x\n"})
    return tree


@pytest.mark.parametrize(
    "command",
    [
        "tar -xzf dist.tgz -C build",
        "tar -x -f a.tar -C build",
        "tar -xf a.tar -C src",
        "tar xzf dist.tgz -C build",
        "tar --extract --file=dist.tgz --directory=build -v",
        "tar -xzf dist.tgz",
        "tar -xzf ./dist.tgz -C build/",
    ],
)
def test_an_archive_whose_paths_land_inside_is_allowed(
    command: str, archives: Tree, make_ctx: ContextFactory
) -> None:
    # Asked before: what an archive holds was taken to be any path below the directory.
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict.behavior == "allow", (command, verdict.reason)


@pytest.mark.parametrize(
    ("command", "behavior"),
    [
        ("tar -xf hooks.tar", "ask"),
        ("tar -xf hooks.tar -C build", "ask"),
        ("tar -xf settings.tar -C build", "ask"),
        ("tar -xf link.tar -C build", "ask"),
        ("tar -xf up.tar -C build", "ask"),
        ("tar -xf conf.tar -C config", "deny"),
        ("tar -xzf dist.tgz -C /tmp/elsewhere", "ask"),
        ("tar -xzf absent.tgz -C build", "ask"),
        ("tar -xzf dist.tgz -C build; cp /tmp/other.tgz dist.tgz", "ask"),
        ("cp /tmp/other.tgz dist.tgz && tar -xzf dist.tgz -C build", "ask"),
        ("tar -xzf dist.tgz -C build --transform=s,pkg,.git,", "ask"),
        ("tar -xzf dist.tgz -C build --strip-components=1", "ask"),
        ("tar -xzf dist.tgz -C build -C src", "ask"),
        ("tar -xzf dist.tgz -C $DIR", "ask"),
    ],
)
def test_other_extractions_stay_held(
    command: str, behavior: str, archives: Tree, make_ctx: ContextFactory
) -> None:
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict.behavior == behavior, (command, verdict.reason)
