"""Read-only commands with no rule need not be asked: a package manager's or a toolchain's
version or usage, system status (free, uptime, top in batch mode), expr, fold; what they may
read is still checked, and more than the one asking word is judged as before."""

from __future__ import annotations

import pytest

from tether.permissions import decide

from .conftest import ContextFactory

RULES = {"permissions": {"deny": ["Read(./.env)", "Bash(curl *)"]}}


@pytest.mark.parametrize(
    "command",
    [
        "npm --version",
        "npm -v",
        "pnpm --version",
        "yarn -v",
        "pip --version",
        "pip3 -V",
        "pip3 --help",
        "cargo --version",
        "rustc -V",
        "uv --version",
        "go version",
        "top -bn1",
        "top -b -n 1 | head -20",
        "free -m",
        "free -h",
        "uptime",
        "uptime -p",
        "expr 1 + 2",
        "expr length abc",
        "fold -w 40 README.md",
        "fold -s -w 72 README.md | head",
    ],
)
def test_read_only_queries_are_allowed(command: str, make_ctx: ContextFactory) -> None:
    for mode in ("default", "plan"):
        verdict = decide("Bash", {"command": command}, make_ctx(RULES, mode=mode))
        assert verdict.behavior == "allow", (command, mode, verdict.reason)


@pytest.mark.parametrize(
    ("command", "wanted"),
    [
        ("fold -w 40 .env", "deny"),
        ("npm --version install", "ask"),
        ("npm run --version", "ask"),
        ("pip --version install x", "ask"),
        ("cargo --version build", "ask"),
        ("go version && go run .", "ask"),
        ("go build", "ask"),
    ],
)
def test_more_than_a_query_is_judged_as_before(
    command: str, wanted: str, make_ctx: ContextFactory
) -> None:
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict.behavior == wanted, (command, verdict.reason)
