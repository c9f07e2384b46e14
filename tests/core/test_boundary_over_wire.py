"""What a model, a user or a session file puts in the history cannot make later requests fail:
lone surrogates become U+FFFD, repeated or malformed tool-call ids get fresh ones (each result
still answers its own call). The fake server refuses both as the real APIs do."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.chains import newest_message
from tether.store import list_sessions, load_session
from tether.testing import FakeModelServer, raw_tool_use, reply, text, tool_use
from tether.testing.cli_runner import CliResult

Run = Callable[..., CliResult]

WIRES = ["claude-sonnet-4-5", "openai/gpt-4.1"]


def _call_ids(request_messages: list[dict[str, object]]) -> list[str]:
    ids: list[str] = []
    for message in request_messages:
        content = message.get("content")
        if isinstance(content, list):
            ids += [b["id"] for b in content if isinstance(b, dict) and b.get("type") == "tool_use"]  # type: ignore[misc]
        for call in message.get("tool_calls") or []:  # type: ignore[union-attr]
            ids.append(call["id"])  # type: ignore[index]
    return ids


@pytest.mark.parametrize("model", WIRES)
def test_one_id_twice_in_a_response_runs_both_calls_each_with_its_result(
    fake_model: FakeModelServer, tether: Run, model: str
) -> None:
    fake_model.script(
        reply(
            tool_use("Bash", command="echo first", id="dup"),
            tool_use("Bash", command="echo second", id="dup"),
        ),
        reply(text("both ran")),
    )
    result = tether("-p", "run two", "--model", model)
    assert (result.exit_code, result.stdout) == (0, "both ran\n"), result.stderr
    after = fake_model.requests[1]
    assert after.tool_results() == ["first", "second"]
    ids = _call_ids(after.messages())
    assert len(ids) == 2
    assert len(set(ids)) == 2
    assert ids[0] == "dup"  # the first keeps the model's id; the repeat gets a fresh one


@pytest.mark.parametrize("model", WIRES)
def test_an_id_the_model_reuses_in_a_later_turn_gets_a_fresh_one(
    fake_model: FakeModelServer, tether: Run, model: str
) -> None:
    fake_model.script(
        reply(tool_use("Bash", command="echo one", id="call_0")),
        reply(tool_use("Bash", command="echo two", id="call_0")),
        reply(text("done")),
    )
    result = tether("-p", "twice", "--model", model)
    assert (result.exit_code, result.stdout) == (0, "done\n"), result.stderr
    last = fake_model.requests[2]
    ids = _call_ids(last.messages())
    assert ids[0] == "call_0"
    assert len(set(ids)) == 2
    assert last.tool_results() == ["two"]


def test_a_malformed_id_from_one_wire_does_not_break_a_resume_on_the_other(
    fake_model: FakeModelServer, tether: Run
) -> None:
    # Some OpenAI-compatible servers send ids like "functions.Bash:0"; Anthropic refuses them.
    fake_model.script(
        reply(tool_use("Bash", command="echo local", id="functions.Bash:0")),
        reply(text("ran")),
        reply(text("resumed on claude")),
    )
    assert tether("-p", "go", "--model", "openai/gpt-4.1").exit_code == 0
    again = tether("-c", "-p", "and now?", "--model", "claude-sonnet-4-5")
    assert (again.exit_code, again.stdout) == (0, "resumed on claude\n"), again.stderr
    [call_id] = _call_ids(fake_model.requests[2].messages())
    assert call_id.startswith("toolu_")


@pytest.mark.parametrize("model", WIRES)
def test_a_lone_surrogate_in_tool_arguments_is_refused_and_sent_as_a_replacement_character(
    fake_model: FakeModelServer, tether: Run, workspace: Path, model: str
) -> None:
    fake_model.script(
        reply(text("writing \\ud800"), raw_tool_use("Bash", '{"command": "echo x\\ud800y"}')),
        reply(text("ran it")),
        reply(text("still fine")),
    )
    result = tether("-p", "echo it", "--model", model)
    assert (result.exit_code, result.stdout) == (0, "ran it\n"), result.stderr
    # The call is not run on text the model did not write: it is told where the surrogate was.
    [refused] = fake_model.requests[1].tool_results()
    assert refused.startswith(
        "Error: Invalid input for Bash: command: holds a lone surrogate (U+D800 at character 7)"
    )
    sent = json.dumps(fake_model.requests[1].messages(), ensure_ascii=False)
    assert "x\ufffdy" in sent.replace("\\\\ufffd", "\ufffd")  # OpenAI: arguments are JSON text
    again = tether("-c", "-p", "next", "--model", model)  # and from the session file
    assert again.exit_code == 0, again.stderr
    resent = json.dumps(fake_model.requests[2].messages(), ensure_ascii=False)
    assert "x\ufffdy" in resent.replace("\\\\ufffd", "\ufffd")


def test_a_lone_surrogate_in_the_prompt_is_sent_as_a_replacement_character(
    fake_model: FakeModelServer, tether: Run
) -> None:
    # argv bytes that are not UTF-8 reach Python as surrogates (surrogateescape).
    fake_model.script(reply(text("got it")))
    result = tether("-p", "name: caf\udce9")
    assert (result.exit_code, result.stdout) == (0, "got it\n"), result.stderr
    assert fake_model.requests[0].last_user_text() == "name: caf\ufffd"


def test_a_session_file_with_escaped_surrogates_and_repeated_ids_resumes(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    # A file written before these rules: its content is made fit on the way in.
    fake_model.script(reply(text("first")), reply(text("resumed")))
    assert tether("-p", "start").exit_code == 0
    [session] = list_sessions(Path(os.environ["TETHER_HOME"]), workspace)
    header = newest_message(session.path)
    call = {"type": "tool_use", "name": "Bash", "input": {"command": "echo \ud800"}}
    contents: list[tuple[str, list[dict[str, object]]]] = [
        ("assistant", [{**call, "id": "same"}]),
        ("user", [{"type": "tool_result", "tool_use_id": "same", "content": "a"}]),
        ("assistant", [{**call, "id": "same"}, {"type": "text", "text": "x"}]),
        ("user", [{"type": "tool_result", "tool_use_id": "same", "content": "b"}]),
    ]
    parent = header["uuid"]
    with session.path.open("a") as file:
        for number, (role, content) in enumerate(contents):
            entry = {
                **{k: header[k] for k in ("sessionId", "timestamp", "cwd")},
                "type": role,
                "uuid": f"old-{number}",
                "parentUuid": parent,
                "message": {"role": role, "content": content},
            }
            file.write(json.dumps(entry) + "\n")  # ensure_ascii: "\ud800" escaped, as Python does
            parent = entry["uuid"]
    assert load_session(session.path).warnings == ()

    result = tether("-c", "-p", "go on")
    assert (result.exit_code, result.stdout) == (0, "resumed\n"), result.stderr
    sent = fake_model.requests[1].messages()
    assert len(set(_call_ids(sent))) == 2
    assert "\ufffd" in json.dumps(sent, ensure_ascii=False)


def test_a_renamed_call_keeps_its_name_from_one_resume_to_the_next(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    # A file written before ids were made unique, ending in a call the process never
    # answered: the first resume answers it under its new id; the next one must find it.
    fake_model.script(reply(text("first")), *[reply(text("resumed"))] * 2)
    assert tether("-p", "start").exit_code == 0
    [session] = list_sessions(Path(os.environ["TETHER_HOME"]), workspace)
    header = newest_message(session.path)
    call = {"type": "tool_use", "id": "same", "name": "Bash", "input": {"command": "true"}}
    contents: list[tuple[str, list[dict[str, object]]]] = [
        ("user", [{"type": "text", "text": "again"}]),
        ("assistant", [call]),
        ("user", [{"type": "tool_result", "tool_use_id": "same", "content": "done"}]),
        ("assistant", [call]),  # the same id, and the process ended before its result
    ]
    parent = header["uuid"]
    with session.path.open("a") as file:
        for number, (role, content) in enumerate(contents):
            entry = {
                **{k: header[k] for k in ("sessionId", "timestamp", "cwd")},
                "type": role,
                "uuid": f"old-{number}",
                "parentUuid": parent,
                "message": {"role": role, "content": content},
            }
            file.write(json.dumps(entry) + "\n")
            parent = entry["uuid"]
    for prompt in ("go on", "and again"):
        result = tether("-c", "-p", prompt)
        assert (result.exit_code, result.stdout) == (0, "resumed\n"), result.stderr
        # Nothing lost; the one repair (the refused id given a fresh one) is said.
        notes = [line for line in result.stderr.splitlines() if "session file" in line]
        assert all("given a fresh one" in line for line in notes), result.stderr


def _call_names(request_messages: list[dict[str, object]]) -> list[str]:
    names: list[str] = []
    for message in request_messages:
        content = message.get("content")
        if isinstance(content, list):
            names += [
                b["name"]  # type: ignore[index]
                for b in content  # type: ignore[union-attr]
                if isinstance(b, dict) and b.get("type") == "tool_use"
            ]
        for call in message.get("tool_calls") or []:  # type: ignore[union-attr]
            names.append(call["function"]["name"])  # type: ignore[index]
    return names


BAD_NAMES = [
    (model, name)
    for model in WIRES
    for name in ["functions.Bash", "bad name", "Bashé", "x" * 100, ""]
    # A streamed OpenAI call with an empty name is no call at all.
    if name or not model.startswith("openai/")
]


@pytest.mark.parametrize(("model", "name"), BAD_NAMES)
def test_a_tool_name_the_api_refuses_is_sent_back_as_one_it_accepts_and_never_runs(
    fake_model: FakeModelServer, tether: Run, workspace: Path, model: str, name: str
) -> None:
    """A call under a name the API would refuse in the history (the fake refuses it as the
    real APIs do) is answered "No such tool" under a well-formed name: the session goes on."""
    fake_model.script(
        reply(tool_use(name, command="touch ran")),
        reply(text("sorry")),
        reply(text("still here")),
    )
    first = tether("-p", "go", "--model", model)
    assert (first.exit_code, first.stdout) == (0, "sorry\n"), first.stderr
    again = tether("-c", "-p", "and now?", "--model", model)
    assert (again.exit_code, again.stdout) == (0, "still here\n"), again.stderr
    assert not (workspace / "ran").exists()
    [sent] = _call_names(fake_model.requests[2].messages())
    assert sent != name
    assert re.fullmatch(r"[A-Za-z0-9_-]{1,64}", sent)
    [answer] = fake_model.requests[1].tool_results()
    assert answer.startswith(f"Error: No such tool: {sent!r}")
