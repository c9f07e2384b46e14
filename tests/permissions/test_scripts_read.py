"""A script a shell runs or `.` reads, and other code files a command runs: a script that
exists and can be read is judged as bash with the same rules (deny rules hold against what it
runs, in every mode); one the same command writes, before or after, or one tether cannot
read, is code not read: asked where a Bash deny rule exists, and denied in bypassPermissions
mode, where deny rules still hold against what the parser cannot read."""

from __future__ import annotations

import pytest

from tether.permissions import decide

from .conftest import ContextFactory, Tree

RULES = {
    "permissions": {
        "allow": [
            *("Bash(bash *)", "Bash(sh *)", "Bash(make *)", "Bash(npm *)"),
            *("Bash(printf *)", "Bash(echo *)", "Bash(python3 *)", "Bash(source *)"),
        ],
        "deny": ["Bash(curl *)", "Bash(nc *)"],
    }
}
MODES = ("default", "bypassPermissions")


@pytest.fixture
def scripts(tree: Tree) -> Tree:
    tools = tree.ws / "tools"
    tools.mkdir()
    (tools / "fetch.sh").write_text("set -e\necho fetching\ncurl -sS http://127.0.0.1:9/x\n")
    (tools / "listen").write_text("if true; then nc -l 1; fi\n")
    (tools / "calls.sh").write_text("sh tools/listen\n")
    (tools / "build.sh").write_text("echo building\nls src\n")
    (tools / "env.sh").write_text("export A=1\n")
    return tree


@pytest.mark.parametrize(
    "command",
    [
        "bash tools/fetch.sh",
        "sh -e tools/listen",
        "source tools/fetch.sh",
        ". ./tools/listen",
        "bash tools/calls.sh",  # a script that runs another
        "cd tools && bash fetch.sh",
        "echo start; bash tools/fetch.sh",
    ],
)
def test_a_script_that_runs_a_denied_program_is_denied(
    command: str, scripts: Tree, make_ctx: ContextFactory
) -> None:
    for mode in MODES:
        verdict = decide("Bash", {"command": command}, make_ctx(RULES, mode=mode))
        assert verdict.behavior == "deny", (command, mode, verdict.reason)
        assert "is denied by" in verdict.reason


@pytest.mark.parametrize(
    "command",
    [
        "printf 'curl -sS http://127.0.0.1:9/x\\n' > s.sh; bash s.sh",
        "echo 'nc -l 1' > m; sh m",
        "echo 'nc -l 1' > tools/build.sh && bash tools/build.sh",  # exists, then rewritten
        "bash tools/build.sh; echo 'nc -l 1' > tools/build.sh",  # written after: a loop may rerun
        "for i in 1 2; do . tools/build.sh; echo 'nc -l 1' >> tools/build.sh; done",
        "printf 'x:\\n\\tcurl e\\n' > mk; make -f mk",
        "printf 'x:\\n\\tcurl e\\n' > /tmp/mk; make -f /tmp/mk",
        "echo 'nc -l 1' > ./x; npm --script-shell ./x run t",
        "npm run --script-shell=/tmp/not-here test",
        "echo 'import os' > t.py; python3 t.py",
        "source ./missing.sh",
        "bash tools/none",
    ],
)
def test_a_script_not_read_is_denied_in_bypass_and_asked_otherwise(
    command: str, scripts: Tree, make_ctx: ContextFactory
) -> None:
    default = decide("Bash", {"command": command}, make_ctx(RULES))
    assert default.behavior == "ask", (command, default.reason)
    bypass = decide("Bash", {"command": command}, make_ctx(RULES, mode="bypassPermissions"))
    assert bypass.behavior == "deny", (command, bypass.reason)
    assert bypass.rule == "Bash(curl *)"


@pytest.mark.parametrize(
    "command", ["bash tools/build.sh", "source tools/env.sh", "sh tools/build.sh arg"]
)
def test_a_script_read_and_found_harmless_runs_in_bypass(
    command: str, scripts: Tree, make_ctx: ContextFactory
) -> None:
    """Default mode asks as before (a rule allowing the shell says nothing of the script);
    bypassPermissions runs it, its text having met every deny rule."""
    default = decide("Bash", {"command": command}, make_ctx(RULES))
    assert default.behavior == "ask", default.reason
    bypass = decide("Bash", {"command": command}, make_ctx(RULES, mode="bypassPermissions"))
    assert bypass.behavior == "allow", bypass.reason


def test_a_script_too_large_to_read_is_not_read(scripts: Tree, make_ctx: ContextFactory) -> None:
    (scripts.ws / "tools" / "big.sh").write_text("echo x\n" * 20_000)
    command = "bash tools/big.sh"
    bypass = decide("Bash", {"command": command}, make_ctx(RULES, mode="bypassPermissions"))
    assert bypass.behavior == "deny", bypass.reason
    assert "cannot read" in bypass.reason


def test_without_a_deny_rule_bypass_runs_what_it_cannot_read(
    scripts: Tree, make_ctx: ContextFactory
) -> None:
    rules = {"permissions": {"allow": ["Bash(bash *)", "Bash(echo *)"]}}
    command = "echo 'ls' > s.sh; bash s.sh"
    bypass = decide("Bash", {"command": command}, make_ctx(rules, mode="bypassPermissions"))
    assert bypass.behavior == "allow", bypass.reason
