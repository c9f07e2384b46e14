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

from tether.core.resume import restore
from tether.store import list_sessions, load_session
from tether.testing import FakeModelServer, RecordedRequest, reply, text, tool_use

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
    assert ran.stderr.count("this session is not being saved for now") == 1
    assert "No space left on device" in ran.stderr
    assert f"the summary was not added to {memory / 'memory.md'}" in ran.stderr
    after = fake_model.requests[-1]
    assert "the work so far" in str(after.messages()[0]["content"])  # the compaction stood
    assert after.tool_results() == ["two"]
    # The file it left is valid: every entry before the one that did not fit, nothing torn.
    [left] = (tmp_path / "left").glob("*/*.jsonl")
    loaded = load_session(left)
    assert loaded.warnings == ()
    # (an `estimate` entry, the ratio a cut request was measured at, may come between them)
    kinds = [type(r).__name__ for r in loaded.records() if type(r).__name__ != "EstimateRecord"]
    conversation = ["UserRecord", "AssistantRecord", "UserRecord", "AssistantRecord", "UserRecord"]
    assert kinds == [*conversation, "SpendRecord"]  # the summary's cost, then no room


@pytest.mark.parametrize("start", ["new", "-c", "--resume", "fork"])
@pytest.mark.parametrize("how", ["read-only", "full"])
def test_a_session_that_cannot_be_saved_stops_before_asking_the_model(
    fake_model: FakeModelServer,
    model_env: FakeModelServer,
    workspace: Path,
    tmp_path: Path,
    start: str,
    how: str,
) -> None:
    """The sessions' file system is read-only, or full from the start (a real 64 KiB tmpfs,
    filled): a new session, a resumed one (`-c`, `--resume`) or a fork does not ask the
    model, whose answer, like the prompt, could not be kept, and no tool runs. The turn ends
    with what failed, where, the space left there, and how to go on (never `-c`, which would
    resume another session); what was saved before stays as it was."""
    _namespaces_work(tmp_path)
    home = Path(os.environ["TETHER_HOME"])
    argv = ["--cwd", str(workspace), "--permission-mode", "bypassPermissions", "-p"]
    resume = start != "new"
    session_id = ""
    if resume:
        fake_model.script(reply(text("first")))
        first = _in_namespace("true", [*argv, "start"], workspace)
        assert first.returncode == 0, first.stderr
        session_id = list_sessions(home, workspace)[0].session_id
    projects = home / "projects"  # where sessions are kept; the rest of the home stays writable
    projects.mkdir(exist_ok=True)
    before = sorted(p.read_bytes() for p in projects.rglob("*.jsonl"))
    asked = len(fake_model.requests)
    fake_model.script(reply(tool_use("Bash", command="touch ran")), reply(text("went on")))
    if how == "read-only":
        setup = f"mount --bind '{projects}' '{projects}'\nmount -o remount,bind,ro '{projects}'"
        why = "Read-only file system"
    else:  # a copy of what is there on a small file system, then filled
        setup = (
            f"cp -a '{projects}' '{tmp_path / 'copy'}'\n"
            f"mount -t tmpfs -o size=64k tmpfs '{projects}'\n"
            f"cp -a '{tmp_path / 'copy'}/.' '{projects}/'\n"
            f"dd if=/dev/zero of='{projects}/filler' bs=4k 2>/dev/null || true"
        )
        why = "No space left on device ("
    how_to_start = {
        "new": [],
        "-c": ["-c"],
        "--resume": ["--resume", session_id],
        "fork": ["-c", "--fork-session"],
    }[start]
    # Bigger than a page: a small entry could still fit in the slack of the file's last page.
    prompt = "go on " * 2000
    ran = _in_namespace(setup, [*how_to_start, *argv, prompt], workspace)

    assert ran.returncode == 1, ran.stderr
    assert ran.stdout == ""
    assert "Traceback" not in ran.stderr
    assert not (workspace / "ran").exists()  # the tool never ran
    assert len(fake_model.requests) == asked  # and the model was not asked
    stopped = [line for line in ran.stderr.splitlines() if "stopped before" in line]
    assert len(stopped) == 1, ran.stderr
    if start == "new":  # nothing to write later: no promise that it will be
        assert "not being saved for now" not in ran.stderr
    assert "stopped before asking the model: " in stopped[0]
    assert f"{projects}/" in stopped[0]
    if how == "full" and start in ("-c", "--resume"):
        # The prompt is written only once a request sends it: the file system is seen
        # full before anything of the prompt is written.
        assert " is full (0 bytes free)" in stopped[0]
    else:
        assert why in stopped[0]
    if how == "full" and start not in ("-c", "--resume"):
        assert " free of " in stopped[0]
    assert "Nothing was sent to it." in stopped[0]
    # The advice matches the failure: no free space helps a read-only file system.
    remedy = {
        "full": "free space (or make the sessions folder writable)",
        "read-only": "mount its file system read-write",
    }[how]
    if start in ("-c", "--resume") and how == "read-only":  # it goes on in a fork
        assert (
            f"session {session_id} cannot be written (read-only file system): this one "
            "continues in a new session forked from it"
        ) in ran.stderr
    if start == "fork" or (resume and how == "read-only"):
        assert stopped[0].endswith(
            f"Nothing of the fork was saved, not even its prompt; the session it forks "
            f"({session_id}) is as it was: {remedy} "
            f"and fork it again with `tether --resume {session_id} --fork-session` and the "
            "prompt."
        )
    elif resume:
        assert stopped[0].endswith(f"resume it with `tether --resume {session_id}`.")
    else:
        assert stopped[0].endswith(
            "Nothing of this session was saved, not even its prompt: "
            f"{remedy} and send the prompt again (or run it without a session file: "
            "`--no-session-persistence`)."
        )
    assert "(-c)" not in ran.stderr
    assert sorted(p.read_bytes() for p in projects.rglob("*.jsonl")) == before  # nothing lost
    if resume:
        assert len(list_sessions(home, workspace)) == 1


