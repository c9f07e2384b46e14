"""The event renderer: what each event looks like on a plain console, and colour on a terminal."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from rich.console import Console

from tether.cli.render import EventRenderer, format_tokens, turn_footer
from tether.protocol import (
    ErrorOccurred,
    Event,
    Message,
    MessageCompleted,
    ModelRetry,
    Notice,
    PermissionAnswer,
    PermissionAsked,
    SessionStarted,
    TextBlock,
    TextDelta,
    ThinkingDelta,
    ToolFinished,
    ToolStarted,
    TurnFinished,
    TurnStarted,
    Usage,
)

ANSI = re.compile(r"\x1b\[")

DIFF = """\
--- a/textstats.py
+++ b/textstats.py
@@ -19,4 +19,4 @@
 def longest_words(text, n):
     words = sorted(text.split(), key=len, reverse=True)
-    return words[: n - 1]
+    return words[:n]
"""


def plain_console() -> Console:
    return Console(file=io.StringIO(), width=100, force_terminal=False)


def render(*events: Event, verbose: bool = False, console: Console | None = None) -> str:
    console = console or plain_console()
    renderer = EventRenderer(console, verbose=verbose, workspace=Path("/repo"))
    for event in events:
        renderer.render(event)
    renderer.close()
    output = console.file
    assert isinstance(output, io.StringIO)
    return output.getvalue()


def assistant(text: str) -> MessageCompleted:
    return MessageCompleted(message=Message(role="assistant", content=(TextBlock(text=text),)))


def finished(**changes: object) -> TurnFinished:
    fields: dict[str, object] = {
        "subtype": "success",
        "is_error": False,
        "result": "done",
        "stop_reason": "end_turn",
        "num_turns": 3,
        "usage": Usage(input_tokens=1200, output_tokens=345, cache_read_input_tokens=10_000),
        "cost_usd": 0.0123,
        "duration_ms": 4200,
        "duration_api_ms": 3000,
    }
    fields.update(changes)
    return TurnFinished.model_validate(fields)


def test_streamed_text_appears_once_as_written() -> None:
    out = render(
        TurnStarted(prompt="hi"),
        TextDelta(text="Hello, "),
        TextDelta(text="**world**.\n\n- one\n- two"),
        assistant("Hello, **world**.\n\n- one\n- two"),
    )
    assert out == "Hello, **world**.\n\n- one\n- two\n\n"


def test_text_is_finished_by_a_tool_call_without_a_completed_message() -> None:
    out = render(
        TextDelta(text="Let me look."),
        ToolStarted(call_id="t1", name="Glob", input={"pattern": "**/*.py"}),
    )
    assert out == "Let me look.\n\n● Glob(**/*.py)\n"


def test_tool_call_line_and_result_preview() -> None:
    out = render(
        ToolStarted(call_id="t1", name="Bash", input={"command": "pytest -q", "timeout": 5000}),
        ToolFinished(
            call_id="t1",
            name="Bash",
            content="F.\nFAIL: test_x\nAssertionError\nline 4\n1 failed\n",
            is_error=False,
        ),
        ToolStarted(call_id="t2", name="Bash", input={"command": "ls"}),
        ToolFinished(call_id="t2", name="Bash", content="a\nb\nc\nd\n", is_error=False),
    )
    expected = [
        "● Bash(pytest -q)",
        "  ⎿  F.",
        "     FAIL: test_x",
        "     … +2 lines",
        "     1 failed",  # the last line of a long output is kept: it is often the verdict
        "",
        "● Bash(ls)",
        "  ⎿  a",
        "     b",
        "     c",
        "     d",
        "",
    ]
    assert out.splitlines() == expected


@pytest.mark.parametrize(
    ("name", "arguments", "headline"),
    [
        ("Read", {"file_path": "/repo/src/app.py", "limit": 10}, "● Read(src/app.py)"),
        ("Write", {"file_path": "/elsewhere/x.txt", "content": "x"}, "● Write(/elsewhere/x.txt)"),
        ("Grep", {"pattern": "TODO", "path": "/repo/src"}, "● Grep(TODO in src)"),
        ("Bash", {"command": "cd src &&\nmake"}, "● Bash(cd src && …)"),
        ("Mystery", {"count": 3}, "● Mystery()"),
    ],
)
def test_tool_headline_shows_the_key_argument(
    name: str, arguments: dict[str, object], headline: str
) -> None:
    out = render(ToolStarted(call_id="t1", name=name, input=arguments))
    assert out == headline + "\n"


def test_read_result_is_summarised_and_empty_output_said() -> None:
    out = render(
        ToolStarted(call_id="t1", name="Read", input={"file_path": "/repo/a.py"}),
        ToolFinished(call_id="t1", name="Read", content="     1\ta\n     2\tb\n", is_error=False),
        ToolStarted(call_id="t2", name="Bash", input={"command": "true"}),
        ToolFinished(call_id="t2", name="Bash", content="", is_error=False),
    )
    assert out == ("● Read(a.py)\n  ⎿  Read 2 lines\n\n● Bash(true)\n  ⎿  (no output)\n\n")


def test_tool_error_is_shown() -> None:
    out = render(
        ToolStarted(call_id="t1", name="Edit", input={"file_path": "/repo/a.py"}),
        ToolFinished(
            call_id="t1", name="Edit", content="Error: old_string not found", is_error=True
        ),
    )
    assert out == "● Edit(a.py)\n  ⎿  Error: old_string not found\n\n"


def test_edit_shows_its_diff() -> None:
    out = render(
        ToolStarted(call_id="t1", name="Edit", input={"file_path": "/repo/textstats.py"}),
        ToolFinished(call_id="t1", name="Edit", content="Edited.", is_error=False, diff=DIFF),
    )
    assert out == (
        "● Edit(textstats.py)\n"
        "  ⎿  Updated textstats.py +1 -1\n"
        "     @@ -19,4 +19,4 @@\n"
        "      def longest_words(text, n):\n"
        "          words = sorted(text.split(), key=len, reverse=True)\n"
        "     -    return words[: n - 1]\n"
        "     +    return words[:n]\n"
        "\n"
    )


def test_long_diff_is_capped() -> None:
    big = "@@ -1,100 +1,100 @@\n" + "".join(f"+line {i}\n" for i in range(100))
    out = render(
        ToolStarted(call_id="t1", name="Write", input={"file_path": "/repo/big.txt"}),
        ToolFinished(call_id="t1", name="Write", content="Wrote.", is_error=False, diff=big),
    )
    lines = out.splitlines()
    assert lines[1] == "  ⎿  Updated big.txt +100 -0"
    assert lines[2:5] == ["     @@ -1,100 +1,100 @@", "     +line 0", "     +line 1"]
    assert lines[-2:] == ["     … +61 diff lines", ""]
    assert len(lines) == 2 + 40 + 2


def test_diff_colours_on_a_terminal() -> None:
    console = Console(file=io.StringIO(), width=100, force_terminal=True, color_system="standard")
    out = render(
        ToolStarted(call_id="t1", name="Edit", input={"file_path": "/repo/textstats.py"}),
        ToolFinished(call_id="t1", name="Edit", content="Edited.", is_error=False, diff=DIFF),
        console=console,
    )
    assert "\x1b[31m-    return words[: n - 1]\x1b[0m" in out
    assert "\x1b[32m+    return words[:n]\x1b[0m" in out
    assert "\x1b[36m@@ -19,4 +19,4 @@\x1b[0m" in out


def test_thinking_collapses_to_one_line_unless_verbose() -> None:
    events = (
        ThinkingDelta(text="The test expects two\nwords; "),
        ThinkingDelta(text="the slice drops one."),
        TextDelta(text="Found it."),
    )
    assert render(*events) == (
        "✻ Thinking: The test expects two words; the slice drops one.\n\nFound it.\n\n"
    )
    assert render(*events, verbose=True) == (
        "The test expects two\nwords; the slice drops one.\n\nFound it.\n\n"
    )


def test_retry_notice_and_error_lines() -> None:
    out = render(
        TextDelta(text="Partial"),
        ModelRetry(attempt=1, max_attempts=4, delay_s=1.25, reason="overloaded"),
        Notice(level="warning", message="Settings file ignored."),
        ErrorOccurred(message="internal error: boom\nTraceback (most recent call last):\n  ..."),
    )
    assert out == (
        "Partial\n\n"
        # Its text was out as it came: said to be discarded, not part of the reply.
        "⚠ Model call failed (overloaded); the partial reply above is discarded; retrying in "
        "1.2s (attempt 2 \nof 4)\n"
        "Settings file ignored.\n"
        "✗ internal error: boom\n"
        "  (traceback hidden; --verbose shows it)\n"
        "\n"
    )


def test_multi_line_errors_are_shown_whole_and_tracebacks_with_verbose() -> None:
    assert render(ErrorOccurred(message="model refused\nreason: bad key")) == (
        "✗ model refused\nreason: bad key\n\n"
    )
    crash = "internal error: boom\nTraceback (most recent call last):\n  File x"
    assert render(ErrorOccurred(message=crash), verbose=True) == (
        "✗ internal error: boom\nTraceback (most recent call last):\n  File x\n\n"
    )


def test_an_unstreamed_reply_is_shown_from_its_message() -> None:
    assert render(assistant("Whole reply."), assistant("")) == "Whole reply.\n\n"


def test_turn_footer() -> None:
    out = render(TextDelta(text="Done."), assistant("Done."), finished())
    assert out == "Done.\n\n─ 3 model calls · 11.2k in (10.0k cached) · 345 out · $0.0123 · 4.2s\n"


def test_interrupted_and_turn_limit_are_said() -> None:
    interrupted = finished(
        subtype="error_during_execution",
        is_error=True,
        error="interrupted by the user",
        cost_usd=0.0,
        num_turns=1,
        usage=Usage(),
    )
    assert render(interrupted) == "⏹ Interrupted\n─ 1 model call · 0 in · 0 out · 4.2s\n"
    cut_short = render(
        ToolStarted(call_id="t1", name="Bash", input={"command": "sleep 9"}), interrupted
    )
    assert cut_short == (
        "● Bash(sleep 9)\n  ⎿  Interrupted\n\n─ 1 model call · 0 in · 0 out · 4.2s\n"
    )
    limited = finished(subtype="error_max_turns", is_error=True)
    assert render(limited).startswith("Stopped: the turn limit was reached.\n─ 3 model calls")


def test_session_started_sets_the_workspace_for_paths() -> None:
    console = plain_console()
    renderer = EventRenderer(console)
    renderer.render(SessionStarted(session_id="s", model="m", cwd="/srv/ws", tools=("Read",)))
    renderer.render(ToolStarted(call_id="t1", name="Read", input={"file_path": "/srv/ws/a.py"}))
    assert isinstance(console.file, io.StringIO)
    assert console.file.getvalue() == "● Read(a.py)\n"


def test_no_escape_codes_without_a_terminal() -> None:
    out = render(
        TurnStarted(prompt="go"),
        ThinkingDelta(text="hmm"),
        TextDelta(text="# Title\n*emphasis*"),
        ToolStarted(call_id="t1", name="Edit", input={"file_path": "/repo/textstats.py"}),
        ToolFinished(call_id="t1", name="Edit", content="Edited.", is_error=False, diff=DIFF),
        ToolStarted(call_id="t2", name="Bash", input={"command": "false"}),
        ToolFinished(call_id="t2", name="Bash", content="Exit code 1", is_error=True),
        ModelRetry(attempt=1, max_attempts=2, delay_s=0.5, reason="overloaded"),
        ErrorOccurred(message="boom"),
        finished(),
    )
    assert not ANSI.search(out)


def test_live_terminal_prints_the_reply_as_markdown() -> None:
    console = Console(file=io.StringIO(), width=100, height=20, force_terminal=True)
    out = render(
        TurnStarted(prompt="hi"),
        TextDelta(text="Some "),
        TextDelta(text="**bold** text."),
        assistant("Some **bold** text."),
        finished(),
        console=console,
    )
    assert "**" not in out
    assert "● \x1b[0mSome \x1b[1mbold\x1b[0m text." in out
    assert out.endswith(
        "─ 3 model calls · 11.2k in (10.0k cached) · 345 out · $0.0123 · 4.2s\x1b[0m\n"
    )


def test_format_tokens() -> None:
    assert [format_tokens(n) for n in (0, 999, 1000, 12_345, 2_500_000)] == [
        "0",
        "999",
        "1.0k",
        "12.3k",
        "2.5M",
    ]
    assert turn_footer(finished(cost_usd=0.0)) == (
        "─ 3 model calls · 11.2k in (10.0k cached) · 345 out · 4.2s"
    )


def asked(
    name: str, arguments: dict[str, object], suggestion: str | None = None, call_id: str = "t1"
) -> PermissionAsked:
    return PermissionAsked(
        request_id="r1",
        call_id=call_id,
        tool=name,
        input=arguments,
        reason=f"{name} needs approval in default mode",
        suggestion=suggestion,
    )


def test_a_call_that_needs_approval_shows_its_question() -> None:
    request = asked("Bash", {"command": "git commit -m wip"}, suggestion="Bash(git commit *)")
    console = plain_console()
    renderer = EventRenderer(console, workspace=Path("/repo"))
    renderer.render(ToolStarted(call_id="t1", name="Bash", input=request.input))
    renderer.render(request)
    renderer.answered(request, PermissionAnswer(request_id="r1", choice="allow_always"))
    renderer.render(ToolFinished(call_id="t1", name="Bash", content="ok", is_error=False))
    renderer.close()
    assert isinstance(console.file, io.StringIO)
    assert console.file.getvalue().splitlines() == [
        "● Bash(git commit -m wip)",
        "  ? Allow this call? (Bash needs approval in default mode)",
        "    1  Yes, once  (y)",
        "    2  Yes, and always allow Bash(git commit *) for this project",
        "    3  No  (n, esc · tab: no, and tell the model why)",
        "  ✓ Always allowed for this project: Bash(git commit *)",
        "  ⎿  ok",
        "",
    ]


def test_without_a_rule_to_remember_there_is_no_always_choice() -> None:
    request = asked("Mystery", {"count": 3})
    out = render(
        request,  # no ToolStarted first: the question shows the call's headline itself
        ToolStarted(call_id="t1", name="Mystery", input={"count": 3}),
        ToolFinished(
            call_id="t1", name="Mystery", content="The user denied this call", is_error=True
        ),
    )
    assert out.splitlines() == [
        "● Mystery()",
        "  ? Allow this call? (Mystery needs approval in default mode)",
        "    1  Yes, once  (y)",
        "    3  No  (n, esc · tab: no, and tell the model why)",
        "  ⎿  The user denied this call",
        "",
    ]


def test_an_edit_awaiting_approval_previews_its_change(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("one\ntwo\nthree\n")
    console = plain_console()
    renderer = EventRenderer(console, workspace=tmp_path)
    edit = {"file_path": "notes.txt", "old_string": "two", "new_string": "2"}
    renderer.render(asked("Edit", edit))
    write = {"file_path": str(tmp_path / "new.txt"), "content": "hi\n"}
    renderer.render(asked("Write", write, call_id="t2"))
    assert isinstance(console.file, io.StringIO)
    lines = console.file.getvalue().splitlines()
    assert lines[:11] == [
        "● Edit(notes.txt)",
        "  ⎿  Would update notes.txt +1 -1",
        "     @@ -1,3 +1,3 @@",
        "      one",
        "     -two",
        "     +2",
        "      three",
        "  ? Allow this call? (Edit needs approval in default mode)",
        "    1  Yes, once  (y)",
        "    ⇧⇥  Yes, allow all edits during this session  (shift+tab)",
        "    3  No  (n, esc · tab: no, and tell the model why)",
    ]
    assert lines[11:14] == [
        "● Write(new.txt)",
        "  ⎿  Would create new.txt +1 -0",
        "     @@ -0,0 +1 @@",
    ]


def test_an_edit_of_an_unreadable_file_previews_the_replacement_alone() -> None:
    edit = {"file_path": "/nowhere/a.py", "old_string": "x = 1\n", "new_string": "x = 2\n"}
    out = render(asked("Edit", edit))
    assert out.splitlines()[:5] == [
        "● Edit(/nowhere/a.py)",
        "  ⎿  Would update /nowhere/a.py +1 -1",
        "     @@ -1 +1 @@",
        "     -x = 1",
        "     +x = 2",
    ]


def test_the_question_stops_the_live_region_and_the_answer_resumes_it() -> None:
    console = Console(file=io.StringIO(), width=100, height=20, force_terminal=True)
    renderer = EventRenderer(console, workspace=Path("/repo"))
    request = asked("Bash", {"command": "make"})
    renderer.render(TurnStarted(prompt="build it"))
    renderer.render(ToolStarted(call_id="t1", name="Bash", input=request.input))
    assert renderer.live
    renderer.render(request)
    assert not renderer.live
    renderer.answered(request, PermissionAnswer(request_id="r1", choice="allow_once"))
    assert renderer.live
    renderer.close()
    assert not renderer.live


# -- the plan (TodoWrite) ----------------------------------------------------------------------

PLAN = [
    {"content": "Read the code", "status": "completed", "activeForm": "Reading the code"},
    {"content": "Fix the bug", "status": "in_progress", "activeForm": "Fixing the bug"},
    {"content": "Run the tests", "status": "pending", "activeForm": "Running the tests"},
]


def todo_events(
    call_id: str, todos: list[dict[str, str]], *, is_error: bool = False
) -> list[Event]:
    return [
        ToolStarted(call_id=call_id, name="TodoWrite", input={"todos": todos}),
        ToolFinished(
            call_id=call_id,
            name="TodoWrite",
            content="Todo list updated: 1 completed, 1 in progress, 1 pending.",
            is_error=is_error,
        ),
    ]


def test_a_todo_write_shows_the_plan_as_a_checklist() -> None:
    out = render(*todo_events("t1", PLAN))
    assert out == (
        "● TodoWrite(3 items)\n  ⎿  ☒ Read the code\n     ◐ Fix the bug\n     ☐ Run the tests\n\n"
    )


def test_the_checklist_styles_each_status_on_a_terminal() -> None:
    console = Console(file=io.StringIO(), width=100, force_terminal=True, color_system="standard")
    out = render(*todo_events("t1", PLAN), console=console)
    assert "\x1b[2;9m☒ Read the code" in out  # dim, struck through
    assert "\x1b[1m◐ Fix the bug" in out  # bold
    assert "☐ Run the tests" in out


def test_the_renderer_remembers_the_last_plan_that_was_set() -> None:
    renderer = EventRenderer(plain_console(), workspace=Path("/repo"))
    assert renderer.plan_checklist() is None
    done = [{**item, "status": "completed"} for item in PLAN]
    bad = [{**item, "status": "in_progress"} for item in PLAN]
    for event in [
        *todo_events("t1", PLAN),
        *todo_events("t2", done),
        *todo_events("t3", bad, is_error=True),
    ]:
        renderer.render(event)
    checklist = renderer.plan_checklist()
    assert checklist is not None
    assert checklist.plain == "  ☒ Read the code\n  ☒ Fix the bug\n  ☒ Run the tests"


def test_an_emptied_plan_is_said() -> None:
    renderer = EventRenderer(plain_console(), workspace=Path("/repo"))
    for event in todo_events("t1", []):
        renderer.render(event)
    renderer.close()
    out = renderer.console.file
    assert isinstance(out, io.StringIO)
    assert out.getvalue() == "● TodoWrite(0 items)\n  ⎿  Plan cleared\n\n"
    checklist = renderer.plan_checklist()
    assert checklist is not None
    assert checklist.plain == "The plan is empty."


def test_a_refused_todo_write_shows_its_error() -> None:
    bad = [{**item, "status": "in_progress"} for item in PLAN]
    out = render(
        ToolStarted(call_id="t1", name="TodoWrite", input={"todos": bad}),
        ToolFinished(
            call_id="t1", name="TodoWrite", content="3 items are in_progress", is_error=True
        ),
    )
    assert "  ⎿  3 items are in_progress\n" in out
    assert "◐" not in out


def test_verbose_shows_each_calls_cache_hit_or_miss() -> None:
    reply = Message(role="assistant", content=(TextBlock(text="ok"),))
    miss = MessageCompleted(
        message=reply, usage=Usage(input_tokens=200, cache_creation_input_tokens=3000)
    )
    hit = MessageCompleted(
        message=reply,
        usage=Usage(
            input_tokens=100, cache_creation_input_tokens=300, cache_read_input_tokens=3000
        ),
    )
    lines = [line for line in render(miss, hit, verbose=True).splitlines() if "cache" in line]
    assert lines == [
        "  cache miss: 0% of 3.2k from cache, 3.0k written",
        "  cache hit: 88% of 3.4k from cache, 300 written, ~2.7k tokens' worth saved",
    ]
    assert "cache" not in render(miss, hit)


def test_calls_running_side_by_side_name_each_result() -> None:
    out = render(
        ToolStarted(call_id="t1", name="Bash", input={"command": "sleep 2; echo slow"}),
        ToolStarted(call_id="t2", name="Bash", input={"command": "echo fast"}),
        ToolFinished(call_id="t2", name="Bash", content="fast\n", is_error=False),
        ToolFinished(call_id="t1", name="Bash", content="slow\n", is_error=False),
    )
    assert out.splitlines() == [
        "● Bash(sleep 2; echo slow)",
        "● Bash(echo fast)",
        "  ⎿  fast",
        "",
        "● Bash(sleep 2; echo slow)",
        "  ⎿  slow",
        "",
    ]


def test_the_spinner_names_every_running_call() -> None:
    renderer = EventRenderer(plain_console(), workspace=Path("/repo"))
    renderer.render(ToolStarted(call_id="t1", name="Bash", input={"command": "make"}))
    renderer.render(ToolStarted(call_id="t2", name="Read", input={"file_path": "/repo/a"}))
    assert renderer._activity == "Running 2 tools (Bash, Read)"  # pyright: ignore[reportPrivateUsage]
    renderer.render(ToolFinished(call_id="t1", name="Bash", content="", is_error=False))
    assert renderer._activity == "Running Read"  # pyright: ignore[reportPrivateUsage]


def test_an_abandoned_attempts_thinking_is_not_printed_after_it() -> None:
    out = render(
        ThinkingDelta(text="A thought the retry drops."),
        ModelRetry(attempt=1, max_attempts=4, delay_s=0.0, reason="stalled"),
        TextDelta(text="Answer."),
    )
    assert "drops" not in out
    assert out.endswith("Answer.\n\n")
