"""Each built-in tool's structured result, over the wire with the real Claude Agent SDK: what
PostToolUse hooks get as `tool_response` and the client as `tool_use_result`, in Claude Code's
shapes (recorded from the bundled Claude Code against the same script), while the model still
reads text."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from claude_agent_sdk import HookMatcher, ToolResultBlock, UserMessage

from tests.cli.sdk_harness import SdkRun
from tether.testing import FakeModelServer, reply, text, tool_use


async def _run(sdk: SdkRun, fake_model: FakeModelServer, *turns: Any) -> dict[str, Any]:
    """Run the script; per call id: the hook's `tool_response` and the `tool_use_result`."""
    fake_model.script(*turns, reply(text("done")))
    responses: dict[str, Any] = {}

    async def post(hook_input: Any, tool_use_id: str | None, context: Any) -> dict[str, Any]:
        responses[hook_input["tool_use_id"]] = hook_input["tool_response"]
        return {}

    messages = await sdk.query(
        "go",
        permission_mode="bypassPermissions",
        hooks={"PostToolUse": [HookMatcher(hooks=[post])]},
    )
    results = {
        block.tool_use_id: message.tool_use_result
        for message in messages
        if isinstance(message, UserMessage) and isinstance(message.content, list)
        for block in message.content
        if hasattr(block, "tool_use_id")
    }
    assert results == responses  # the hook and the client see the same result
    sdk.assert_lines_parse()
    return results


def _sha256(data: bytes) -> str:
    """The digest of the bytes on disk a file tool's result gives beside Claude Code's fields
    (a resumed session checks the file against it)."""
    return hashlib.sha256(data).hexdigest()


async def test_file_tools(sdk: SdkRun, fake_model: FakeModelServer, workspace: Path) -> None:
    (workspace / "sub").mkdir()
    (workspace / "sub" / "r.txt").write_text("one\ntwo\nthree\n")
    results = await _run(
        sdk,
        fake_model,
        reply(
            tool_use("Read", file_path="sub/r.txt"),
            tool_use("Write", file_path="./sub/../w.txt", content="x\ny\n"),
        ),
        reply(
            tool_use("Edit", file_path="sub/r.txt", old_string="two", new_string="TWO"),
            tool_use("Read", file_path="w.txt", offset=2, limit=1),
        ),
        reply(tool_use("Write", file_path="w.txt", content="new\n")),
    )
    r_txt, w_txt = str(workspace / "sub" / "r.txt"), str(workspace / "w.txt")
    assert results == {
        "toolu_1": {
            "type": "text",
            "file": {
                "filePath": r_txt,
                "content": "one\ntwo\nthree\n",
                "numLines": 3,
                "startLine": 1,
                "totalLines": 3,
            },
            "sha256": _sha256(b"one\ntwo\nthree\n"),
        },
        "toolu_2": {
            "type": "create",
            "filePath": w_txt,
            "content": "x\ny\n",
            "structuredPatch": [],
            "originalFile": None,
            "userModified": False,
            "sha256": _sha256(b"x\ny\n"),
        },
        "toolu_3": {
            "filePath": r_txt,
            "oldString": "two",
            "newString": "TWO",
            "originalFile": "one\ntwo\nthree\n",
            "structuredPatch": [
                {
                    "oldStart": 1,
                    "oldLines": 3,
                    "newStart": 1,
                    "newLines": 3,
                    "lines": [" one", "-two", "+TWO", " three"],
                }
            ],
            "userModified": False,
            "replaceAll": False,
            "sha256": _sha256(b"one\nTWO\nthree\n"),
        },
        "toolu_4": {
            "type": "text",
            "file": {
                "filePath": w_txt,
                "content": "y\n",
                "numLines": 1,
                "startLine": 2,
                "totalLines": 2,
            },
            "sha256": _sha256(b"x\ny\n"),
        },
        "toolu_5": {
            "type": "update",
            "filePath": w_txt,
            "content": "new\n",
            "structuredPatch": [
                {
                    "oldStart": 1,
                    "oldLines": 2,
                    "newStart": 1,
                    "newLines": 1,
                    "lines": ["-x", "-y", "+new"],
                }
            ],
            "originalFile": "x\ny\n",
            "userModified": False,
            "sha256": _sha256(b"new\n"),
        },
    }
    # The model reads text, as before.
    assert fake_model.requests[1].tool_results()[0] == "     1\tone\n     2\ttwo\n     3\tthree"


