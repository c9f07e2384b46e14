"""Output that cannot be written (a full disk or `/dev/full`, standard output closed, an
encoding that cannot hold the answer): one precise line on standard error and status 1, no
traceback; an encoding that cannot hold every character gets escapes, and the answer."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tether.testing import FakeModelServer, reply, text


def _run(args: list[str], cwd: Path, stdout: int, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tether", *args],
        stdin=subprocess.DEVNULL,
        stdout=stdout,
        stderr=subprocess.PIPE,
        text=True,
        cwd=cwd,
        env={**os.environ, **env},
        errors="surrogateescape",
        timeout=120,
        check=False,
    )


@pytest.mark.parametrize("output_format", ["text", "json", "stream-json"])
def test_a_full_device_says_so_in_one_line(
    model_env: FakeModelServer, workspace: Path, output_format: str
) -> None:
    model_env.script(reply(text("the answer")))
    with open("/dev/full", "w") as full:
        run = _run(
            ["-p", "hi", "--output-format", output_format, "--cwd", str(workspace)],
            workspace,
            full.fileno(),
        )
    assert run.returncode == 1
    assert run.stderr == "tether: cannot write the output: No space left on device\n"


@pytest.mark.parametrize("args", [["sessions", "list"], ["sessions", "list", "--json"]])
def test_a_subcommand_into_a_full_device_says_so(
    model_env: FakeModelServer, workspace: Path, args: list[str]
) -> None:
    model_env.script(reply(text("the answer")))
    first = _run(["-p", "hi", "--cwd", str(workspace)], workspace, subprocess.DEVNULL)
    assert first.returncode == 0, first.stderr
    with open("/dev/full", "w") as full:
        run = _run([*args, "--cwd", str(workspace)], workspace, full.fileno())
    assert (run.returncode, run.stderr) == (
        1,
        "tether: cannot write the output: No space left on device\n",
    )


@pytest.mark.parametrize("args", [["sessions", "list"], ["-p", "hi"]])
def test_a_closed_standard_output_says_so(
    model_env: FakeModelServer, workspace: Path, args: list[str]
) -> None:
    model_env.script(reply(text("the answer")))
    run = subprocess.run(
        [
            sys.executable,
            "-c",
            "import os, sys; os.close(1); os.execv(sys.argv[1], sys.argv[1:])",
            sys.executable,
            "-m",
            "tether",
            *args,
            "--cwd",
            str(workspace),
        ],
        stdin=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        cwd=workspace,
        timeout=120,
        check=False,
    )
    assert (run.returncode, run.stderr) == (
        1,
        "tether: cannot write the output: standard output is closed\n",
    )


@pytest.mark.parametrize("encoding", ["ascii", "latin-1"])
def test_an_answer_the_output_encoding_cannot_hold_arrives_escaped(
    model_env: FakeModelServer, workspace: Path, encoding: str
) -> None:
    answer = "café → 😀"
    model_env.script(reply(text(answer)), reply(text(answer)))
    plain = _run(
        ["-p", "hi", "--cwd", str(workspace)],
        workspace,
        subprocess.PIPE,
        PYTHONIOENCODING=encoding,
    )
    assert plain.returncode == 0, plain.stderr
    assert "Traceback" not in plain.stderr
    out = plain.stdout.encode("utf-8", "surrogateescape").decode(encoding)
    assert out.strip() in ("caf\\u00e9 \\u2192 \\ud83d\\ude00", "café \\u2192 \\ud83d\\ude00")
    streamed = _run(
        ["-p", "hi", "--output-format", "stream-json", "--verbose", "--cwd", str(workspace)],
        workspace,
        subprocess.PIPE,
        PYTHONIOENCODING=encoding,
    )
    assert streamed.returncode == 0, streamed.stderr
    assert "Traceback" not in streamed.stderr
    out = streamed.stdout.encode("utf-8", "surrogateescape").decode(encoding)
    events = [json.loads(line) for line in out.splitlines()]
    assert events[-1]["result"] == answer
