"""Network off means off (unix sockets too), secrets stay out of the environment and out of
sight, TMPDIR is the same for every tool and the rest of /tmp read-only, and a failure says
what the sandbox stopped (and only that)."""

# Checking files on disk from async tests is deliberate: nothing else runs on the loop.

from __future__ import annotations

import contextlib
import dataclasses
import os
import shutil
import socket
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tether.sandbox import SECRETS_IN_HOME
from tether.tools.registry import ToolOutcome

from .conftest import (
    Layout,
    bash_runner,
    home_in_workspace,
    needs_bwrap,
    sandboxed_context,
    snapshot,
)

pytestmark = needs_bwrap

BASH = shutil.which("bash") or "/bin/bash"

CONNECT = (
    "python3 -c 'import socket,sys\n"
    "s=socket.socket(socket.AF_UNIX)\n"
    's.connect(sys.argv[1]); print("CONNECTED")\' {path} 2>/dev/null || echo refused'
)


@contextlib.contextmanager
def unix_listener(path: Path) -> Iterator[Path]:
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        server.bind(str(path))
        os.chmod(path, 0o777)
        server.listen(4)
        yield path
    finally:
        server.close()
        path.unlink(missing_ok=True)


def socket_places(layout: Layout) -> dict[str, Path]:
    tag = uuid.uuid4().hex[:10]
    places = {
        "workspace": layout.workspace / "app.sock",
        "tmp": Path(f"/tmp/tether-test-{tag}.sock"),
        "home": layout.home / "agent.sock",
    }
    if os.access("/run", os.W_OK):
        places["run"] = Path(f"/run/tether-test-{tag}.sock")
    return places


@pytest.mark.parametrize("where", ["workspace", "tmp", "home", "run"])
@pytest.mark.parametrize("network", [False, True])
async def test_unix_sockets_are_unreachable(boundary: Layout, where: str, network: bool) -> None:
    places = socket_places(boundary)
    if where not in places:
        pytest.skip("/run is not writable here: no listener can be put there")
    with unix_listener(places[where]) as path:
        run = bash_runner(sandboxed_context(boundary, network=network))
        outcome = await run(command=CONNECT.format(path=path))
    assert outcome == ToolOutcome("refused", False)


async def test_allowed_unix_sockets(boundary: Layout) -> None:
    with unix_listener(boundary.workspace / "ok.sock") as path:
        run = bash_runner(sandboxed_context(boundary, all_unix_sockets=True))
        outcome = await run(command=CONNECT.format(path=path))
    assert outcome == ToolOutcome("CONNECTED", False)


async def test_socketpair_still_works(boundary: Layout) -> None:
    run = bash_runner(sandboxed_context(boundary))
    outcome = await run(
        command='python3 -c \'import socket; a,b=socket.socketpair(); a.send(b"x"); '
        "print(b.recv(1))'"
    )
    assert outcome == ToolOutcome("b'x'", False)


VSOCK = (
    "python3 -c 'import socket\n"
    'try:\n socket.socket(socket.AF_VSOCK, socket.SOCK_STREAM); print("made")\n'
    "except OSError as e: print(e.errno)'"
)


@pytest.mark.parametrize("unix", [False, True])
async def test_vsock_is_refused_while_the_network_is_off(boundary: Layout, unix: bool) -> None:
    """A network namespace does not cut vsock (the hypervisor, a host channel)."""
    made = socket.socket(socket.AF_VSOCK, socket.SOCK_STREAM)  # outside it works here
    made.close()
    run = bash_runner(sandboxed_context(boundary, all_unix_sockets=unix))
    assert await run(command=VSOCK) == ToolOutcome("1", False)  # EPERM
    run = bash_runner(sandboxed_context(boundary, network=True))
    assert await run(command=VSOCK) == ToolOutcome("made", False)


async def test_system_runtime_directories_are_covered(boundary: Layout) -> None:
    run = bash_runner(sandboxed_context(boundary))
    assert await run(command="ls -A /run | wc -l") == ToolOutcome("0", False)


