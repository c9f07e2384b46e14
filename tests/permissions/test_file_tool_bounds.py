"""A file tool's bounds are its own: a path longer than the kernel opens is refused with the
tool's name and the limit, never with a Bash rule's reason."""

from __future__ import annotations

import pytest

from tether.permissions import decide

from .conftest import ContextFactory

RULES = {"permissions": {"deny": ["Bash(wget *)", "Read(**/.env)"], "allow": ["Bash(ls *)"]}}


@pytest.mark.parametrize(
    ("tool", "field", "path"),
    [
        ("Read", "file_path", "b/" * 30_000 + "x"),
        ("Read", "file_path", "../" * 20_000 + "etc/hostname"),
        ("Grep", "path", "c/" * 5_000),
        ("Write", "file_path", "d" * 4_096),
    ],
)
def test_a_path_past_path_max_names_the_tool_and_the_limit(
    tool: str, field: str, path: str, make_ctx: ContextFactory
) -> None:
    call = {field: path, "pattern": "x", "content": ""}
    verdict = decide(tool, call, make_ctx(RULES))
    assert verdict.behavior == "deny", verdict
    assert verdict.reason.startswith(f"{tool}: the path is"), verdict.reason
    assert "PATH_MAX" in verdict.reason
    assert "Bash" not in verdict.reason


def test_a_long_path_within_the_limit_is_judged_as_usual(make_ctx: ContextFactory) -> None:
    verdict = decide("Read", {"file_path": "src/" + "e/" * 1_000 + ".env"}, make_ctx(RULES))
    assert verdict.behavior == "deny"
    assert verdict.rule == "Read(**/.env)"
