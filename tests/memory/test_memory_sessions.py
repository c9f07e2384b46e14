"""Memory over the wire: sessions of `tether -p` against the fake model save memories with
the MemorySave tool; later sessions find them with MemorySearch by meaning (a paraphrase with
no word in common) and by words, are offered the relevant ones with their first prompt (seen
in the request the fake server receives), and go on when the memory file is damaged."""

from __future__ import annotations

import json
import os
import shlex
from collections.abc import Callable
from pathlib import Path

import pytest

from tether.cli.memory_setup import memory_path
from tether.testing import FakeModelServer, RecordedRequest, text, tool_use
from tether.testing.cli_runner import CliResult, run_cli_process

from .conftest import memory_cli, undated

Run = Callable[..., CliResult]

DEPLOY = "Deploy to production with make release after the checklist."
TABS = "The user prefers tabs over spaces for indentation."
PARAPHRASE = "shipping a new version to live servers"
"""DEPLOY's meaning, with no word of it (but 'to')."""


def _user_texts(request: RecordedRequest) -> list[str]:
    found: list[str] = []
    for message in request.messages():
        if message.get("role") != "user" or isinstance(message["content"], str):
            continue
        found += [b["text"] for b in message["content"] if b.get("type") == "text"]
    return found


def _save_two(fake_model: FakeModelServer, tether: Run) -> None:
    fake_model.requests.clear()
    fake_model.script(
        tool_use("MemorySave", text=DEPLOY, tags=["deploy"]),
        tool_use("MemorySave", text=TABS),
        text("saved"),
    )
    result = tether("-p", "remember how we deploy, and that I like tabs")
    assert result.exit_code == 0, result.stderr
    assert fake_model.requests[1].tool_results() == ["Saved as memory 1."]
    assert fake_model.requests[2].tool_results() == ["Saved as memory 2."]


def test_a_later_session_finds_a_memory_by_meaning_and_by_words_and_is_offered_it(
    fake_model: FakeModelServer, tether: Run
) -> None:
    _save_two(fake_model, tether)
    fake_model.requests.clear()
    fake_model.script(
        tool_use("MemorySearch", query=PARAPHRASE, limit=1),
        tool_use("MemorySearch", query="indentation"),
        tool_use("MemorySearch", query="quantum chromodynamics"),
        text("done"),
    )
    result = tether("-p", f"{PARAPHRASE}: what do I type?")
    assert result.exit_code == 0, result.stderr
    first = fake_model.requests[0]
    offered = (
        "<system-reminder>\nMemories saved in earlier sessions of this project that may bear "
        "on this request (MemorySearch finds more; they may be out of date: of two that "
        "disagree, the one saved later is likely the current one):\n"
        f"- Memory 1: {DEPLOY}\n</system-reminder>"
    )
    # Offered ahead of the prompt, as a hook's added context is (as Claude Code sends it).
    assert undated(_user_texts(first)) == [offered, f"{PARAPHRASE}: what do I type?"]
    assert [undated(r.tool_results()) for r in fake_model.requests[1:]] == [
        [f"Memory 1 [deploy]: {DEPLOY}"],
        [f"Memory 2: {TABS}"],
        ["No memory matches."],
    ]


