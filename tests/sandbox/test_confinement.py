"""What a sandboxed Bash command can and cannot do, checked on the host afterwards.

Run through the Bash tool with the sandbox's wrapper, as a session runs them."""

# Checking files on disk from async tests is deliberate: nothing else runs on the loop.

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest

from tether.tools.registry import ToolOutcome

from .conftest import Layout, bash_runner, needs_bwrap, sandboxed_context

pytestmark = needs_bwrap

BASH = shutil.which("bash") or "/bin/bash"
"""How bash names itself in its error messages."""


async def test_writes_reach_workspace_scratch_and_temporary_directory_not_tmp(
    layout: Layout, tmp_path: Path
) -> None:
    """The workspace is under /tmp here (pytest's tmp_path), and stays writable; the rest of
    /tmp is read-only."""
    run = bash_runner(sandboxed_context(layout))
    scratch = layout.scratch
    in_tmp = tmp_path / "p.txt"
    outcome = await run(
        command=f'echo w > made.txt && echo s > {scratch}/s.txt && echo t > "$TMPDIR/t.txt" '
        f'&& echo "$TMPDIR" && echo p > {in_tmp}'
    )
    assert outcome.content.startswith(
        f"Exit code 1\n{scratch}/tmp\n{BASH}: line 1: {in_tmp}: Read-only file system\n"
    )
    assert [
        (layout.workspace / "made.txt").read_text(),
        (scratch / "s.txt").read_text(),
        (scratch / "tmp" / "t.txt").read_text(),
        in_tmp.exists(),
    ] == ["w\n", "s\n", "t\n", False]


async def test_writes_anywhere_else_fail_and_leave_the_host_untouched(layout: Layout) -> None:
    run = bash_runner(sandboxed_context(layout))
    etc_file = Path("/etc/tether-sandbox-test")
    try:
        outcome = await run(
            command=f"echo x > {etc_file}; touch /usr/tether-sandbox-test; echo done"
        )
        assert outcome == ToolOutcome(
            f"{BASH}: line 1: {etc_file}: Read-only file system\n"
            "touch: cannot touch '/usr/tether-sandbox-test': Read-only file system\n"
            "done",
            False,
        )
        assert not etc_file.exists()
        assert not Path("/usr/tether-sandbox-test").exists()
    finally:
        etc_file.unlink(missing_ok=True)
        Path("/usr/tether-sandbox-test").unlink(missing_ok=True)


async def test_extra_writable_path(layout: Layout) -> None:
    run = bash_runner(sandboxed_context(layout, writable=(layout.outside,)))
    outcome = await run(command=f"echo x > {layout.outside}/new.txt && echo ok")
    assert outcome == ToolOutcome("ok", False)
    assert (layout.outside / "new.txt").read_text() == "x\n"


async def test_secrets_in_home_are_hidden(layout: Layout) -> None:
    """The home (here inside the workspace) is hidden whole, listed credential places or not."""
    home = layout.home
    (home / ".ssh").mkdir()
    (home / ".ssh" / "id_ed25519").write_text("SECRET KEY\n")
    (home / ".config" / "gh").mkdir(parents=True)
    (home / ".config" / "gh" / "hosts.yml").write_text("oauth_token: SECRET\n")
    (home / ".netrc").write_text("machine example.com password SECRET\n")
    (home / "notes.txt").write_text("token: SECRET\n")
    run = bash_runner(sandboxed_context(layout))
    outcome = await run(
        command="cd home && ls -A && cat notes.txt .netrc .config/gh/hosts.yml .ssh/id_ed25519"
    )
    assert outcome == ToolOutcome(
        "Exit code 1\n"
        "cat: notes.txt: No such file or directory\n"
        "cat: .netrc: No such file or directory\n"
        "cat: .config/gh/hosts.yml: No such file or directory\n"
        "cat: .ssh/id_ed25519: No such file or directory",
        True,
    )
    # A write there fails: the home's cover is read-only.
    wrote = await run(command=f"echo x > {home}/.netrc || echo refused")
    assert wrote.content.endswith("/.netrc: Read-only file system\nrefused")
    assert sorted(p.name for p in (home / ".ssh").iterdir()) == ["id_ed25519"]
    assert (home / ".netrc").read_text() == "machine example.com password SECRET\n"


async def test_workspace_inside_a_hidden_directory_stays_usable(
    layout: Layout, tmp_path: Path
) -> None:
    home = tmp_path.resolve() / "home"
    project = home / ".config" / "project"
    project.mkdir(parents=True)
    (home / ".config" / "token").write_text("SECRET\n")
    moved = Layout(project, layout.scratch, home, layout.outside)
    # The home directory made writable so that it is in sight at all (it is under /tmp).
    run = bash_runner(sandboxed_context(moved, writable=(home,)))
    outcome = await run(command="echo x > f.txt && ls -A .. && cat ../token")
    assert outcome == ToolOutcome(
        "Exit code 1\nproject\ncat: ../token: No such file or directory", True
    )
    assert (project / "f.txt").read_text() == "x\n"


class Listener:
    """A TCP server on 127.0.0.1 that counts the connections it gets."""

    def __init__(self) -> None:
        self.connections = 0

    def accept(self, _reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        writer.close()


@pytest.mark.parametrize("network", [False, True])
async def test_network_is_cut_unless_allowed(layout: Layout, network: bool) -> None:
    listener = Listener()
    server = await asyncio.start_server(listener.accept, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        run = bash_runner(sandboxed_context(layout, network=network))
        outcome = await run(command=f"echo > /dev/tcp/127.0.0.1/{port} && echo connected")
    finally:
        server.close()
        await server.wait_closed()
    if network:
        assert (outcome, listener.connections) == (ToolOutcome("connected", False), 1)
    else:
        assert (outcome, listener.connections) == (
            ToolOutcome(
                f"Exit code 1\n{BASH}: connect: Connection refused\n"
                f"{BASH}: line 1: /dev/tcp/127.0.0.1/{port}: Connection refused\n\n"
                "[The network is off in the sandbox: if this command needed it (a download, a "
                "package install, a connection), it cannot work here; ask the user to run it "
                "outside.]",
                True,
            ),
            0,
        )


async def test_scratch_inside_hidden_tether_home_stays_writable(layout: Layout) -> None:
    tether_home = layout.home / ".tether"
    (tether_home / "settings.json").parent.mkdir()
    (tether_home / "settings.json").write_text('{"env": {"API_KEY": "SECRET"}}')
    moved = Layout(layout.workspace, tether_home / "scratch" / "s1", layout.home, layout.outside)
    run = bash_runner(sandboxed_context(moved))
    outcome = await run(command=f"ls -A {tether_home} && echo x > {moved.scratch}/out.txt")
    assert outcome == ToolOutcome("scratch", False)
    assert (moved.scratch / "out.txt").read_text() == "x\n"
