"""A session hides from its sandbox what its `Read` deny rules name: the model writes a
Makefile, a `package.json` script or a Python file that reads `.env`, then runs it with a
program the rules allow; the secret does not come back."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from tether.testing import FakeModelServer, reply, text, tool_use
from tether.testing.cli_runner import CliResult

from .conftest import needs_bwrap

pytestmark = needs_bwrap


def test_code_the_model_wrote_cannot_read_a_denied_file(
    fake_model: FakeModelServer,
    tether: Callable[..., CliResult],
    workspace: Path,
    tmp_path: Path,
) -> None:
    (workspace / ".env").write_text("SECRET=envsecret\n")
    (workspace / "pkg").mkdir()
    (workspace / "pkg" / ".env").write_text("SECRET=nested\n")
    settings = tmp_path / "settings.json"
    settings.write_text(
        json.dumps(
            {
                "permissions": {
                    "allow": ["Bash(make:*)", "Bash(python3:*)", "Bash(npm run:*)"],
                    "deny": ["Read(**/.env)"],
                }
            }
        )
    )
    fake_model.script(
        reply(
            tool_use(
                "Write",
                file_path=str(workspace / "Makefile"),
                content="all:\n\tcat .env pkg/.env; echo made\n",
            )
        ),
        reply(tool_use("Bash", command="make -s")),
        reply(
            tool_use(
                "Write",
                file_path=str(workspace / "x.py"),
                content="print(repr(open('.env').read()), repr(open('pkg/.env').read()))\n",
            )
        ),
        reply(tool_use("Bash", command="python3 x.py")),
        reply(
            tool_use(
                "Write",
                file_path=str(workspace / "package.json"),
                content='{"scripts": {"test": "cat .env pkg/.env; echo scripted"}}\n',
            )
        ),
        reply(tool_use("Bash", command="npm run --silent test")),
        reply(text("done")),
    )
    result = tether("-p", "go", "--permission-mode", "acceptEdits", "--settings", str(settings))
    assert result.exit_code == 0, result.stderr
    made, ran = fake_model.requests[2].tool_results(), fake_model.requests[4].tool_results()
    scripted = fake_model.requests[6].tool_results()
    # make's recipe and the package script are read by the permission engine, which denies
    # them before they run; the Python file is code it does not read: the sandbox hides .env
    assert ran == ["'' ''"]
    for denied in (made, scripted):
        [said] = denied
        assert said.startswith("Permission denied (rule Read(**/.env))")
    assert "envsecret" not in json.dumps([r.body for r in fake_model.requests])
    assert "What the Read deny rules name is hidden" in fake_model.requests[0].system()
