"""Matchers as Claude Code reads them: everything, exact names, or an unanchored regex."""

from __future__ import annotations

import pytest

from tether.hooks.matcher import exact_names, matcher_problem, matches

SUBJECTS = ("Bash", "BashOutput", "Edit", "Write", "NotebookEdit", "mcp__github__create_issue")


@pytest.mark.parametrize(
    ("matcher", "matched"),
    [
        ("", SUBJECTS),
        ("*", SUBJECTS),
        ("Bash", ("Bash",)),
        ("Edit|Write", ("Edit", "Write")),
        ("Edit | Write", ("Edit", "Write")),
        ("mcp__.*", ("mcp__github__create_issue",)),
        ("^Bash", ("Bash", "BashOutput")),
        ("Edit$", ("Edit", "NotebookEdit")),
        ("Notebook.*", ("NotebookEdit",)),
        ("mcp__github__.*|Bash$", ("Bash", "mcp__github__create_issue")),
    ],
)
def test_which_subjects_a_matcher_selects(matcher: str, matched: tuple[str, ...]) -> None:
    assert tuple(s for s in SUBJECTS if matches(matcher, s)) == matched


def test_nothing_to_match_runs_only_match_everything_hooks() -> None:
    assert [m for m in ("", "*", "Bash", ".*") if matches(m, None)] == ["", "*"]


def test_exact_names_and_problems() -> None:
    assert exact_names("Edit|Write") == ("Edit", "Write")
    assert exact_names("mcp__.*") is None
    assert exact_names("*") is None
    assert matcher_problem("Edit|Write") is None
    assert matcher_problem("mcp__.*") is None
    assert matcher_problem("[Edit") == (
        "invalid regular expression '[Edit': unterminated character set at position 0"
    )
