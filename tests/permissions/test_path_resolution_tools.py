"""The real file tools and the Bash tool open what the permission engine judged: the same
kernel-order resolution, no lexical `..` folding, `~user` expanded alike, and bash started
without an inherited CDPATH or a stale PWD (test_path_resolution.py has the workspace)."""

from __future__ import annotations

import os
import pwd
from pathlib import Path, PurePosixPath
from typing import Any

import pytest

from tether.kernel_paths import kernel_resolve
from tether.permissions import PermissionContext, decide, load_rules
from tether.protocol import ToolUseBlock
from tether.tools.builtin import builtin_tools
from tether.tools.context import ToolContext
from tether.tools.registry import ToolRegistry

from .test_path_resolution import Links, context, links, read

__all__ = ["links"]  # the fixture, shared


async def run(ctx: ToolContext, name: str, **tool_input: Any) -> tuple[str, bool]:
    registry = ToolRegistry(builtin_tools())
    outcome = await registry.run(ToolUseBlock(id="c1", name=name, input=tool_input), ctx)
    return outcome.content if isinstance(outcome.content, str) else str(outcome.content), (
        outcome.is_error
    )


async def test_read_tool_opens_the_file_the_engine_judged(links: Links, tmp_path: Path) -> None:
    tools = ToolContext(workspace=links.ws, scratch_dir=tmp_path / "scratch")
    text, failed = await run(tools, "Read", file_path="src/self/../.env")
    assert (text, failed) == ("     1\tSECRET=1", False)
    assert tools.resolve("src/self/../.env") == links.ws / ".env"
    # The kernel fails on `..` after a missing directory; so does the tool (no lexical folding).
    text, failed = await run(tools, "Read", file_path="missing/../README.md")
    assert failed, text
    text, failed = await run(tools, "Read", file_path="loop1")
    assert failed, text


async def test_write_tool_refuses_what_it_cannot_place(links: Links, tmp_path: Path) -> None:
    tools = ToolContext(workspace=links.ws, scratch_dir=tmp_path / "scratch")
    _, failed = await run(tools, "Write", file_path=f"procroot{links.outside}/new.txt", content="x")
    assert failed
    assert not (links.outside / "new.txt").exists()
    _, failed = await run(tools, "Write", file_path="src/up/../escape.txt", content="x")
    assert failed
    assert not (links.ws.parent / "escape.txt").exists()
    _, failed = await run(tools, "Write", file_path="missing/../made.txt", content="x")
    assert failed
    assert not (links.ws / "made.txt").exists()


async def test_glob_and_grep_tools_start_where_the_engine_judged(
    links: Links, tmp_path: Path
) -> None:
    tools = ToolContext(workspace=links.ws, scratch_dir=tmp_path / "scratch")
    text, failed = await run(tools, "Glob", pattern="src/self/../secrets/*")
    assert (text, failed) == ("secrets/key.pem", False)
    text, failed = await run(tools, "Grep", pattern="pem", path="src/c1/../secrets")
    assert (text, failed) == ("secrets/key.pem", False)


def test_tools_and_engine_expand_tilde_user_alike(links: Links, tmp_path: Path) -> None:
    root_home = Path(pwd.getpwnam("root").pw_dir)
    tools = ToolContext(workspace=links.ws, scratch_dir=tmp_path / "scratch")
    assert tools.resolve("~root") == kernel_resolve(PurePosixPath(root_home))
    ctx = context(links)
    rules = load_rules(
        [
            (
                links.ws / ".claude" / "settings.json",
                {"permissions": {"deny": [f"Read(/{root_home}/**)"]}},
            )
        ],
        seed_yaml=None,
    )
    assert (
        read(
            "~root/.ssh/id_rsa",
            PermissionContext(
                mode="default", rules=rules, workspace=links.ws, cwd=links.ws, home=links.home
            ),
        )
        == "deny"
    )
    assert read("~root/.ssh/id_rsa", ctx) == "ask"


async def test_bash_tool_starts_where_the_engine_judges(
    links: Links, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An inherited CDPATH would send `cd src` elsewhere, and an inherited PWD naming the
    workspace through a link would make bash's logical `cd ..` climb from the link."""
    (links.outside / "src").mkdir()
    alias = tmp_path / "elsewhere" / "alias"
    alias.parent.mkdir()
    os.symlink(links.ws, alias)
    monkeypatch.setenv("CDPATH", str(links.outside))
    monkeypatch.setenv("PWD", str(alias))
    tools = ToolContext(workspace=links.ws, scratch_dir=tmp_path / "scratch")
    text, failed = await run(tools, "Bash", command="cd src && pwd")
    assert (text.strip(), failed) == (str(links.ws / "src"), False)
    tools.cwd = links.ws
    text, failed = await run(tools, "Bash", command="cd .. && pwd")
    assert (text.splitlines()[0], failed) == (str(links.ws.parent), False)


async def test_cd_back_goes_where_the_engine_judges(
    links: Links, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`cd -` goes to OLDPWD: the engine takes it for where the command started (or a place
    an earlier `cd` of the command left), so an OLDPWD inherited from whoever started tether
    must not send it elsewhere; and no longer over-asks."""
    monkeypatch.setenv("OLDPWD", str(links.outside))
    tools = ToolContext(workspace=links.ws, scratch_dir=tmp_path / "scratch")
    text, failed = await run(tools, "Bash", command="cd - >/dev/null && pwd")
    assert (text.strip(), failed) == (str(links.ws), False)
    (links.ws / "sub").mkdir(exist_ok=True)
    text, failed = await run(tools, "Bash", command="cd sub && cd - >/dev/null && pwd")
    assert (text.strip(), failed) == (str(links.ws), False)
    allow = {"permissions": {"allow": ["Bash(ls *)"]}}
    rules = load_rules([(links.ws / "s.json", allow)], seed_yaml=None)
    ctx = PermissionContext(mode="default", rules=rules, workspace=links.ws, cwd=links.ws)
    for command in ("cd - && ls -a", "cd sub && cd - && ls -a"):
        assert decide("Bash", {"command": command}, ctx).behavior == "allow", command
