"""The diff a write shows is bounded in time for any input: a one-line change in a big file
of repeated lines (the shape of a lock or fixture file) once kept difflib busy for ever, on
the event loop's thread, with Ctrl+C and SIGTERM ignored."""

from __future__ import annotations

import difflib
import json
import subprocess
import sys
import textwrap
from pathlib import Path

from tether.tools.builtin.files import (
    structured_patch,
    unified_diff,
    unified_lines,
)

PAD = "# pad " + "z" * 90 + "\n"

# Run in a subprocess so that a diff that never ends fails the test instead of hanging it.
_EDIT = textwrap.dedent(
    """
    import asyncio, json, sys
    from pathlib import Path
    from tether.protocol import ToolUseBlock
    from tether.tools.builtin import builtin_tools
    from tether.tools.context import ToolContext
    from tether.tools.registry import ToolRegistry

    async def main() -> None:
        root = Path(sys.argv[1])
        ctx = ToolContext(workspace=root / "ws", scratch_dir=root / "scratch")
        registry = ToolRegistry(builtin_tools())
        calls = [
            ("Read", {"file_path": "big.py", "limit": 3}),
            ("Edit", {"file_path": "big.py", "old_string": sys.argv[2], "new_string": sys.argv[3]}),
        ]
        for name, tool_input in calls:
            outcome = await registry.run(ToolUseBlock(id="c", name=name, input=tool_input), ctx)
        print(json.dumps({"error": outcome.is_error, "structured": outcome.structured}))

    asyncio.run(main())
    """
)


def _edit(tmp_path: Path, content: str, old: str, new: str) -> dict[str, object]:
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "big.py").write_text(content)
    done = subprocess.run(
        [sys.executable, "-c", _EDIT, str(tmp_path), old, new],
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    result = json.loads(done.stdout)
    assert result["error"] is False
    return result["structured"]


def test_one_line_edit_in_a_big_file_of_repeated_lines(tmp_path: Path) -> None:
    structured = _edit(tmp_path, "value = x\n" + PAD * 20_000, "value = x", "value = y")
    pad = " " + PAD.rstrip("\n")
    assert structured["structuredPatch"] == [
        {
            "oldStart": 1,
            "oldLines": 4,
            "newStart": 1,
            "newLines": 4,
            "lines": ["-value = x", "+value = y", pad, pad, pad],
        }
    ]


def test_edit_in_the_middle_of_repeated_lines(tmp_path: Path) -> None:
    content = PAD * 10_000 + "middle\n" + PAD * 10_000
    structured = _edit(tmp_path, content, "middle\n", "centre\nline\n")
    pad = " " + PAD.rstrip("\n")
    assert structured["structuredPatch"] == [
        {
            "oldStart": 9_998,
            "oldLines": 7,
            "newStart": 9_998,
            "newLines": 8,
            "lines": [pad, pad, pad, "-middle", "+centre", "+line", pad, pad, pad],
        }
    ]


def test_a_change_too_big_to_match_is_one_replacement() -> None:
    # Lines repeated 20 times each (not popular enough to be left out): 400,000 pairs of
    # equal lines, past EQUAL_PAIRS: what differs is shown replaced whole, still a true diff.
    old = "".join(f"{i % 1000}\n" for i in range(20_000))
    new = "".join(f"{(i + 1) % 1000}\n" for i in range(20_000))
    [hunk] = structured_patch(old, new)
    assert (hunk["oldStart"], hunk["oldLines"], hunk["newLines"]) == (1, 20_000, 20_000)
    assert hunk["lines"] == ["-" + line for line in old.split("\n")[:-1]] + [
        "+" + line for line in new.split("\n")[:-1]
    ]
    assert unified_diff(old, new, "f").startswith("--- a/f\n+++ b/f\n@@ -1,20000 +1,20000 @@\n-0\n")


def test_popular_lines_are_not_matched_past_the_bound() -> None:
    # 200 blank lines on each side: 40,000 pairs, past EQUAL_PAIRS; difflib's autojunk leaves
    # them out of the matching, and the changed lines are still found.
    old = "".join(f"line {i}\n\n" for i in range(200))
    new = old.replace("line 50\n", "line fifty\n").replace("line 150\n", "line 150!\n")
    hunks = structured_patch(old, new)
    assert [hunk["oldStart"] for hunk in hunks] == [98, 298]
    assert [line for hunk in hunks for line in hunk["lines"] if line[0] != " "] == [
        "-line 50",
        "+line fifty",
        "-line 150",
        "+line 150!",
    ]


def test_small_diffs_are_difflibs() -> None:
    cases = [
        ("", "a\n"),
        ("a\n", ""),
        ("a\nb\nc\n", "a\nc\n"),
        ("x\n" * 10 + "y\n" + "x\n" * 10, "x\n" * 10 + "z\n" + "x\n" * 10),
        ("".join(f"{i}\n" for i in range(40)), "".join(f"{i}\n" for i in range(40) if i % 9)),
        ("a\nb\nc\nd\n" * 5, "a\nc\nb\nd\n" * 5),
        ("a\nb", "a\nc"),
        ("same\n", "same\n"),
    ]
    for old, new in cases:
        a, b = old.splitlines(keepends=True), new.splitlines(keepends=True)
        expected = list(difflib.unified_diff(a, b, "a/f", "b/f"))
        assert list(unified_lines(a, b, "a/f", "b/f")) == expected, (old, new)
