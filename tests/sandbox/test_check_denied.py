"""`tether sandbox check` lists what the `Read` deny rules hide (bounded, and says what the
bounds cut), as it lists the protected and hidden files."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from tether.cli.sandbox_cmd import DENIED_LISTED, denied_lines
from tether.main import main
from tether.permissions.read_denials import read_deny_matcher
from tether.permissions.rules import RuleSet, parse_rule
from tether.sandbox import ReadDenials, Sandbox, SandboxSettings, plan_sandbox
from tether.sandbox.denied_reads import Budget, DeniedScan

from .conftest import STATUS, needs_bwrap

pytestmark = needs_bwrap


def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, rules: list[str]) -> Path:
    base = tmp_path.resolve()
    for name in ("ws/.tether", "home", "tether"):
        (base / name).mkdir(parents=True)
    settings = {"permissions": {"deny": rules}}
    (base / "ws" / ".tether" / "settings.json").write_text(json.dumps(settings))
    monkeypatch.setenv("HOME", str(base / "home"))
    monkeypatch.setenv("TETHER_HOME", str(base / "tether"))
    monkeypatch.chdir(base / "ws")
    return base / "ws"


def write(path: Path, text: str = "SECRET=1\n") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_the_check_lists_what_read_rules_hide(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = workspace(tmp_path, monkeypatch, ["Read(**/.env)", "Read(keys/**)", "Read(./*.pem)"])
    write(ws / ".env")
    write(ws / "app" / "deep" / ".env")
    write(ws / "keys" / "a.txt")
    write(ws / "server.pem")
    write(ws / "app" / "server.pem")  # `./*.pem`: the top level only
    write(ws / "app" / "env.txt")
    status = main(["sandbox", "check"])
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if "hidden by Read deny rules" in x)
    assert line.startswith("  hidden by Read deny rules: 4 paths now: ")
    for shown in (
        ".env (Read(**/.env))",
        "app/deep/.env (Read(**/.env))",
        "keys/ (Read(keys/**))",
        "server.pem (Read(./*.pem))",
    ):
        assert shown in line
    assert "app/server.pem" not in line
    assert "env.txt" not in line
    assert "NOTICE" not in out
    assert status == 0, out


def test_without_read_rules_the_check_says_nothing_is_hidden(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = workspace(tmp_path, monkeypatch, ["Bash(rm *)", "Read"])
    write(ws / ".env")
    main(["sandbox", "check"])
    out = capsys.readouterr().out
    assert "  hidden by Read deny rules: nothing (no Read deny rule names a path)" in out


def test_a_long_list_is_cut_and_counted(tmp_path: Path) -> None:
    ws, home = tmp_path.resolve() / "ws", tmp_path.resolve() / "home"
    home.mkdir()
    for i in range(DENIED_LISTED + 7):
        write(ws / f"d{i:02}" / ".env")
    sandbox = _sandbox(ws, home, tmp_path, Budget())
    (line,) = denied_lines(sandbox, ws, home)
    assert line.startswith(f"  hidden by Read deny rules: {DENIED_LISTED + 7} paths now: ")
    assert line.count("(Read(**/.env))") == DENIED_LISTED
    assert " and 7 more (looked for again at each command)" in line


def test_the_check_says_what_the_walks_bound_cut(tmp_path: Path) -> None:
    ws, home = tmp_path.resolve() / "ws", tmp_path.resolve() / "home"
    home.mkdir()
    for i in range(30):
        write(ws / f"d{i:02}" / "x" / "file.txt")
    write(ws / ".env")
    sandbox = _sandbox(ws, home, tmp_path, Budget(entries=10))
    lines = denied_lines(sandbox, ws, home)
    assert len(lines) == 2, lines
    assert lines[1].startswith("  NOTICE: "), lines
    assert "bound of 10 entries after 31 entries" in lines[1], lines
    assert str(ws) in lines[1], lines


def _sandbox(ws: Path, home: Path, tmp_path: Path, budget: Budget) -> Sandbox:
    rules = RuleSet((parse_rule("Read(**/.env)", "deny", source="test", project_root=ws),))
    match, prefixes, names = read_deny_matcher(rules, workspace=ws, home=home)
    sandbox, _, _ = plan_sandbox(
        SandboxSettings(enabled=True),
        STATUS,
        workspace=ws,
        scratch_dir=tmp_path / "scratch",
        home=home,
    )
    assert sandbox is not None
    scan = DeniedScan(ReadDenials(match, prefixes, names), budget)
    return dataclasses.replace(sandbox, denied_scan=scan)
