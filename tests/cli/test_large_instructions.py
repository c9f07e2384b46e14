"""Instruction-like files of any size leave room for the work: the memory file, a
subdirectory's CLAUDE.md, an agent's or a skill's body are cut at the instructions' limit,
with a note naming the file and how much was left out, said once per start."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tether.testing import FakeModelServer, reply, text, tool_use
from tether.testing.cli_runner import CliResult
from tether.text_files import INSTRUCTIONS_MAX_CHARS, cut_instructions

Run = Callable[..., CliResult]


@pytest.fixture(autouse=True)
def _no_semantic_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    """The memory file as it goes into the prompt without semantic memory (with it, a large
    one is an index: tests/memory/test_memory_sessions.py)."""
    monkeypatch.setenv("TETHER_NO_MEMORY", "1")


def _big_memory(workspace: Path) -> int:
    """A user's memory file of 12,000 lines (about 600 KB); its size."""
    path = workspace / ".tether" / "memory.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    line = "- a note the user keeps about this project, line {:05d}, and more words\n"
    path.write_text("# My notes\n" + "".join(line.format(n) for n in range(12_000)))
    return path.stat().st_size


@pytest.mark.parametrize("resume", [False, True])
def test_a_large_memory_file_is_cut_and_named_once(
    fake_model: FakeModelServer, tether: Run, workspace: Path, resume: bool
) -> None:
    if resume:
        fake_model.script(reply(text("first")))
        assert tether("-p", "start").exit_code == 0
    size = _big_memory(workspace)
    fake_model.script(reply(text("hello")))
    result = tether("-p", "hi", *(["-c"] if resume else []))
    assert (result.exit_code, result.stdout) == (0, "hello\n"), result.stderr
    system = fake_model.requests[-1].system()
    assert "line 00000" in system
    assert "line 11999" not in system
    assert len(system) < 2 * INSTRUCTIONS_MAX_CHARS
    notes = [line for line in result.stderr.splitlines() if "memory.md cut at" in line]
    assert len(notes) == 1, result.stderr
    kept = len(system.split("# My notes", 1)[1].split("[.tether/memory.md cut at")[0])
    assert notes[0] == (
        f"tether: memory: .tether/memory.md cut at {INSTRUCTIONS_MAX_CHARS:,} characters: the "
        f"rest ({(size - kept - len('# My notes')) // 1024} KiB of its {size // 1024} KiB) left out"
    )
    assert "cut at" in system  # the model is told too


def test_a_memory_file_over_four_mib_is_cut_and_not_rewritten(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    path = workspace / ".tether" / "memory.md"
    path.parent.mkdir(parents=True)
    path.write_text("notes " * 1_000_000)  # 6 MB
    fake_model.script(reply(text("hello")))
    result = tether("-p", "hi")
    assert (result.exit_code, result.stdout) == (0, "hello\n"), result.stderr
    assert "notes notes" in fake_model.requests[0].system()
    assert "memory.md is larger than 4 MiB: compaction summaries are not added" in result.stderr


def test_a_large_nested_instruction_file_is_cut_with_a_note(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    sub = workspace / "sub"
    sub.mkdir()
    (sub / "CLAUDE.md").write_text("rule\n" * 200_000)  # 1 MB
    (sub / "a.txt").write_text("a\n")
    fake_model.script(
        reply(tool_use("Read", file_path=str(sub / "a.txt"))),
        reply(text("done")),
    )
    result = tether("-p", "read it", "--trust-workspace")
    assert result.exit_code == 0, result.stderr
    sent = json.dumps(fake_model.requests[-1].messages())
    assert "sub/CLAUDE.md cut at 40,000 characters" in sent
    assert len(sent) < 3 * INSTRUCTIONS_MAX_CHARS


def test_the_cut_says_what_was_left_out() -> None:
    assert cut_instructions("short", "a.md") == ("short", None)
    text, note = cut_instructions("x" * 50_000, "a.md")
    assert note == "a.md cut at 40,000 characters: the rest (9 KiB of its 48 KiB) left out"
    assert text == "x" * 40_000 + f"\n[{note}.]"


@pytest.mark.parametrize("resume", [False, True])
def test_a_window_too_small_for_the_prompt_names_it_once(
    fake_model: FakeModelServer, tether: Run, resume: bool
) -> None:
    if resume:  # a conversation to resume, which a compaction would try to summarise
        fake_model.script(reply(text("first " * 3000)))
        assert tether("-p", "start " * 3000).exit_code == 0
    sent = len(fake_model.requests)
    small = '{"contextWindow": 4000}'
    fake_model.script(reply(text("hello")))
    result = tether("-p", "hi", "--settings", small, *(["-c"] if resume else []))
    assert result.exit_code == 1
    assert len(fake_model.requests) == sent  # nothing known not to fit is sent
    assert result.stderr.count("leave too little room") == 1, result.stderr
    assert "the system prompt (about " in result.stderr
    assert "tools' definitions (about " in result.stderr
    assert "4,000-token context window" in result.stderr
    assert "newest exchange" not in result.stderr


@pytest.mark.parametrize("model", ["claude-sonnet-4-5", "openai/gpt-4.1"])
def test_instruction_files_past_the_window_are_named_with_their_sizes(
    fake_model: FakeModelServer, tether: Run, workspace: Path, model: str
) -> None:
    # Each file alone is cut to the instructions' limit; together they pass a 16k window.
    (workspace / "CLAUDE.md").write_text("".join(f"- project rule {i}\n" for i in range(3000)))
    _big_memory(workspace)
    fake_model.script(reply(tool_use("Bash", command="echo hi")), reply(text("done")))
    small = json.dumps({"contextWindow": 16_000})
    result = tether("-p", "hi", "--settings", small, "--model", model)
    assert result.exit_code == 1
    assert fake_model.requests == []  # known not to fit: never sent
    said = result.stderr
    assert said.count("leave too little room") == 1, said
    assert f"CLAUDE.md {INSTRUCTIONS_MAX_CHARS:,} characters (about " in said, said
    assert ".tether/memory.md 40," in said, said
    assert "the skills listing" not in said  # too small to be worth naming
