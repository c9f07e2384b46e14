"""Options that change the directory a program's later operands are named from (`tar -C DIR`,
`make -C DIR`, `patch -d DIR`, `--cwd=DIR`): the operands are judged from that directory.

tar is the judge: each generated command runs for real, and when the archive it made holds a
denied file's text, the engine must not have allowed it.
"""

from __future__ import annotations

import resource
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tether.permissions import PermissionContext, decide

from .conftest import ContextFactory

DENY = ["Read(./.env)", "Read(./secrets/**)"]
SECRETS = {"KEY=1", "pem", "key"}
"""The lines of the tree's denied files (.env, secrets/key.pem, secrets/api.key)."""


def bash(command: str, ctx: PermissionContext) -> str:
    return decide("Bash", {"command": command}, ctx).behavior


DIRECTORIES = ["secrets", "src", ".", "src/..", "secrets/..", "../secrets", "../src"]
"""None leads out of the tree, however they combine: what tar archives stays small."""
ARCHIVE_BYTES = 1 << 20
"""tar is stopped past this (`RLIMIT_FSIZE`), should a command reach further anyway."""
OPERANDS = ["key.pem", ".env", "README.md", "../.env", "api.key", ".", "app.py"]


def _small_files() -> None:
    resource.setrlimit(resource.RLIMIT_FSIZE, (ARCHIVE_BYTES, ARCHIVE_BYTES))


@st.composite
def tar_commands(draw: st.DrawFn) -> str:
    words: list[str] = []
    for _ in range(draw(st.integers(1, 4))):
        if draw(st.booleans()):
            directory = draw(st.sampled_from(DIRECTORIES))
            spelling = draw(st.sampled_from(["-C {}", "--directory={}", "--dir {}", "-C{}"]))
            words.append(spelling.format(directory))
        else:
            words.append(draw(st.sampled_from(OPERANDS)))
    head = draw(st.sampled_from(["tar -cf {out}", "tar cf {out}", "tar -c -f {out}"]))
    place = draw(st.integers(0, len(words)))
    return " ".join([head, *words[:place], *words[place:]])


@settings(
    max_examples=60,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(command=tar_commands(), in_src=st.booleans())
def test_what_tar_archives_from_a_denied_file_was_not_allowed(
    command: str, in_src: bool, make_ctx: ContextFactory, tmp_path: Path
) -> None:
    ctx = make_ctx({"permissions": {"allow": ["Bash(tar *)"], "deny": DENY}})
    cwd = ctx.workspace / "src" if in_src else ctx.workspace
    ctx = make_ctx({"permissions": {"allow": ["Bash(tar *)"], "deny": DENY}}, cwd=cwd)
    archive = tmp_path / "out.tar"
    archive.unlink(missing_ok=True)
    subprocess.run(
        command.format(out=archive),
        shell=True,
        cwd=cwd,
        capture_output=True,
        check=False,
        preexec_fn=_small_files,
    )
    held: set[str] = set()
    if archive.exists():
        listed = subprocess.run(
            ["tar", "-xOf", str(archive)], capture_output=True, text=True, check=False
        )
        held = set(listed.stdout.splitlines())
    behavior = bash(command.format(out=archive), ctx)
    if held & SECRETS:
        assert behavior != "allow", (command, cwd.name, held & SECRETS)


@pytest.mark.parametrize(
    "command",
    [
        "tar -C secrets -cf /tmp/x.tar key.pem",
        "tar --directory=secrets -cf - key.pem",
        "tar -cf - -C secrets key.pem",
        "tar -cf - README.md -C secrets key.pem",
        "tar czf - --dir=secrets api.key",
        "tar -C src -C .. -cf - .env",
    ],
)
@pytest.mark.parametrize("mode", ["default", "acceptEdits", "bypassPermissions"])
def test_tar_operands_after_a_directory_are_read_from_it(
    command: str, mode: str, make_ctx: ContextFactory
) -> None:
    ctx = make_ctx({"permissions": {"allow": ["Bash(tar *)"], "deny": DENY}}, mode=mode)
    assert bash(command, ctx) == "deny"


def test_tar_operands_before_a_directory_are_read_from_where_it_runs(
    make_ctx: ContextFactory,
) -> None:
    ctx = make_ctx({"permissions": {"allow": ["Bash(tar *)"], "deny": DENY}})
    assert bash("tar -cf out.tar README.md -C secrets", ctx) == "allow"
    assert bash("tar -cf out.tar -C src app.py", ctx) == "allow"
    cwd = make_ctx(cwd=ctx.workspace / "src").cwd
    inner = make_ctx({"permissions": {"allow": ["Bash(tar *)"], "deny": DENY}}, cwd=cwd)
    assert bash("tar -C .. -cf - .env", inner) == "deny"


@pytest.mark.parametrize(
    "command",
    [
        "patch -d src -i ../.env",
        "scons -C src -f ../.env",
        "mytool --cwd=src ../.env",
        "mytool -Csrc --input ../secrets/api.key",
        "pnpm --dir src exec cat ../.env",
    ],
)
def test_a_program_whose_options_are_not_known_is_judged_from_its_directory_too(
    command: str, make_ctx: ContextFactory
) -> None:
    """Its options are not known, so every later word is also taken as named from the
    directory a directory option gives: a hard ask where that reaches a denied file."""
    allow = ["Bash(make *)", "Bash(patch *)", "Bash(scons *)", "Bash(mytool *)", "Bash(pnpm *)"]
    ctx = make_ctx({"permissions": {"allow": allow, "deny": DENY}}, mode="bypassPermissions")
    decision = decide("Bash", {"command": command}, ctx)
    assert decision.behavior == "ask", decision
    assert decision.rule in DENY
    assert bash("make -C src test", ctx) == "allow"
