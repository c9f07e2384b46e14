"""The segfault in `Parser.parse`: tree-sitter-bash's scanner, after `{` (and a brace range's
digits and `..`), asks C's `isdigit` about a character past U+00FF and reads beyond its
256-entry table; where nothing is mapped there the whole process dies. Whether something is
mapped there changes from run to run, so the crash came and went; the sweep below ended its
process in every run before the fix. Such text now never reaches the parser: the command is
one the engine cannot see (asked, or denied where a deny rule exists).

What could crash runs in a child process, so that a crash fails a test instead of ending the
test run."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from tether.permissions import decide
from tether.permissions.shell import UNREADABLE, parse_command

from .conftest import ContextFactory

CRASHER = "{\U000a9f0ax\N{SECTION SIGN}K"
"""Drawn by the differential test's generator: it crashed a full run."""

OUT_OF_BOUNDS = [
    CRASHER,
    "{\U00031860",
    "echo {\N{GREEK SMALL LETTER ALPHA},b}",
    "x {12..\u4e00}",
    "echo $(printf '%s' {\u0100})",
    "{1..2\u0800",
]


def _in_a_child(script: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-X", "faulthandler", "-c", textwrap.dedent(script)],
        capture_output=True,
        text=True,
        timeout=280,
        check=False,
    )


def test_what_the_scanner_reads_out_of_bounds_is_not_parsed() -> None:
    done = _in_a_child(
        f"""
        import json
        from tether.permissions.shell import parse_command
        scripts = [parse_command(c) for c in {OUT_OF_BOUNDS!r}]
        print(json.dumps([[list(s.invocations), list(s.problems)] for s in scripts]))
        """
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout) == [[[], [UNREADABLE]]] * len(OUT_OF_BOUNDS)


def test_a_sweep_of_every_plane_after_a_brace_ends_normally() -> None:
    done = _in_a_child(
        """
        from tether.permissions.shell import parse_command
        for point in range(0x100, 0x110000, 0x100):
            if not 0xD800 <= point < 0xE000:
                for opening in ("{", "{7..", "echo {"):
                    parse_command(opening + chr(point))
        print("read them all")
        """
    )
    assert (done.returncode, done.stdout) == (0, "read them all\n"), done.stderr[-2000:]


@pytest.mark.parametrize(
    ("command", "program"),
    [("echo {a,b}", "echo"), ("echo {1..3}", "echo"), ("echo {\u00e9}", "echo"),
     ("printf '%s' \u4e00{", "printf"), ("jq '{\"\u540d\": 1}'", "jq")],
)  # fmt: skip
def test_what_it_reads_safely_is_parsed_as_before(command: str, program: str) -> None:
    script = parse_command(command)
    assert script.problems == ()
    assert [inv.argv[0] for inv in script.invocations] == [program]


def test_such_a_command_is_asked_about_or_denied_never_allowed(make_ctx: ContextFactory) -> None:
    # In this process: the text is screened before any parser sees it (the tests above).
    command = {"command": f"echo {CRASHER}"}
    allowed = make_ctx({"permissions": {"allow": ["Bash(echo *)"]}})
    with_deny = make_ctx({"permissions": {"allow": ["Bash(echo *)"], "deny": ["Bash(rm *)"]}})
    verdicts = [decide("Bash", command, ctx).behavior for ctx in (allowed, with_deny)]
    assert verdicts == ["ask", "deny"]
