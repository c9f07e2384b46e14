"""Text with no UTF-8 form coming in by any door (argv bytes, a workspace path, settings JSON,
a client's control requests) never ends the run: text is made encodable where it enters, a
path is shown escaped, a model name that is not printable text is refused where it was given,
and an internal error is one bounded line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tether.outside_text import error_summary, shown_path
from tether.testing import FakeModelServer, reply, text
from tether.testing.cli_runner import run_cli


def run_bytes(*argv: bytes, cwd: Path) -> subprocess.CompletedProcess[bytes]:
    """`tether ARGV` as a real process, its arguments as raw bytes (as a shell passes them)."""
    command = [sys.executable.encode(), b"-m", b"tether", *argv]
    return subprocess.run(command, capture_output=True, cwd=cwd, timeout=120, check=False)


def _bypass(workspace: Path) -> list[bytes]:
    return [b"--cwd", os.fsencode(workspace), b"--permission-mode", b"bypassPermissions"]


def test_a_model_name_of_undecodable_bytes_is_refused_in_one_line(
    model_env: FakeModelServer, workspace: Path
) -> None:
    done = run_bytes(*_bypass(workspace), b"--model", b"\xff\xfe", b"-p", b"hi", cwd=workspace)
    assert done.returncode == 2
    assert done.stderr.decode() == (
        "tether: Model name '\\\\xff\\\\xfe' is not printable text (control characters, or "
        "bytes that are not UTF-8): give the model's id as plain text.\n"
    )
    assert model_env.requests == []


def test_undecodable_bytes_in_a_system_prompt_flag_reach_the_model_replaced(
    model_env: FakeModelServer, workspace: Path
) -> None:
    model_env.script(reply(text("ok")), reply(text("ok")))
    for flag in (b"--append-system-prompt", b"--system-prompt"):
        done = run_bytes(*_bypass(workspace), flag, b"rule \xff", b"-p", b"hi", cwd=workspace)
        assert (done.returncode, done.stdout) == (0, b"ok\n"), done.stderr
        assert "rule \ufffd" in model_env.requests[-1].system()


def test_a_workspace_whose_name_is_not_utf8_is_usable_and_shown_escaped(
    model_env: FakeModelServer, tmp_path: Path
) -> None:
    workspace = Path(os.fsdecode(os.fsencode(tmp_path) + b"/w\xff"))
    workspace.mkdir()
    (workspace / "notes.txt").write_text("found me\n")
    model_env.script(reply(text("ok")), reply(text("again")))
    done = run_bytes(*_bypass(workspace), b"-p", b"hi", cwd=workspace)
    assert (done.returncode, done.stdout) == (0, b"ok\n"), done.stderr
    assert f"Workspace root: {tmp_path}/w\\xff" in model_env.requests[0].system()
    resumed = run_bytes(*_bypass(workspace), b"-c", b"-p", b"and?", cwd=workspace)
    assert (resumed.returncode, resumed.stdout) == (0, b"again\n"), resumed.stderr
    assert model_env.rejections == []


def test_a_lone_surrogate_in_settings_json_is_refused_at_the_model(
    model_env: FakeModelServer, workspace: Path
) -> None:
    result = run_cli(["--cwd", str(workspace), "--settings", '{"model": "\\ud800"}', "-p", "hi"])
    assert result.exit_code == 2
    assert "Model name '\ufffd' is not printable text" in result.stderr
    assert model_env.requests == []


def _lines(*lines: dict[str, object]) -> str:
    return "".join(json.dumps(line) + "\n" for line in lines)


def test_client_requests_with_lone_surrogates_never_break_the_output(
    model_env: FakeModelServer, workspace: Path
) -> None:
    """`set_model` with a surrogate is refused; a system prompt with one is sent replaced;
    every output line stays JSON and the user's prompt is answered."""
    model_env.script(reply(text("answered")))
    stdin = _lines(
        {
            "type": "control_request",
            "request_id": "i1",
            "request": {"subtype": "initialize", "systemPrompt": ["be \ud800 good"]},
        },
        {
            "type": "control_request",
            "request_id": "m1",
            "request": {"subtype": "set_model", "model": "\ud800"},
        },
        {
            "type": "control_request",
            "request_id": "f1",
            "request": {"subtype": "apply_flag_settings", "settings": {"model": "a\x00b"}},
        },
        {"type": "user", "message": {"role": "user", "content": "hi \udcff"}},
    )
    result = run_cli(
        [
            *("--cwd", str(workspace), "--input-format", "stream-json"),
            *("--output-format", "stream-json", "--verbose"),
        ],
        stdin=stdin,
    )
    assert result.exit_code == 0, result.stderr
    lines = result.json_lines()
    answers = {
        line["response"]["request_id"]: line["response"]["subtype"]
        for line in lines
        if line["type"] == "control_response"
    }
    assert answers == {"i1": "success", "m1": "error", "f1": "error"}
    [result_line] = [line for line in lines if line["type"] == "result"]
    assert (result_line["subtype"], result_line["result"]) == ("success", "answered")
    [request] = model_env.requests
    assert "be \ufffd good" in request.system()
    assert request.last_user_text() == "hi \ufffd"
    assert request.body["model"] == "claude-sonnet-5-5"


def test_an_internal_error_is_one_bounded_line() -> None:
    body = json.dumps({"model": "x", "system": "y" * 50_000, "note": "\ud800"}, ensure_ascii=False)
    try:
        body.encode()
    except UnicodeEncodeError as e:
        line = error_summary(e)
    assert line.startswith("UnicodeEncodeError: 'utf-8' codec can't encode character")
    assert "\n" not in line
    assert len(line) < 400
    assert line.encode()  # it can be printed


def test_paths_are_shown_escaped_and_kept_otherwise() -> None:
    assert shown_path("/tmp/plain") == "/tmp/plain"
    assert shown_path(os.fsdecode(b"/tmp/w\xff")) == "/tmp/w\\xff"
    assert shown_path("/tmp/\ud800") == "/tmp/\ufffd"
