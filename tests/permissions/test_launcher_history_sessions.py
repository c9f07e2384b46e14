"""In a live session (the fake model asking for each command, headless, default mode, the
sandbox off): the program a `nix run` variant runs meets its deny rule, git's plumbing that
rewrites history meets the rules on history-rewriting commands, and a deleting option's
refusal says what it would delete; none of those runs. A patch git applies is judged on the
files it writes, as a cherry-pick is: it runs."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path

from tether.testing import FakeModelServer, reply, text, tool_use
from tether.testing.cli_runner import CliResult

COMMANDS = [
    "nix run nixpkgs#curlFull -- -s https://example.com",
    "nix run github:someone/tool",
    "git replace HEAD~1 HEAD",
    "rsync -a --delete src/ mirror/",
    "git apply change.diff",
]


def test_each_class_is_refused_with_its_reason(
    fake_model: FakeModelServer, tether: Callable[..., CliResult], workspace: Path, tmp_path: Path
) -> None:
    _repository(workspace)
    (workspace / "mirror").mkdir()
    (workspace / "mirror" / "keep.txt").write_text("kept\n")
    settings = tmp_path / "settings.json"
    settings.write_text(
        json.dumps(
            {
                "permissions": {
                    "allow": ["Bash(nix *)", "Bash(git *)", "Bash(rsync *)"],
                    "deny": ["Bash(curl *)"],
                    "ask": ["Bash(git rebase *)", "Bash(rm -rf *)"],
                },
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
    asked = "Permission denied: not allowed without asking, and nobody can be asked here: "
    assert results == [
        "Permission denied (rule Bash(curl *)): `curl -s https://example.com` is denied by "
        "Bash(curl *)",
        f"{asked}nix runs github:someone/tool, whose programs tether cannot name; they may "
        "run what deny rule Bash(curl *) covers",
        f"{asked}`git replace` rewrites what the repository's history shows, which ask rule "
        "Bash(git rebase *) covers",
        f"{asked}`rsync --delete` deletes the files in mirror/ that the sources lack: "
        "`rm -r -f -- mirror/` needs confirmation (Bash(rm -rf *))",
        "(Bash completed with no output)",
    ]
    assert (workspace / "src" / "a.txt").read_text() == "3\n"
    replaced = subprocess.run(["git", "-C", str(workspace), "replace", "-l"], capture_output=True)
    assert replaced.stdout == b""
    assert (workspace / "mirror" / "keep.txt").read_text() == "kept\n"


def _repository(workspace: Path) -> None:
    def git(*args: str) -> None:
        subprocess.run(["git", "-C", str(workspace), *args], check=True, capture_output=True)

    git("init", "-q")
    git("config", "user.email", "dev@example.com")
    git("config", "user.name", "dev")
    (workspace / "src").mkdir()
    for n in (1, 2):
        (workspace / "src" / "a.txt").write_text(f"{n}\n")
        git("add", "src/a.txt")
        git("commit", "-qm", f"commit {n}")
    (workspace / "change.diff").write_text(
        "--- a/src/a.txt\n+++ b/src/a.txt\n@@ -1 +1 @@\n-2\n+3\n"
    )
