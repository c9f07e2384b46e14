"""Where automatic compaction starts: Claude Code's point (its bundled CLI's
`autoCompactThreshold` on each window and cap), and a sensible one for small windows."""

from __future__ import annotations

import pytest

from tether.core.compact_point import compact_point, percent_override
from tether.core.micro import CompactionPolicy


@pytest.mark.parametrize(
    ("window", "cap", "percent", "point"),
    [
        # Claude Code's own figures.
        (200_000, 32_000, None, 167_000),
        (1_000_000, 128_000, None, 967_000),
        (200_000, 8_000, None, 179_000),
        (200_000, 8_192, None, 178_808),
        (200_000, 4_096, None, 182_904),
        (200_000, 32_000, 50.0, 90_000),
        (200_000, 32_000, 95.0, 167_000),  # an override only ever brings it sooner
        (200_000, 32_000, 0.0, 167_000),
        (200_000, 32_000, 150.0, 167_000),
        # A smaller window (another provider's): at most a fifth of it kept free.
        (32_768, 16_384, None, 26_215),
        (128_000, 16_384, None, 102_400),
        (10_000, 32_000, None, 8_000),
    ],
)
def test_the_point_is_claude_codes(
    window: int, cap: int, percent: float | None, point: int
) -> None:
    assert compact_point(window, cap, percent) == point


@pytest.mark.parametrize(
    ("value", "percent"),
    [("50", 50.0), (" 12.5 ", 12.5), ("0", None), ("101", None), ("half", None), ("", None)],
)
def test_the_override_is_read_as_claude_code_reads_it(value: str, percent: float | None) -> None:
    assert percent_override({"CLAUDE_AUTOCOMPACT_PCT_OVERRIDE": value}) == percent


def test_a_policy_without_a_point_compacts_at_its_share_of_the_window() -> None:
    assert CompactionPolicy(window=1000).compact_at() == 850
    assert CompactionPolicy(window=1000, trigger_tokens=600).compact_at() == 600
