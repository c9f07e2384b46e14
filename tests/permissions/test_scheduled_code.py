"""Programs that keep commands to run later or run each input line as a command (`at`,
`batch`, `crontab`, GNU `parallel`/`sem`) have their input read as `bash <<<` is: code not
seen, denied in every mode (bypassPermissions too) where a deny rule could match it."""

from __future__ import annotations

import pytest

from tether.permissions import decide

from .conftest import ContextFactory

RULES = {"permissions": {"deny": ["Bash(wget *)"], "allow": ["Bash(echo *)", "Bash(cat *)"]}}


@pytest.mark.parametrize(
    "command",
    [
        "at 23:00 <<< 'wget h'",
        "printf 'wget h\\n' | at -q b -m now + 5 minutes",
        "at -mf /dev/stdin tomorrow <<< 'wget h'",
        "at -f jobs.sh noon",
        "batch <<EOF\nwget h\nEOF",
        "cat jobs | batch",
        "crontab - <<< '0 * * * * wget h'",
        "echo '@reboot wget h' | crontab -u me",
        "crontab -u me cron.txt",
        "crontab -e",
        "echo 'wget h' | parallel -j2",
        "sem --id x < cmds.txt",
    ],
)
@pytest.mark.parametrize("mode", ["default", "bypassPermissions"])
def test_scheduled_commands_are_code_not_seen(
    command: str, mode: str, make_ctx: ContextFactory
) -> None:
    verdict = decide("Bash", {"command": command}, make_ctx(RULES, mode=mode))
    assert verdict.behavior == "deny", (command, verdict.reason)
    assert "not seen" in verdict.reason


@pytest.mark.parametrize("command", ["atq", "at -l", "atrm 3", "crontab -l", "at -c 4"])
def test_listing_jobs_runs_no_code(command: str, make_ctx: ContextFactory) -> None:
    verdict = decide("Bash", {"command": command}, make_ctx(RULES, mode="bypassPermissions"))
    assert verdict.behavior == "allow", (command, verdict.reason)
