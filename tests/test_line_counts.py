"""The lines a call changed are counted one way as the session runs and once it is resumed:
from the call's result data (Claude Code's `toolUseResult`), which the session file keeps, not
from the diff shown, which it does not."""

from __future__ import annotations

from tether.protocol import ToolFinished
from tether.protocol.line_counts import changed_lines
from tether.tools.builtin.files import structured_patch, unified_diff


def _finished(old: str, new: str, structured: object) -> ToolFinished:
    return ToolFinished(
        call_id="c",
        name="Write",
        content="done",
        is_error=False,
        diff=unified_diff(old, new, "a.txt"),
        structured=structured,
    )


def test_a_final_newline_added_counts_the_same_live_and_resumed() -> None:
    old, new = "one\ntwo", "one\ntwo\n"
    result = {"type": "update", "content": new, "structuredPatch": structured_patch(old, new)}
    assert _finished(old, new, result).lines_changed() == changed_lines(result)


def test_a_notebook_edit_counts_no_lines_live_as_resumed() -> None:
    # NotebookEdit's result has no structuredPatch (Claude Code counts no lines for it).
    result = {"notebook_path": "n.ipynb", "original_file": "{}", "updated_file": '{\n"a": 1\n}'}
    assert _finished("{}", '{\n"a": 1\n}', result).lines_changed() == (0, 0)
    assert changed_lines(result) == (0, 0)


def test_a_file_made_counts_its_content_lines() -> None:
    made = {"type": "create", "content": "one\ntwo\nthree", "structuredPatch": []}
    assert _finished("", "one\ntwo\nthree", made).lines_changed() == (3, 0)
