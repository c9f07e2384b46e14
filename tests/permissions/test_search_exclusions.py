"""Recursive searches that leave the denied files out by name: grep's `--exclude` with
`--exclude-dir` of the same glob (files and directories), rg's `-g '!GLOB'` unless a later
glob takes the name back (rg: the glob given last wins). What is excluded is not a read of
it; any doubt stays asked."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tether.permissions import PermissionContext, decide, load_rules


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    (ws / "pkg" / ".env").mkdir(parents=True)
    (ws / "pkg" / ".env" / "keys.txt").write_text("K=1\n")
    (ws / ".env").write_text("K=2\n")
    (ws / "a.txt").write_text("K=3\n")
    return ws


def _ctx(ws: Path, deny: str = "Read(**/.env)") -> PermissionContext:
    rules = {"permissions": {"allow": ["Bash(grep *)", "Bash(rg *)"], "deny": [deny]}}
    return PermissionContext(
        mode="default",
        rules=load_rules([(ws / ".claude" / "settings.json", rules)], seed_yaml=None),
        workspace=ws,
        cwd=ws,
        home=ws.parent / "home",
    )


@pytest.mark.parametrize(
    "command",
    [
        "grep -rn K --exclude=.env --exclude-dir=.env .",
        "grep -rn K --exclude-dir=.env --exclude=.env .",
        "grep -rn K --exclude .env --exclude-dir .env .",
        "grep -rn K --exclude='.e*' --exclude-dir='.e*' .",
        "rg --hidden -g '!.env' K",
        "rg --hidden -g'!.env' K",
        "rg --hidden --glob=!.env K",
        "rg -g '!.env' K",
        # rg's case-insensitive globs, judged so.
        "rg --hidden --iglob '!.ENV' K",
        "rg --hidden --iglob='!.EnV' K",
        "rg --hidden --glob-case-insensitive -g '!.ENV' K",
        "rg --hidden --iglob '*.TXT' K",
        # rg's `{a,b}` alternations, each alternative a glob.
        "rg -g '!{.env,.git}' K",
        "rg --hidden -g '!{.env,.git}' K",
        "rg --hidden -g '*.{txt,py}' K",
    ],
)
def test_a_search_excluding_every_denied_name_is_allowed(command: str, ws: Path) -> None:
    verdict = decide("Bash", {"command": command}, _ctx(ws))
    assert verdict.behavior == "allow", (command, verdict.reason)


@pytest.mark.parametrize(
    "command",
    [
        "grep -rn K --exclude=.env .",
        "grep -rn K --exclude-dir=.env .",
        "grep -rn K --exclude=.env --exclude-dir=.env --include=.env .",
        "grep -rn K --include=.env --exclude=.env --exclude-dir=.env .",
        "grep -rn K --exclude=.env --exclude-dir=.git .",
        "grep -rn K --exclude=.env --exclude-dir=.env . .env",
        "rg --hidden -g '!.env' -g '.env' K",
        "rg --hidden -g '!.env' -g '*' K",
        "rg --hidden -g '!.env' --glob=.e* K",
        "rg --hidden -g .env K",
        # Allowed before: an included glob with a `/` takes paths whatever their name, and
        # rg matches `--iglob` ones after the `-g` ones (the last matching one wins).
        "rg --hidden -g '*.txt' -g 'pkg/**' K",
        "rg --hidden -g '*.txt' -g '/.env' K",
        "rg --hidden -g '*.txt' -g 'pkg/' K",
        "rg --hidden -g '!.env' --iglob '*' K",
        "rg --hidden -g '!.env' --iglob '.ENV' K",
        "rg --hidden --iglob '!.env' -g '*' K",
        # Case-sensitive, or not judged (a class): left as asked.
        "rg --hidden -g '!.ENV' K",
        "rg --hidden --glob-case-insensitive --no-glob-case-insensitive -g '!.ENV' K",
        "rg --hidden --iglob '![.]ENV' K",
        # Allowed before: a glob's `{a,b}` alternatives were not seen to match `.env`.
        "rg --hidden -g '{.env,x}' K",
        "rg --hidden -g '*.{env,txt}' K",
        "rg --hidden -g '.{e,f}nv' K",
        "rg --hidden -g '!.env' -g '{*}' K",
        "rg --hidden --iglob '{.ENV,x}' K",
        "rg --hidden -g '!.env' --iglob '{.env,x}' K",
        "rg --hidden -g '!x' -g '{a.txt,{b,.env}}' K",
    ],
)
def test_a_search_that_may_still_read_a_denied_name_is_not_allowed(command: str, ws: Path) -> None:
    verdict = decide("Bash", {"command": command}, _ctx(ws))
    assert verdict.behavior != "allow", (command, verdict.reason)


@pytest.mark.skipif(shutil.which("grep") is None, reason="needs grep")
def test_grep_itself_skips_both_excluded_forms(ws: Path) -> None:
    """What the verdict relies on, shown by grep: `--exclude` leaves out the file `.env`,
    `--exclude-dir` the directory; either alone reads the other."""
    both = ["grep", "-rn", "K", "--exclude=.env", "--exclude-dir=.env", "."]
    run = subprocess.run(both, cwd=ws, capture_output=True, text=True, check=False)
    assert run.stdout.strip() == "./a.txt:1:K=3"
    files_only = subprocess.run(
        [*both[:4], "."], cwd=ws, capture_output=True, text=True, check=False
    )
    assert "pkg/.env/keys.txt" in files_only.stdout


@pytest.mark.parametrize(
    "command",
    [
        "rg --hidden --iglob '*.TXT' K",
        "rg --hidden --glob-case-insensitive -g '*.TXT' K",
        "rg --hidden -g '*.md' --iglob '*.Txt' K",
    ],
)
def test_a_case_insensitive_include_takes_the_name_in_any_case(command: str, ws: Path) -> None:
    # `--iglob` was not read; judged case-sensitively it would leave `keys.txt` out.
    verdict = decide("Bash", {"command": command}, _ctx(ws, "Read(**/keys.txt)"))
    assert verdict.behavior != "allow", (command, verdict.reason)


@pytest.mark.parametrize(
    "command",
    [
        "grep -rn K --exclude-dir=.env .",
        "grep -rn K --exclude=.env --exclude-dir=.env --include='*.txt' .",
        "grep -rn K --exclude-dir='.e*' --exclude='.e*' .",
        "rg --hidden -g '!.env' K",
        "rg --hidden --iglob '!.ENV' K",
        "rg --hidden -g '!.env' K pkg",
    ],
)
def test_a_rule_on_what_is_below_a_directory_stays_in_reach(command: str, ws: Path) -> None:
    # A rule ending in `**` may name any file: an exclusion by name never takes it out.
    verdict = decide("Bash", {"command": command}, _ctx(ws, "Read(**/.env/**)"))
    assert verdict.behavior != "allow", (command, verdict.reason)
