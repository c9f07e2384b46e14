"""A disk that fills up or a session file that cannot be written: the session goes on, says
so once, and loses nothing it holds in memory; the file it leaves is valid.

Real file systems, not patched calls: each case runs tether in a mount namespace of its own
(`unshare -m`, tests run as root) with a small tmpfs where it writes, or a read-only bind
mount of the sessions directory."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tether.store import list_sessions, load_session
from tether.testing import FakeModelServer, reply, text, tool_use

NAMESPACE_OK = shutil.which("unshare") is not None and os.geteuid() == 0


def _in_namespace(
    setup: str, argv: list[str], workspace: Path, *, keep: tuple[Path, Path] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run `setup` (shell: the mounts), then `python -m tether ARGV`, in a new mount namespace;
    `keep` (from, to) copies what tether left on a mount out before the namespace goes."""
    command = " ".join(shlex.quote(a) for a in [sys.executable, "-m", "tether", *argv])
    copy = f"cp -r {shlex.quote(str(keep[0]))} {shlex.quote(str(keep[1]))}" if keep else "true"
    script = f"set -e\n{setup}\nset +e\n{command}\nstatus=$?\n{copy}\nexit $status"
    return subprocess.run(
        ["unshare", "--mount", "--propagation", "private", "sh", "-c", script],
        capture_output=True,
        text=True,
        cwd=workspace,
        timeout=120,
        check=False,
    )


def _namespaces_work(tmp_path: Path) -> None:
    probe = tmp_path / "probe"
    probe.mkdir()
    ran = subprocess.run(
        ["unshare", "--mount", "sh", "-c", f"mount -t tmpfs -o size=4k tmpfs '{probe}'"],
        capture_output=True,
        check=False,
    )
    if not NAMESPACE_OK or ran.returncode != 0:
        pytest.skip("needs root and unshare to mount a small file system")


def test_a_disk_full_during_compaction_keeps_the_history_and_says_so(
    fake_model: FakeModelServer, model_env: FakeModelServer, workspace: Path, tmp_path: Path
) -> None:
    _namespaces_work(tmp_path)
    home = Path(os.environ["TETHER_HOME"])
    big_summary = "SUMMARY: " + "the work so far, at length. " * 4000  # ~110 KB
    fake_model.script(
        reply(tool_use("Bash", command="echo one")),
        reply(tool_use("Bash", command="echo two"), usage={"input_tokens": 9000}),
        reply(text(big_summary)),  # cannot be saved: 64 KiB of disk
        reply(text("carried on")),
    )
    memory = workspace / ".tether"
    memory.mkdir()
    setup = (
        f"mount -t tmpfs -o size=64k tmpfs '{home}'\n"
        f"mount -t tmpfs -o size=4k tmpfs '{memory}'\n"  # the memory file cannot be written
    )
    os.environ["TETHER_CONTEXT_WINDOW"] = "10000"
    try:
        ran = _in_namespace(
            setup,
            ["--cwd", str(workspace), "--permission-mode", "bypassPermissions", "-p", "work"],
            workspace,
            keep=(home / "projects", tmp_path / "left"),
        )
    finally:
        del os.environ["TETHER_CONTEXT_WINDOW"]
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout == "carried on\n"
    assert "Traceback" not in ran.stderr
    assert ran.stderr.count("the session is no longer being saved") == 1
    assert "No space left on device" in ran.stderr
    assert f"the summary was not added to {memory / 'memory.md'}" in ran.stderr
    after = fake_model.requests[-1]
    assert "the work so far" in str(after.messages()[0]["content"])  # the compaction stood
    assert after.tool_results() == ["two\n"]
    # The file it left is valid: every entry before the one that did not fit, nothing torn.
    [left] = (tmp_path / "left").glob("*/*.jsonl")
    loaded = load_session(left)
    assert loaded.warnings == ()
    kinds = [type(r).__name__ for r in loaded.records()]
    conversation = ["UserRecord", "AssistantRecord", "UserRecord", "AssistantRecord", "UserRecord"]
    assert kinds == [*conversation, "SpendRecord"]  # the summary's cost, then no room


@pytest.mark.parametrize("resume", [True, False], ids=["at -c", "at start"])
def test_a_session_file_that_cannot_be_written_is_said_once_and_the_session_goes_on(
    fake_model: FakeModelServer,
    model_env: FakeModelServer,
    workspace: Path,
    tmp_path: Path,
    resume: bool,
) -> None:
    _namespaces_work(tmp_path)
    home = Path(os.environ["TETHER_HOME"])
    argv = ["--cwd", str(workspace), "--permission-mode", "bypassPermissions", "-p"]
    if resume:
        fake_model.script(reply(text("first")))
        first = _in_namespace("true", [*argv, "start"], workspace)
        assert first.returncode == 0, first.stderr
    projects = home / "projects"  # where sessions are kept; the rest of the home stays writable
    projects.mkdir(exist_ok=True)
    before = sorted(p.read_bytes() for p in home.rglob("*.jsonl"))
    fake_model.script(reply(tool_use("Bash", command="echo ran")), reply(text("went on")))
    read_only = f"mount --bind '{projects}' '{projects}'\nmount -o remount,bind,ro '{projects}'"
    ran = _in_namespace(read_only, [*(["-c"] if resume else []), *argv, "go on"], workspace)

    assert ran.returncode == 0, ran.stderr
    assert ran.stdout == "went on\n"
    assert "Traceback" not in ran.stderr
    assert ran.stderr.count("Read-only file system") == 1, ran.stderr
    assert ran.stderr.count("this session is not being saved") == 1, ran.stderr
    assert sorted(p.read_bytes() for p in home.rglob("*.jsonl")) == before
    if resume:  # the earlier conversation was sent, and the new turn on top of it
        assert [m["role"] for m in fake_model.requests[-1].messages()][:2] == ["user", "assistant"]
        assert len(list_sessions(home, workspace)) == 1
