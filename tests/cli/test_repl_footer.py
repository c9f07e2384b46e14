"""What the REPL draws around the prompt and under a running turn, on a real terminal: the
footer (permission mode, model, the context now), Shift+Tab, a spinner that moves."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli.pty_terminal import PtyRepl, held
from tether.testing import FakeModelServer, reply, text, tool_use

TURN_END = " model call"
DOTS = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
"""rich's "dots" spinner, frame by frame."""


def usage(input_tokens: int, output_tokens: int) -> dict[str, int]:
    return {
        "input_tokens": input_tokens,
        "output_tokens": output_tokens,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
    }


def start(workspace: Path, home: Path, *args: str) -> PtyRepl:
    terminal = PtyRepl(workspace, {**os.environ, "HOME": str(home)}, *args)
    terminal.wait_for("> ")
    return terminal


@pytest.fixture
def repl(model_env: FakeModelServer, workspace: Path, home: Path) -> Iterator[PtyRepl]:
    terminal = start(workspace, home)
    yield terminal
    terminal.close()


@pytest.mark.timeout(90)
def test_the_spinner_moves_while_the_model_is_silent(
    model_env: FakeModelServer, repl: PtyRepl
) -> None:
    release = threading.Event()
    model_env.script(held(reply(text("Done.")), release))  # type: ignore[arg-type]
    repl.send("think hard\r")
    repl.wait_until(
        lambda screen: len({c for c in DOTS if f"{c} Thinking" in screen}) >= 3,
        "three frames of the spinner",
    )
    release.set()
    repl.wait_for(TURN_END)


@pytest.mark.timeout(90)
def test_the_footer_counts_the_context_now_not_the_sum_of_requests(
    model_env: FakeModelServer, repl: PtyRepl
) -> None:
    model_env.script(
        reply(text("One."), usage=usage(4000, 200)),
        reply(text("Two."), usage=usage(4300, 100)),
    )
    repl.wait_for("ask before edits")  # the footer, once the session is built
    repl.send("first\r")
    repl.wait_for(TURN_END)
    repl.wait_shown("claude-sonnet-5-5 · 4.2k tokens")
    repl.send("second\r")
    repl.wait_for(TURN_END, 2)
    # 4,300 in and 100 out: the window now, not the two requests added up (8.6k).
    repl.wait_shown("claude-sonnet-5-5 · 4.4k tokens")


SHIFT_TAB = "\x1b[Z"


@pytest.mark.timeout(90)
def test_shift_tab_cycles_the_modes_the_footer_names_and_the_calls_obey(
    model_env: FakeModelServer, repl: PtyRepl, workspace: Path
) -> None:
    model_env.script(
        reply(tool_use("Write", file_path="note.txt", content="hi\n")),
        reply(text("Written.")),
    )
    repl.wait_for("ask before edits (shift+tab to cycle)")
    repl.send(SHIFT_TAB)
    repl.wait_shown("⏵⏵ accept edits (shift+tab to cycle)")
    repl.send("write the note\r")  # accepted without a question
    repl.wait_for(TURN_END)
    assert (workspace / "note.txt").read_text() == "hi\n"
    assert "Allow this call?" not in repl.screen
    repl.send(SHIFT_TAB)
    repl.wait_shown("⏸ plan mode (shift+tab to cycle)")
    repl.send(SHIFT_TAB)
    repl.wait_shown("ask before edits (shift+tab to cycle)")
    assert not any(
        "bypass permissions" in line for line in repl.lines
    )  # not started with it: never offered


@pytest.mark.timeout(90)
def test_bypass_joins_the_cycle_only_for_a_session_started_in_it(
    model_env: FakeModelServer, workspace: Path, home: Path
) -> None:
    repl = start(workspace, home, "--permission-mode", "bypassPermissions")
    try:
        repl.wait_for("bypass permissions (shift+tab to cycle)")
        for label in ("ask before edits", "⏵⏵ accept edits", "⏸ plan mode"):
            repl.send(SHIFT_TAB)
            repl.wait_shown(f"{label} (shift+tab to cycle)")
        repl.send(SHIFT_TAB)
        repl.wait_shown("bypass permissions (shift+tab to cycle)")
    finally:
        repl.close()


@pytest.mark.timeout(90)
def test_allow_dangerously_skip_permissions_puts_bypass_in_the_cycle(
    model_env: FakeModelServer, workspace: Path, home: Path
) -> None:
    """As Claude Code: the flag does not start in bypassPermissions, it lets Shift+Tab reach it."""
    repl = start(workspace, home, "--allow-dangerously-skip-permissions")
    try:
        repl.wait_for("ask before edits (shift+tab to cycle)")
        for label in ("⏵⏵ accept edits", "⏸ plan mode", "bypass permissions", "ask before edits"):
            repl.send(SHIFT_TAB)
            repl.wait_shown(f"{label} (shift+tab to cycle)")
    finally:
        repl.close()


@pytest.mark.timeout(90)
def test_shift_tab_at_an_edit_question_allows_it_and_accepts_edits_for_the_session(
    model_env: FakeModelServer, repl: PtyRepl, workspace: Path
) -> None:
    """Claude Code's "Yes, allow all edits during this session (shift+tab)": the edit asked
    about is made and the next one is not asked about."""
    model_env.script(
        reply(tool_use("Write", file_path="one.txt", content="1\n")),
        reply(tool_use("Write", file_path="two.txt", content="2\n")),
        reply(text("Both written.")),
    )
    repl.wait_for("ask before edits (shift+tab to cycle)")
    repl.send("write two files\r")
    repl.wait_for("Yes, allow all edits during this session  (shift+tab)")
    repl.wait_for("press 1")
    repl.send(SHIFT_TAB)
    repl.wait_for("Both written.")
    repl.wait_for(TURN_END)
    assert (workspace / "one.txt").read_text() == "1\n"
    assert (workspace / "two.txt").read_text() == "2\n"
    assert repl.screen.count("Allow this call?") == 1
    repl.wait_shown("⏵⏵ accept edits (shift+tab to cycle)")


@pytest.mark.timeout(90)
def test_esc_interrupts_the_running_turn_and_keeps_the_session(
    model_env: FakeModelServer, repl: PtyRepl
) -> None:
    release = threading.Event()
    model_env.script(
        held(reply(text("Too late.")), release),  # type: ignore[arg-type]
        reply(text("Still here.")),
    )
    repl.send("a long job\r")
    repl.wait_for("Thinking…")
    repl.wait_for("esc to interrupt")  # as Claude Code's hint says
    repl.send("\x1b")
    repl.wait_for("Interrupted")
    repl.wait_for(TURN_END)
    # The prompt is back once its footer is drawn after the interruption: keys sent before
    # that are still the turn's typing, queued for a step that no longer comes.
    repl.wait_until(
        lambda screen: "shift+tab to cycle" in screen.rpartition("Interrupted")[2],
        "the prompt after the interruption",
    )
    release.set()
    repl.send("are you there?\r")
    repl.wait_for("Still here.")
    assert "Too late." not in repl.screen
