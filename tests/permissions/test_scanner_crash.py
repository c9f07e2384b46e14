"""Commands that crashed the process inside tree-sitter-bash's scanner (it passes the
character after `{`, and after `{N..`, to the C library's `isdigit`, which reads out of its
table for code points of U+0100 and above): they are judged, as commands the parser could
not read safely, and nothing crashes. In a child process, since a crash would end pytest."""

from __future__ import annotations

import json
import subprocess
import sys

from tether.permissions.shell import UNSAFE_TO_PARSE

COMMANDS = [
    "echo {\U0010fff0..5}",
    "echo {1..\U0010fff0}",
    "rm -rf {\U000e0000,x}",
    "echo {\udcff}",  # a byte that is not UTF-8, kept by surrogateescape
    "ls dir.\U0010ffff",  # after a dot the scanner never calls isdigit: read as usual
]

_CHILD = """
import json, sys
from tether.permissions.shell import parse_command
for command in json.loads(sys.stdin.read()):
    print(json.dumps(list(parse_command(command).problems)))
"""


def test_characters_that_crashed_the_parser_are_flagged_unparsed() -> None:
    child = subprocess.run(
        [sys.executable, "-c", _CHILD],
        input=json.dumps(COMMANDS),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert child.returncode == 0, child.stderr
    flagged = [UNSAFE_TO_PARSE]
    assert [json.loads(line) for line in child.stdout.splitlines()] == [flagged] * 4 + [[]]


def test_latin_text_after_a_dot_is_read_as_it_is() -> None:
    from tether.permissions.shell import parse_command

    script = parse_command("cat notes.\u00fcber {\u00e9,b}")
    assert script.problems == ()
    assert script.invocations[0].argv[1] == "notes.\u00fcber"