async def test_secrets_are_withheld_from_the_environment(
    boundary: Layout, monkeypatch: pytest.MonkeyPatch
) -> None:
    secrets = {
        "ANTHROPIC_API_KEY": "sk-ant-x",
        "OPENAI_API_KEY": "sk-x",
        "GITHUB_TOKEN": "ghp_x",
        "AWS_SECRET_ACCESS_KEY": "x",
        "AWS_PROFILE": "prod",
        "DB_PASSWORD": "x",
        "TETHER_HOME": "/somewhere",
        "CLAUDE_CODE_OAUTH_TOKEN": "x",
        "MY_SERVICE_CREDENTIALS": "x",
        "STRIPE_KEY": "x",
        "DATABASE_URL": "postgres://user:hunter2@db/app",
        "SSH_AUTH_SOCK": "/tmp/agent.sock",
    }
    for name, value in {**secrets, "KEPT_TOKEN": "listed", "PLAIN_SETTING": "fine"}.items():
        monkeypatch.setenv(name, value)
    run = bash_runner(sandboxed_context(boundary, env=("KEPT_TOKEN",)))
    outcome = await run(command="env | cut -d= -f1 | sort")
    names = set(outcome.content.split())
    assert (names & set(secrets), {"KEPT_TOKEN", "PLAIN_SETTING", "PATH", "HOME"} <= names) == (
        set(),
        True,
    )


DIRECTORIES = {
    ".tether/scratch", ".ssh", ".aws", ".azure", ".gcloud", ".oci", ".kube", ".docker",
    ".gnupg", ".password-store",
    ".local/share/keyrings", ".terraform.d", ".nuget", ".config", ".mozilla", ".thunderbird",
    ".var/app", "snap", ".local/share/fish", ".ipython", ".tether", ".claude",
}  # fmt: skip


EXPECTED_HIDDEN = (
    ".ssh", ".aws", ".config", ".netrc", ".docker", ".kube", ".claude.json", ".tether",
    ".claude", ".bash_history", ".zsh_history", ".python_history", ".psql_history", ".pgpass",
    ".my.cnf", ".s3cfg", ".boto", ".vault-token", ".terraform.d", ".m2/settings.xml",
    ".gradle/gradle.properties", ".gem/credentials", ".composer/auth.json", ".nuget",
    ".mozilla", ".npmrc", ".pypirc", ".git-credentials", ".gnupg", ".azure", ".oci",
)  # fmt: skip
"""Named here, not taken from the table: the table is what is under test."""


async def test_every_secret_in_home_is_hidden(boundary: Layout) -> None:
    boundary = home_in_workspace(boundary)
    for relative in dict.fromkeys((*EXPECTED_HIDDEN, *SECRETS_IN_HOME)):
        target = boundary.home / relative
        if target.exists():
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        if relative in DIRECTORIES:
            target.mkdir()
            (target / "credentials").write_text("SECRET\n")
        else:
            target.write_text("SECRET\n")
    run = bash_runner(sandboxed_context(boundary))
    outcome = await run(command=f"grep -rl SECRET {boundary.home}; echo end")
    assert outcome == ToolOutcome("end", False)


async def test_tether_home_is_hidden_wherever_it_is(boundary: Layout) -> None:
    """Here under the workspace, where nothing else would hide it."""
    tether_home = boundary.workspace / "state"
    boundary = dataclasses.replace(boundary, scratch=tether_home / "scratch" / "s1")
    tether_home.mkdir()
    (tether_home / "settings.json").write_text('{"env": {"ANTHROPIC_API_KEY": "SECRET"}}')
    (tether_home / "projects").mkdir()
    run = bash_runner(sandboxed_context(boundary))
    outcome = await run(
        command=f"cat {tether_home}/settings.json 2>/dev/null; ls -A {tether_home}; "
        f"echo out > {boundary.scratch}/spill.txt && echo done"
    )
    assert outcome == ToolOutcome("scratch\ndone", False)
    assert (boundary.scratch / "spill.txt").read_text() == "out\n"


