"""In a live session (the fake model asking for each command, headless, default mode, the
sandbox off, `Bash(deno *)` allowed and `.env` denied): deno's options before its subcommand
(`-q`, `-L LEVEL`, `--log-level=`) no longer hide the subcommand. Before, each line was read
as `deno SCRIPT` and ran unchecked: the task printed `.env`, the eval read it, `run -A` had
every permission."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from tether.testing import FakeModelServer, reply, text, tool_use
from tether.testing.cli_runner import CliResult

COMMANDS = [
    "deno -q task c",
    "deno --log-level=info eval 'Deno.readTextFileSync(\".env\")'",
    "deno -L info run -A leak.ts",
    "deno --quiet run --ext ts -A leak.ts",
]


def test_deno_global_options_do_not_hide_what_deno_runs(
    fake_model: FakeModelServer, tether: Callable[..., CliResult], workspace: Path, tmp_path: Path
) -> None:
    (workspace / ".env").write_text("DB_PASSWORD=secret\n")
    (workspace / "deno.json").write_text('{"tasks": {"c": "cat .env"}}\n')
    (workspace / "leak.ts").write_text('Deno.copyFileSync(".env", "../leak")\n')
    settings = tmp_path / "settings.json"
    settings.write_text(
        json.dumps(
            {
                "permissions": {"allow": ["Bash(deno *)"], "deny": ["Read(./.env)"]},
                "sandbox": {"enabled": False},
            }
        )
    )
    fake_model.script(
        *(reply(tool_use("Bash", command=command)) for command in COMMANDS), reply(text("done"))
    )
    result = tether("-p", "go", "--permission-mode", "default", "--settings", str(settings))
    assert result.exit_code == 0, result.stderr
    results = [fake_model.requests[i + 1].tool_results()[0] for i in range(len(COMMANDS))]
    env = f"reading {workspace}/.env is denied by Read(./.env)"
    asked = "Permission denied: not allowed without asking, and nobody can be asked here: "
    everything = "deno --allow-all gives the code it runs every permission"
    assert results == [
        f"Permission denied (rule Read(./.env)): deno runs c from deno.json: {env}",
        f"Permission denied (rule Read(./.env)): deno's code names .env: {env}",
        f"{asked}{everything}",
        f"{asked}{everything}",
    ]