def test_a_disk_full_mid_turn_stops_before_the_tool_and_keeps_the_file_valid(
    fake_model: FakeModelServer, model_env: FakeModelServer, workspace: Path, tmp_path: Path
) -> None:
    """The disk fills while the model answers. The call may still fit in the slack of the
    file's last page, but what the tool does might not: the tool does not run, the turn ends
    saying why (where, and the space left there). The file stays valid."""
    _namespaces_work(tmp_path)
    home = Path(os.environ["TETHER_HOME"])
    tether: list[subprocess.Popen[str]] = []

    def fill(_request: RecordedRequest) -> object:
        # The small file system exists in tether's mount namespace only: enter it.
        fill = f"dd if=/dev/zero of='{home / 'filler'}' bs=4k 2>/dev/null; true"
        subprocess.run(["nsenter", "-t", str(tether[0].pid), "-m", "sh", "-c", fill], check=False)
        return reply(tool_use("Bash", command="touch ran"))

    fake_model.script(fill, reply(text("done")))  # type: ignore[arg-type]
    argv = [sys.executable, "-m", "tether", "--cwd", str(workspace)]
    argv += ["--permission-mode", "bypassPermissions", "-p", "work"]
    tether.append(_on_a_small_disk(argv, home, tmp_path, workspace))
    out, err = tether[0].communicate(timeout=120)
    assert (tether[0].returncode, out) == (1, ""), err
    assert not (workspace / "ran").exists()
    assert len(fake_model.requests) == 1
    [left] = (tmp_path / "left").glob("*/*.jsonl")
    session_file = home / "projects" / left.parent.name / left.name
    lines = err.splitlines()
    [stopped] = [line for line in lines if "stopped before running" in line]
    assert str(session_file) in stopped
    assert "bytes free" in stopped
    assert err.count("are lost as tether exits") <= 1, err  # what did not fit in the slack
    loaded = load_session(left)
    assert loaded.warnings == ()
    assert restore(loaded).damage == ()


def _on_a_small_disk(
    argv: list[str], home: Path, tmp_path: Path, workspace: Path
) -> subprocess.Popen[str]:
    """`argv` run in a mount namespace of its own where `home` is a 128 KiB tmpfs; what it
    wrote there is copied to `tmp_path / "left"` when it ends."""
    setup = f"mount -t tmpfs -o size=128k tmpfs '{home}'"
    copy = f"cp -r '{home / 'projects'}' '{tmp_path / 'left'}'"
    script = f"set -e\n{setup}\nset +e\n{shlex.join(argv)}\nstatus=$?\n{copy}\nexit $status"
    return subprocess.Popen(
        ["unshare", "--mount", "--propagation", "private", "sh", "-c", script],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=workspace,
    )


def test_a_file_size_limit_is_named_and_its_remedy_is_raising_it(
    model_env: FakeModelServer, workspace: Path
) -> None:
    # `ulimit -f`: the session file stops taking writes at the limit (EFBIG), with the disk far
    # from full; the stop line names the limit and says to raise it, not to free space.
    model_env.script(
        reply(tool_use("Bash", command="echo " + "x" * 6000)),
        reply(tool_use("Bash", command="echo hi")),
        reply(text("done")),
    )

    def limit() -> None:
        import resource

        resource.setrlimit(resource.RLIMIT_FSIZE, (8 * 1024, 8 * 1024))

    done = subprocess.run(
        [sys.executable, "-m", "tether", "-p", "go", "--permission-mode", "bypassPermissions"],
        capture_output=True,
        text=True,
        cwd=workspace,
        preexec_fn=limit,
        timeout=120,
        check=False,
    )
    [stop] = [line for line in done.stderr.splitlines() if "stopped before asking" in line]
    assert "File too large (the file size limit of this process, `ulimit -f`, is 8.2 KB)" in stop
    assert "raise the file size limit (`ulimit -f`) and resume it" in stop
    assert "free space" not in stop