async def test_tmpdir_is_the_same_for_every_tool_and_tmp_is_read_only(boundary: Layout) -> None:
    """TMPDIR is the session's own directory at the same path inside and out (what Read and
    Write see); the machine's /tmp is seen but not written, and the command is told where to
    write instead."""
    ctx = sandboxed_context(boundary)
    run = bash_runner(ctx)
    tmp_dir = boundary.scratch / "tmp"
    seen = Path(f"/tmp/tether-seen-{uuid.uuid4().hex[:10]}.txt")
    seen.write_text("outside\n")
    seen.chmod(0o666)  # writable for either caller but for the sandbox
    try:
        outcome = await run(command=f'echo from-bash > "$TMPDIR/f.txt" && cat {seen}')
        assert outcome == ToolOutcome("outside", False)
        assert (tmp_dir / "f.txt").read_text() == "from-bash\n"  # what Read and Write see
        (tmp_dir / "f.txt").write_text("from-write\n")
        assert await run(command='cat "$TMPDIR/f.txt"') == ToolOutcome("from-write", False)
        outcome = await run(command=f"echo x >> {seen}")
        assert outcome.content.startswith(
            f"Exit code 1\n{BASH}: line 1: {seen}: Read-only file system\n\n"
            "[The sandbox makes this path read-only: writes are allowed only in the "
            "workspace, TMPDIR and the listed writable paths (not /tmp)"
        )
        assert seen.read_text() == "outside\n"
    finally:
        seen.unlink(missing_ok=True)


async def test_another_project_under_tmp_cannot_be_changed(boundary: Layout) -> None:
    """Another repository and another agent workspace in /tmp, beside the workspace: their
    configuration (what git and the next session run) stays as it was."""
    other = Path(tempfile.mkdtemp(prefix="tether-other-", dir="/tmp"))
    try:
        (other / ".git").mkdir()
        (other / ".git" / "config").write_text("[core]\n")
        (other / ".claude").mkdir()
        (other / ".claude" / "settings.json").write_text("{}\n")
        # Open to everyone: only the sandbox stands in the way, for either caller.
        for path in (other, *other.rglob("*")):
            path.chmod(0o777 if path.is_dir() else 0o666)
        before = snapshot(other)
        run = bash_runner(sandboxed_context(boundary))
        outcome = await run(
            command=f"git config -f {other}/.git/config core.fsmonitor 'touch /tmp/x'; "
            f"echo '{{\"hooks\": 1}}' > {other}/.claude/settings.json; "
            f"mkdir {other}/.git/hooks; echo '#!/bin/sh' > {other}/.git/hooks/post-checkout; "
            "echo end"
        )
        # git's failure is told (`limits.config_unwritten`) after the command's output.
        assert (outcome.is_error, "end" in outcome.content.split("\n"), snapshot(other)) == (
            False,
            True,
            before,
        )
        assert "git could not write" in outcome.content, outcome.content
    finally:
        shutil.rmtree(other)


async def test_a_failure_says_the_network_is_off(boundary: Layout) -> None:
    run = bash_runner(sandboxed_context(boundary))
    outcome = await run(command="getent hosts pypi.org || echo > /dev/tcp/127.0.0.1/9; exit 1")
    assert outcome.is_error
    assert outcome.content.endswith(
        "[The network is off in the sandbox: if this command needed it (a download, a package "
        "install, a connection), it cannot work here; ask the user to run it outside.]"
    )


async def test_a_failure_says_the_path_is_protected(boundary: Layout) -> None:
    run = bash_runner(sandboxed_context(boundary))
    outcome = await run(command="echo '{}' > .mcp.json")
    assert outcome.is_error
    assert "[The sandbox makes this path read-only" in outcome.content


@pytest.mark.parametrize(
    "command",
    [
        "mkdir -p src && cat src",
        "python3 -c 'raise SystemExit(\"getaddrinfo wrapper test failed\")'",
        "echo 'could not connect: network error in the test fixture'; exit 3",
        "if then getaddrinfo fi",
    ],
    ids=["is-a-directory", "word-getaddrinfo", "words-network", "syntax-error"],
)
async def test_ordinary_failures_get_no_sandbox_note(boundary: Layout, command: str) -> None:
    outcome = await bash_runner(sandboxed_context(boundary))(command=command)
    assert (outcome.is_error, "[The " in outcome.content) == (True, False), outcome.content
