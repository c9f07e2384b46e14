"""A UTF-8 byte order mark before the first stream-json line (what Windows PowerShell's pipes
add) is not part of that line: its message is answered, not dropped as "not JSON"."""

from __future__ import annotations

import json
from pathlib import Path

from tether.testing import FakeModelServer, text
from tether.testing.cli_runner import run_cli


def test_a_bom_before_the_first_line_is_not_part_of_it(
    model_env: FakeModelServer, workspace: Path
) -> None:
    model_env.script(text("answered"))
    message = {"type": "user", "message": {"role": "user", "content": "hi"}}
    result = run_cli(
        [
            *("--cwd", str(workspace), "-p", "--input-format", "stream-json"),
            *("--output-format", "stream-json", "--verbose"),
        ],
        stdin="\ufeff" + json.dumps(message) + "\n",
    )
    assert result.exit_code == 0, result.stderr
    assert "not JSON" not in result.stderr
    [result_line] = [line for line in result.json_lines() if line["type"] == "result"]
    assert result_line["result"] == "answered"
    assert model_env.requests[0].last_user_text() == "hi"
