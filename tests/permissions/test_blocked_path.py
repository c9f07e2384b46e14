"""The file a command asked about would change first (`can_use_tool`'s `blocked_path`): a
writer's first file argument, resolved where the command runs, wherever the writer sits."""

from __future__ import annotations

from pathlib import Path

import pytest

from tether.permissions.blocked_path import blocked_path

CWD = Path("/work/project")
HOME = Path("/home/someone")


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("rm -rf build", "/work/project/build"),
        ("mkdir -p dist/x", "/work/project/dist/x"),
        ("touch /tmp/elsewhere", "/tmp/elsewhere"),
        ("touch -d yesterday stamp", "/work/project/stamp"),  # -d takes a value
        ("chmod 644 a.txt", "/work/project/a.txt"),  # the mode is not a file
        ("rm -- -odd", "/work/project/-odd"),
        ("touch ~/notes", "/home/someone/notes"),
        ("rm ../up/x", "/work/up/x"),
        ("ls && rm -f old.log", "/work/project/old.log"),
        ("sudo rm y", "/work/project/y"),  # through a wrapper
        ("bash -c 'rmdir empty'", "/work/project/empty"),  # inside code run
        ("curl https://example.com", None),  # writes no file it is given
        ("rm $TARGET", None),  # a file that cannot be known
        ("rm *.tmp", None),
        ("echo hi > out.txt", None),  # a redirection, not a writer's argument
        ("rm -rf", None),
        ("if then fi (", None),  # unparsed
    ],
)
def test_the_first_file_a_writer_is_given(command: str, expected: str | None) -> None:
    assert blocked_path(command, CWD, HOME) == expected