async def test_search_and_shell_tools(
    sdk: SdkRun, fake_model: FakeModelServer, workspace: Path
) -> None:
    (workspace / "a.txt").write_text("alpha\nbeta\n")
    (workspace / "b.txt").write_text("gamma\n")
    todo = {"content": "check", "status": "pending", "activeForm": "Checking"}
    results = await _run(
        sdk,
        fake_model,
        reply(
            tool_use("Glob", pattern="a*.txt"),
            tool_use("Grep", pattern="a"),
            tool_use("Grep", pattern="a", output_mode="content"),
            tool_use("Grep", pattern="a", output_mode="count", head_limit=1),
        ),
        reply(
            tool_use("Bash", command="true"),
            tool_use("Bash", command="echo out; echo err >&2"),
            tool_use("TodoWrite", todos=[todo]),
        ),
    )
    glob = results.pop("toolu_1")
    assert isinstance(glob.pop("durationMs"), int)
    assert glob == {"filenames": [str(workspace / "a.txt")], "numFiles": 1, "truncated": False}
    files = results.pop("toolu_2")
    assert sorted(files.pop("filenames")) == ["a.txt", "b.txt"]
    assert files == {"mode": "files_with_matches", "numFiles": 2}
    assert results == {
        "toolu_3": {
            "mode": "content",
            "numFiles": 0,
            "filenames": [],
            "content": "a.txt:1:alpha\na.txt:2:beta\nb.txt:1:gamma",
            "numLines": 3,
        },
        "toolu_4": {
            "mode": "count",
            "numFiles": 1,
            "filenames": [],
            "content": "a.txt:2",
            "numMatches": 2,
            "appliedLimit": 1,
        },
        # Claude Code: no output is "", not the "(Bash completed with no output)" the model reads.
        "toolu_5": {
            "stdout": "",
            "stderr": "",
            "interrupted": False,
            "isImage": False,
            "noOutputExpected": False,
        },
        "toolu_6": {
            "stdout": "out\nerr",
            "stderr": "",
            "interrupted": False,
            "isImage": False,
            "noOutputExpected": False,
        },
        "toolu_7": {"oldTodos": [], "newTodos": [todo]},
    }
    assert fake_model.requests[2].tool_results()[:2] == [
        "(Bash completed with no output)",
        "out\nerr",
    ]


async def test_failed_call_is_an_error_text(sdk: SdkRun, fake_model: FakeModelServer) -> None:
    fake_model.script(reply(tool_use("Bash", command="exit 3")), reply(text("done")))
    failures: list[dict[str, Any]] = []

    async def failed(hook_input: Any, tool_use_id: str | None, context: Any) -> dict[str, Any]:
        failures.append({k: hook_input[k] for k in ("tool_name", "error", "is_interrupt")})
        return {}

    messages = await sdk.query(
        "go",
        permission_mode="bypassPermissions",
        hooks={"PostToolUseFailure": [HookMatcher(hooks=[failed])]},
    )
    [result] = [m for m in messages if isinstance(m, UserMessage)]
    assert result.tool_use_result == "Error: Exit code 3"
    assert failures == [{"tool_name": "Bash", "error": "Exit code 3", "is_interrupt": False}]


async def test_a_failed_command_reads_exit_code_first_to_the_client_and_the_model(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    """As Claude Code gives it: the result's text starts `Exit code N` (before: `Error: Exit
    code N`), flagged `is_error`; only `tool_use_result` says `Error: `."""
    command = "echo out; echo err >&2; exit 3"
    fake_model.script(reply(tool_use("Bash", command=command)), reply(text("done")))
    messages = await sdk.query("go", permission_mode="bypassPermissions")
    [result] = [m for m in messages if isinstance(m, UserMessage)]
    assert result.content == [
        ToolResultBlock(tool_use_id="toolu_1", content="Exit code 3\nout\nerr", is_error=True)
    ]
    assert result.tool_use_result == "Error: Exit code 3\nout\nerr"
    [sent] = [
        b
        for m in fake_model.requests[1].body["messages"]
        if isinstance(m["content"], list)
        for b in m["content"]
        if b.get("type") == "tool_result"
    ]
    assert {k: v for k, v in sent.items() if k != "cache_control"} == {
        "type": "tool_result",
        "tool_use_id": "toolu_1",
        "content": "Exit code 3\nout\nerr",
        "is_error": True,
    }
