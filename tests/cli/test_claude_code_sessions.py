"""tether's session files and Claude Code's, read both ways: the Claude Agent SDK's session
helpers read tether's transcripts (first prompt kept, only messages on the chain), Claude Code
(the CLI the SDK bundles) resumes a session tether wrote, and tether resumes one Claude Code
wrote. Both talk to the fake model server, which refuses what the API would refuse; Claude
Code runs with a home and config directory of the test's own."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from tether.store import list_sessions as tether_sessions
from tether.testing import FakeModelServer, reply, text, tool_use
from tether.testing.cli_runner import CliResult

Run = Callable[..., CliResult]

sdk = pytest.importorskip("claude_agent_sdk")
CLAUDE = Path(sdk.__file__).parent / "_bundled" / "claude"


def _claude(workspace: Path, server: FakeModelServer, *argv: str) -> dict[str, object]:
    """Run the real Claude Code CLI in `workspace` with `TETHER_HOME` as its config
    directory (the same `projects/<slug>/` layout), against the fake server."""
    home = Path(os.environ["TETHER_HOME"])
    env = {
        **os.environ,
        "CLAUDE_CONFIG_DIR": str(home),
        "HOME": str(home),
        "ANTHROPIC_BASE_URL": server.url,
        "DISABLE_AUTOUPDATER": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    }
    ran = subprocess.run(
        [str(CLAUDE), *argv, "--output-format", "json"],
        cwd=workspace,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert ran.returncode == 0, (ran.stdout[-2000:], ran.stderr[-2000:])
    result: dict[str, object] = json.loads(ran.stdout)
    return result


def _tether_session(fake_model: FakeModelServer, tether: Run) -> str:
    fake_model.script(
        reply(text("Looking."), tool_use("Bash", command="echo hi")),
        reply(text("It said hi.")),
        reply(text("Still here.")),
    )
    first = tether("-p", "run echo hi", "--output-format", "json")
    assert first.exit_code == 0, first.stderr
    session_id: str = first.json()["session_id"]
    assert tether("-c", "-p", "anything else?").exit_code == 0
    return session_id


@pytest.fixture
def claude_home(monkeypatch: pytest.MonkeyPatch, model_env: FakeModelServer) -> Path:
    home = Path(os.environ["TETHER_HOME"])
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home))
    return home


def test_the_sdk_lists_and_reads_a_tether_session(
    fake_model: FakeModelServer, tether: Run, workspace: Path, claude_home: Path
) -> None:
    from claude_agent_sdk import get_session_messages, list_sessions

    session_id = _tether_session(fake_model, tether)
    [info] = list_sessions(directory=str(workspace))
    # As Claude Code's: the summary is what was asked last (its `last-prompt` entry).
    assert (info.session_id, info.first_prompt, info.summary) == (
        session_id,
        "run echo hi",
        "anything else?",
    )
    messages = get_session_messages(session_id, directory=str(workspace))
    # A reply is an entry per block, as Claude Code writes it: the first reply's text and
    # its call are two messages here, with one message id.
    assert [(m.type, m.message["role"]) for m in messages] == [  # type: ignore[index]
        ("user", "user"),
        ("assistant", "assistant"),
        ("assistant", "assistant"),
        ("user", "user"),
        ("assistant", "assistant"),
        ("user", "user"),
        ("assistant", "assistant"),
    ]
    assert messages[1].message["id"] == messages[2].message["id"]  # type: ignore[index]
    assert [b["type"] for m in messages[1:3] for b in m.message["content"]] == [  # type: ignore[index]
        "text",
        "tool_use",
    ]
    # The prompt kept as a string, as Claude Code keeps it.
    assert messages[0].message["content"] == "run echo hi"  # type: ignore[index]
    assert all(m.session_id == session_id for m in messages)


def test_the_sdk_summary_of_a_session_is_its_last_prompt_as_claude_code_keeps_it(
    fake_model: FakeModelServer, tether: Run, workspace: Path, claude_home: Path, tmp_path: Path
) -> None:
    # Claude Code appends a `last-prompt` line as each prompt's turn ends; the SDK's
    # `list_sessions` takes its summary from it. The same two prompts through both CLIs.
    from claude_agent_sdk import list_sessions

    later = "and now\n  " + "a rather long question " * 12
    fake_model.script(*(reply(text(said)) for said in ("one", "two", "three", "four")))
    assert tether("-p", "the first question").exit_code == 0
    assert tether("-c", "-p", later).exit_code == 0
    elsewhere = tmp_path / "claude-ws"
    elsewhere.mkdir()
    started = _claude(elsewhere, fake_model, "-p", "the first question")
    _claude(elsewhere, fake_model, "-p", later, "--resume", str(started["session_id"]))

    [ours] = list_sessions(directory=str(workspace))
    [theirs] = list_sessions(directory=str(elsewhere))
    assert (ours.summary, ours.first_prompt) == (theirs.summary, theirs.first_prompt)
    assert ours.summary.startswith("and now   a rather long question")
    assert ours.summary.endswith("…")


def test_claude_code_resumes_a_session_tether_wrote(
    fake_model: FakeModelServer, tether: Run, workspace: Path, claude_home: Path
) -> None:
    session_id = _tether_session(fake_model, tether)
    fake_model.script(reply(text("Claude Code carried on.")))
    result = _claude(workspace, fake_model, "-p", "what did you run?", "--resume", session_id)
    assert result["result"] == "Claude Code carried on."
    sent = fake_model.requests[-1]
    conversation = [m for m in sent.messages() if m["role"] != "system"]
    assert conversation[0]["content"] == "run echo hi"  # type: ignore[index]
    assert [m["role"] for m in conversation][:4] == ["user", "assistant", "user", "assistant"]
    results = [
        block["content"]
        for message in conversation
        for block in message["content"]  # type: ignore[union-attr]
        if isinstance(block, dict) and block.get("type") == "tool_result"
    ]
    assert results == ["hi"]  # the command's result, as tether recorded it


def test_tether_resumes_a_session_claude_code_wrote(
    fake_model: FakeModelServer, tether: Run, workspace: Path, claude_home: Path
) -> None:
    fake_model.script(
        reply(text("Running it."), tool_use("Bash", command="echo from claude")),
        reply(text("Claude Code ran it.")),
    )
    started = _claude(workspace, fake_model, "-p", "run a command", "--allowedTools", "Bash")
    session_id = str(started["session_id"])
    [info] = tether_sessions(claude_home, workspace)
    assert info.session_id == session_id

    fake_model.script(reply(text("tether carried on.")))
    result = tether("-r", session_id, "-p", "and now tether?")
    assert (result.exit_code, result.stdout) == (0, "tether carried on.\n"), result.stderr
    assert "session file" not in result.stderr  # nothing of it was damage
    sent = fake_model.requests[-1]
    assert [m["role"] for m in sent.messages()] == [
        "user",
        "assistant",
        "user",
        "assistant",
        "user",
    ]
    assert "run a command" in json.dumps(sent.messages()[0])
    assert "from claude" in json.dumps(sent.messages()[2])  # the tool result Claude Code kept
    assert sent.last_user_text() == "and now tether?"


def test_a_response_claude_code_wrote_block_by_block_is_one_message(
    fake_model: FakeModelServer, tether: Run, workspace: Path, claude_home: Path
) -> None:
    # Claude Code writes one entry per content block of a response (same message id), keeps
    # meta messages and attachments on the chain, and bookkeeping lines off it.
    from tether.store import project_dir

    sid = "5f0d3c2e-0000-4000-8000-000000000001"
    base = {"sessionId": sid, "cwd": str(workspace), "isSidechain": False, "userType": "external"}

    def entry(uuid: str, parent: str | None, kind: str, **fields: object) -> dict[str, object]:
        stamp = f"2026-01-01T00:00:{len(uuid):02d}.000Z"
        return {
            **base,
            "type": kind,
            "uuid": uuid,
            "parentUuid": parent,
            "timestamp": stamp,
            **fields,
        }

    def assistant(block: dict[str, object]) -> dict[str, object]:
        return {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "m",
            "content": [block],
            "stop_reason": "tool_use",
            "usage": {"input_tokens": 5, "output_tokens": 2},
        }

    lines = [
        {"type": "queue-operation", "operation": "enqueue", "sessionId": sid, "content": "go"},
        entry("u1", None, "user", message={"role": "user", "content": "list the files"}),
        entry("m1", "u1", "user", isMeta=True, message={"role": "user", "content": "Caveat: ..."}),
        entry("t1", "m1", "attachment", attachment={"type": "date", "date": "2026-01-01"}),
        entry("a1", "t1", "assistant", message=assistant({"type": "text", "text": "Listing."})),
        entry(
            "a2",
            "a1",
            "assistant",
            message=assistant(
                {
                    "type": "tool_use",
                    "id": "toolu_9",
                    "name": "Bash",
                    "input": {"command": "ls"},
                    "caller": {"type": "direct"},
                }
            ),
        ),
        entry(
            "r1",
            "a2",
            "user",
            toolUseResult={"stdout": "a.py"},
            message={
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "toolu_9",
                        "content": [{"type": "text", "text": "a.py"}],
                    }
                ],
            },
        ),
        {"type": "last-prompt", "lastPrompt": "list the files", "sessionId": sid},
    ]
    directory = project_dir(claude_home, workspace)
    directory.mkdir(parents=True)
    (directory / f"{sid}.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))

    fake_model.script(reply(text("resumed by tether")))
    result = tether("-r", sid, "-p", "which files?")
    assert (result.exit_code, result.stdout) == (0, "resumed by tether\n"), result.stderr
    assert result.stderr == ""
    sent = fake_model.requests[-1].messages()
    assert [m["role"] for m in sent] == ["user", "assistant", "user"]
    assert [b["type"] for b in sent[1]["content"]] == ["text", "tool_use"]  # type: ignore[index]
    assert sent[2]["content"][0]["content"] == "a.py"  # type: ignore[index]
    assert "Caveat" not in json.dumps(sent)


async def test_a_tether_session_resumes_through_an_sdk_session_store(
    fake_model: FakeModelServer, tether: Run, workspace: Path, claude_home: Path, tmp_path: Path
) -> None:
    # The SDK loads the session from a store (not a local file), lays it out as Claude Code's
    # config directory and resumes it with its CLI.
    from claude_agent_sdk import ClaudeAgentOptions, InMemorySessionStore, ResultMessage, query
    from claude_agent_sdk._internal.sessions import project_key_for_directory

    session_id = _tether_session(fake_model, tether)
    [info] = tether_sessions(claude_home, workspace)
    store = InMemorySessionStore()
    key = {"project_key": project_key_for_directory(str(workspace)), "session_id": session_id}
    await store.append(key, [json.loads(line) for line in info.path.read_text().splitlines()])  # type: ignore[arg-type]
    info.path.unlink()  # only the store has it now

    fake_model.script(reply(text("Resumed from the store.")))
    environment = {
        "ANTHROPIC_BASE_URL": fake_model.url,
        "ANTHROPIC_API_KEY": os.environ["ANTHROPIC_API_KEY"],
        "HOME": str(tmp_path),
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    }
    options = ClaudeAgentOptions(
        resume=session_id, session_store=store, cwd=str(workspace), env=environment
    )
    results = [m async for m in query(prompt="what did you run?", options=options)]
    [result] = [m for m in results if isinstance(m, ResultMessage)]
    assert (result.result, result.is_error) == ("Resumed from the store.", False)
    conversation = [m for m in fake_model.requests[-1].messages() if m["role"] != "system"]
    assert conversation[0]["content"] == "run echo hi"  # type: ignore[index]