def test_nothing_is_offered_when_no_memory_bears_on_the_prompt_or_there_is_none(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    fake_model.script(text("hi"))
    assert tether("-p", "ship it").exit_code == 0
    assert _user_texts(fake_model.requests[0]) == ["ship it"]
    assert not memory_path(Path(os.environ["TETHER_HOME"]), workspace).exists()
    _save_two(fake_model, tether)
    fake_model.requests.clear()
    fake_model.script(text("hi"))
    assert tether("-p", "what is the capital of Peru?").exit_code == 0
    assert _user_texts(fake_model.requests[0]) == ["what is the capital of Peru?"]


def test_memory_cli_lists_searches_and_removes(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    _save_two(fake_model, tether)
    listed = memory_cli("--cwd", str(workspace), "list")
    assert listed.exit_code == 0
    assert [line.strip().split("  ", 2)[2] for line in listed.stdout.splitlines()] == [TABS, DEPLOY]
    found = memory_cli("--cwd", str(workspace), "search", PARAPHRASE)
    assert found.stdout.splitlines()[0].endswith(f"(meaning)  {DEPLOY}")
    removed = memory_cli("--cwd", str(workspace), "rm", "1", "7")
    assert (removed.exit_code, removed.stdout, removed.stderr) == (
        1,
        "removed memory 1\n",
        "tether memory: no memory with id 7\n",
    )
    again = memory_cli("--cwd", str(workspace), "search", PARAPHRASE)
    assert again.stdout == "no match\n"


def test_the_same_fact_saved_again_is_not_kept_twice_and_its_tags_merge(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    _save_two(fake_model, tether)
    fake_model.requests.clear()
    fake_model.script(
        tool_use("MemorySave", text=f"  {DEPLOY}\n", tags=["bluegreen", "deploy"]),
        text("saved"),
    )
    assert tether("-p", "remember how we deploy").exit_code == 0
    assert fake_model.requests[1].tool_results() == [
        "Already saved as memory 1 (the same text); not saved again."
    ]
    listed = memory_cli("--cwd", str(workspace), "list")
    assert [line.strip().split("  ", 2)[2] for line in listed.stdout.splitlines()] == [TABS, DEPLOY]
    found = memory_cli("--cwd", str(workspace), "search", "bluegreen")  # the new tag, by words
    assert found.stdout.splitlines()[0].endswith(DEPLOY), found.stdout


def test_a_damaged_memory_file_is_said_clearly_and_the_session_goes_on(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    path = memory_path(Path(os.environ["TETHER_HOME"]), workspace)
    path.parent.mkdir(parents=True)
    path.write_bytes(b"this is not a database" * 100)
    fake_model.script(tool_use("MemorySearch", query="deploy"), text("went on"))
    result = tether("-p", "how do we deploy?")
    assert result.exit_code == 0, result.stderr
    why = (
        f"{path} is damaged or not a memory file (file is not a database); move it away to "
        "start an empty one (its memories are not read)"
    )
    assert f"tether: Memory cannot be used: {why}\n" in result.stderr
    assert fake_model.requests[1].tool_results() == [f"Error: Memory cannot be used: {why}"]
    assert fake_model.requests[1].tool_result_errors() == [True]
    assert "went on" in result.stdout
    assert path.read_bytes() == b"this is not a database" * 100
    listed = memory_cli("--cwd", str(workspace), "list")
    assert (listed.exit_code, listed.stderr) == (1, f"tether memory: {why}\n")


@pytest.mark.parametrize("mode", ["default", "plan"])
def test_memory_tools_run_without_asking_like_other_read_only_tools(
    fake_model: FakeModelServer, tether: Run, mode: str
) -> None:
    fake_model.script(tool_use("MemorySave", text=DEPLOY), text("ok"))
    result = tether("-p", "remember", "--permission-mode", mode)
    assert result.exit_code == 0, result.stderr
    assert fake_model.requests[1].tool_results() == ["Saved as memory 1."]


def test_without_the_memory_extra_memory_searches_by_words_and_says_so_once(
    model_env: FakeModelServer, workspace: Path, tmp_path: Path
) -> None:
    fake_model = model_env
    hidden = tmp_path / "hidden"
    (hidden / "sqlite_vec").mkdir(parents=True)
    (hidden / "sqlite_vec" / "__init__.py").write_text("raise ImportError('hidden by the test')\n")
    env = {**os.environ, "PYTHONPATH": str(hidden)}
    argv = ["--cwd", str(workspace), "--permission-mode", "bypassPermissions", "-p"]
    fake_model.script(
        tool_use("MemorySave", text=DEPLOY),
        tool_use("MemorySearch", query="deploy"),
        tool_use("MemorySearch", query=PARAPHRASE),
        text("done"),
    )
    result = run_cli_process([*argv, "remember"], env=env)
    assert result.exit_code == 0, result.stderr
    assert [undated(r.tool_results()) for r in fake_model.requests[1:]] == [
        ["Saved as memory 1."],
        [f"Memory 1: {DEPLOY}"],
        ["No memory matches."],
    ]
    told = (
        "tether: memory: searching by words only (the memory extra is not installed: "
        "pip install 'tether[memory]' adds search by meaning)\n"
    )
    assert result.stderr.count(told) == 1


def test_a_subagent_searches_the_projects_memory(fake_model: FakeModelServer, tether: Run) -> None:
    from tests.agents.conftest import MAIN, Router, requests_of

    _save_two(fake_model, tether)
    fake_model.requests.clear()
    router = Router()
    task = tool_use(
        "Task", description="look it up", prompt="recall-deploy", subagent_type="general-purpose"
    )
    router.add(MAIN, task, text("done"))
    router.add("recall-deploy", tool_use("MemorySearch", query=PARAPHRASE, limit=1), text("ok"))
    router.install(fake_model)
    result = tether("-p", "ask a helper")
    assert result.exit_code == 0, result.stderr
    child = requests_of(fake_model, "recall-deploy", [MAIN, "recall-deploy"])
    assert undated(child[1].tool_results()) == [f"Memory 1 [deploy]: {DEPLOY}"]


def test_a_continued_conversation_is_not_offered_memories_again(
    fake_model: FakeModelServer, tether: Run
) -> None:
    _save_two(fake_model, tether)
    fake_model.requests.clear()
    fake_model.script(text("hi"))
    assert tether("-p", PARAPHRASE).exit_code == 0
    assert any("Memories saved" in t for t in _user_texts(fake_model.requests[0]))
    fake_model.requests.clear()
    fake_model.script(text("again"))
    assert tether("-c", "-p", f"{PARAPHRASE}, again").exit_code == 0
    offered = [t for t in _user_texts(fake_model.requests[0]) if "Memories saved" in t]
    assert len(offered) == 1  # the first prompt's, kept in the conversation


def _big_memory_file(workspace: Path) -> str:
    """A memory file of 40 summaries (about 80,000 characters); the oldest holds a fact."""
    entries = [
        f"<!-- tether memory entry -->\n## Session summary, day {day}\n\n"
        + f"Worked on module m{day}.\n\n"
        + "Routine notes about the refactoring. " * 50
        + ("\n\nThe flaky payment test needs STRIPE_FAKE_CLOCK set to 1." if day == 0 else "")
        + "\n"
        for day in range(40)
    ]
    text = "# Project notes\n\nKeep the changelog short.\n\n" + "\n".join(entries)
    (workspace / ".tether").mkdir(exist_ok=True)
    (workspace / ".tether" / "memory.md").write_text(text)
    return text


def test_with_semantic_memory_a_large_memory_file_is_an_index_and_searched_for_the_rest(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    text_of_file = _big_memory_file(workspace)
    fake_model.script(tool_use("MemorySearch", query="STRIPE_FAKE_CLOCK payment"), text("ok"))
    result = tether("-p", "why does the payment test fail?")
    assert result.exit_code == 0, result.stderr
    system = fake_model.requests[0].system()
    memory_part = system.split("Memory from earlier sessions", 1)[1]
    assert len(memory_part) < 4_500  # an index, not the file's first 40,000 characters
    assert "Keep the changelog short." in memory_part  # the user's own text first
    assert "Session summary, day 39: Worked on module m39." in memory_part  # newest first
    assert "STRIPE_FAKE_CLOCK" not in system
    assert f"memory.md is {len(text_of_file):,} characters" in memory_part
    assert "MemorySearch finds the rest" in result.stderr
    found = fake_model.requests[1].tool_results()[0]
    assert "STRIPE_FAKE_CLOCK set to 1" in found
    # A second session keeps each piece once.
    fake_model.script(text("ok"))
    assert tether("-p", "hi").exit_code == 0
    listed = memory_cli("--cwd", str(workspace), "list").stdout
    assert listed.count("STRIPE_FAKE_CLOCK") == 1


def test_without_semantic_memory_the_file_is_cut_with_a_note(
    fake_model: FakeModelServer, tether: Run, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TETHER_NO_MEMORY", "1")
    _big_memory_file(workspace)
    fake_model.script(text("ok"))
    result = tether("-p", "hi")
    assert result.exit_code == 0, result.stderr
    system = fake_model.requests[0].system()
    assert "STRIPE_FAKE_CLOCK" in system  # the oldest entry comes first: within 40,000
    assert "Worked on module m39." not in system
    assert "[.tether/memory.md cut at 40,000 characters" in system
    assert "memory.md cut at 40,000 characters" in result.stderr


def test_a_save_into_a_damaged_memory_keeps_the_text_and_adds_it_once_the_memory_works(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    path = memory_path(Path(os.environ["TETHER_HOME"]), workspace)
    path.parent.mkdir(parents=True)
    path.write_bytes(b"this is not a database" * 100)
    kept = path.with_name("memory.db.pending.jsonl")
    fake_model.script(tool_use("MemorySave", text=DEPLOY, tags=["deploy"]), text("noted"))
    result = tether("-p", "remember how we deploy")
    assert result.exit_code == 0, result.stderr
    [told] = fake_model.requests[1].tool_results()
    assert fake_model.requests[1].tool_result_errors() == [False]
    assert told == (
        f"The memory could not be saved in the project's memory ({path} is damaged or not a "
        "memory file (file is not a database); move it away to start an empty one (its "
        f"memories are not read)). Its text is kept whole in {kept}, and is added to the "
        "memory when it can be used again; until then MemorySearch finds it by its words only. "
        "Do not save it again."
    )
    assert f"tether: memory: the memory is kept in {kept}" in result.stderr
    assert DEPLOY in kept.read_text()
    assert path.read_bytes() == b"this is not a database" * 100  # the damaged file untouched

    path.rename(path.with_name("memory.db.damaged"))  # as the message says
    fake_model.requests.clear()
    fake_model.script(tool_use("MemorySearch", query="deploy production"), text("found"))
    again = tether("-p", "how do we deploy?")
    assert again.exit_code == 0, again.stderr
    [found] = fake_model.requests[1].tool_results()
    assert undated(found) == f"Memory 1 [deploy]: {DEPLOY}"
    assert kept.read_text() == ""
    listed = memory_cli("--cwd", str(workspace), "list")
    assert listed.stdout.count(DEPLOY) == 1


def test_a_memory_that_can_be_kept_nowhere_is_an_error_that_says_so(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    path = memory_path(Path(os.environ["TETHER_HOME"]), workspace)
    path.parent.mkdir(parents=True)
    path.write_bytes(b"this is not a database" * 100)
    path.with_name("memory.db.pending.jsonl").mkdir()  # cannot be written either
    fake_model.script(tool_use("MemorySave", text=TABS), text("noted"))
    result = tether("-p", "remember tabs")
    assert result.exit_code == 0, result.stderr
    [told] = fake_model.requests[1].tool_results()
    assert fake_model.requests[1].tool_result_errors() == [True]
    assert told.startswith(f"Error: Memory cannot be used: {path} is damaged")
    assert told.endswith("It is not saved: its text is only in this conversation."), told
    assert "could not be kept aside either ([Errno 21] Is a directory" in told


def test_memorysearch_finds_memories_kept_aside_while_the_memory_cannot_be_used(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    path = memory_path(Path(os.environ["TETHER_HOME"]), workspace)
    path.parent.mkdir(parents=True)
    path.write_bytes(b"this is not a database" * 100)
    fake_model.script(
        tool_use("MemorySave", text=DEPLOY, tags=["deploy"]),
        tool_use("MemorySave", text=TABS),
        tool_use("MemorySearch", query="how to deploy to production"),
        text("noted"),
    )
    result = tether("-p", "remember how we deploy and find it")
    assert result.exit_code == 0, result.stderr
    [found] = fake_model.requests[3].tool_results()
    assert fake_model.requests[3].tool_result_errors() == [True]
    assert found == (
        f"Error: Memory cannot be used: {path} is damaged or not a memory file (file is not a "
        "database); move it away to start an empty one (its memories are not read). Of the "
        "memories kept aside until it can be, these match:\n\n"
        f"Memory kept aside, not yet in the memory [deploy]: {DEPLOY}"
    )


def test_a_memory_kept_aside_after_the_memory_opened_is_added_before_a_search(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    _save_two(fake_model, tether)
    kept = memory_path(Path(os.environ["TETHER_HOME"]), workspace).with_name(
        "memory.db.pending.jsonl"
    )
    fact = "The staging database is rebuilt every Sunday night."
    line = json.dumps({"text": fact, "tags": ["staging"], "why": "disk full"})
    fake_model.requests.clear()
    fake_model.script(
        tool_use("MemorySearch", query="deploy"),
        # Another process keeps a memory aside while this session has the memory open.
        tool_use("Bash", command=f"printf '%s\\n' {shlex.quote(line)} >> {shlex.quote(str(kept))}"),
        tool_use("MemorySearch", query="when is staging rebuilt"),
        text("found"),
    )
    result = tether(
        "-p",
        "what do we know?",
        "--permission-mode",
        "bypassPermissions",
        "--settings",
        '{"sandbox": {"enabled": false}}',  # the sandbox keeps Bash out of tether's home
    )
    assert result.exit_code == 0, result.stderr
    assert fake_model.requests[2].tool_result_errors() == [False], fake_model.requests[
        2
    ].tool_results()
    [found] = fake_model.requests[3].tool_results()
    assert undated(found).startswith(f"Memory 3 [staging]: {fact}"), found
    assert kept.read_text() == ""


def test_with_memory_off_its_tools_are_not_offered_to_the_model_nor_to_a_subagent(
    fake_model: FakeModelServer, tether: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TETHER_NO_MEMORY", "1")
    fake_model.script(
        tool_use("Task", description="look", prompt="look around", subagent_type="general-purpose"),
        text("looked"),
        text("done"),
    )
    result = tether("-p", "hello", "--output-format", "stream-json")
    assert result.exit_code == 0, result.stderr
    offered = [r.tool_names() for r in fake_model.requests]
    assert len(offered) == 3
    for names in offered:  # the main agent's requests and the subagent's
        assert "Read" in names
        assert not {"MemorySave", "MemorySearch"} & set(names)
    init = result.json_lines()[0]
    assert not {"MemorySave", "MemorySearch"} & set(init["tools"])
