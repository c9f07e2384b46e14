"""The adversarial corpus (corpus.yaml), through `decide` and through
`tether permissions check --batch`: every call must get exactly the decision written there, and
no command a rule should stop may be allowed."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest
import yaml

from tether.config.trust import record_trust
from tether.main import main as tether_main
from tether.permissions import decide

from .conftest import ContextFactory, Tree

CORPUS = yaml.safe_load((Path(__file__).parent / "corpus.yaml").read_text())
CASES: list[dict[str, Any]] = CORPUS["cases"]


def _call(case: dict[str, Any], tree: Tree) -> tuple[str, dict[str, Any]]:
    if "cmd" in case:
        return "Bash", {"command": tree.fill(case["cmd"])}
    filled = {k: tree.fill(v) if isinstance(v, str) else v for k, v in case["input"].items()}
    return case["tool"], filled


def _case_id(case: dict[str, Any]) -> str:
    what = case.get("cmd") or f"{case['tool']} {json.dumps(case['input'])}"
    return f"{case.get('mode', 'default')}: {what}"[:90]


def test_corpus_is_big_and_covers_every_mode() -> None:
    assert len(CASES) >= 150
    assert {c.get("mode", "default") for c in CASES} == {
        "default",
        "acceptEdits",
        "plan",
        "dontAsk",
        "bypassPermissions",
    }


@pytest.mark.parametrize("case", CASES, ids=[_case_id(c) for c in CASES])
def test_decide(case: dict[str, Any], tree: Tree, make_ctx: ContextFactory) -> None:
    ctx = make_ctx(CORPUS["settings"], seed=CORPUS["seed"], mode=case.get("mode", "default"))
    tool, tool_input = _call(case, tree)
    decision = decide(tool, tool_input, ctx)
    assert decision.behavior == case["expect"], decision


def test_batch_command_agrees(
    tree: Tree, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The same corpus through the command line, one batch per mode, with the rules loaded from
    files as a session would load them."""
    settings = tree.ws / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps(CORPUS["settings"]))
    (tree.ws / ".tether").mkdir()
    (tree.ws / ".tether" / "permissions.yaml").write_text(CORPUS["seed"])
    monkeypatch.setenv("HOME", str(tree.home))
    monkeypatch.setenv("TETHER_HOME", str(tree.root / "tether-home"))
    # The corpus's allow rules come from the workspace's own files: the user trusts it.
    record_trust(tree.ws, True, tether_home=tree.root / "tether-home", user_home=tree.home)
    by_mode: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for case in CASES:
        by_mode[case.get("mode", "default")].append(case)
    wrong: list[str] = []
    for mode, cases in by_mode.items():
        batch = tree.root / f"{mode}.jsonl"
        lines = []
        for case in cases:
            tool, tool_input = _call(case, tree)
            lines.append(json.dumps({"tool": tool, "input": tool_input}))
        batch.write_text("\n".join(lines) + "\n")
        argv = ["permissions", "check", "--batch", str(batch), "--mode", mode]
        assert tether_main([*argv, "--cwd", str(tree.ws)]) == 0
        out = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
        assert len(out) == len(cases)
        for case, got in zip(cases, out, strict=True):
            if got["decision"] != case["expect"]:
                wrong.append(f"{_case_id(case)}: {got}")
    assert wrong == []


DANGEROUS = [
    "git push origin main",
    "rm -rf build",
    "cat .env",
    "head -c 5 secrets/key.pem",
    "cat ~/.ssh/id_rsa",
    "echo x > ~/.bashrc",
    "PATH=/tmp/evil ls",
    "$CMD",
    "cat s*/key.pem",
    "npm install left-pad",
]
TEMPLATES = [
    "{}",
    "ls; {}",
    "ls && {}",
    "false || {}",
    "ls | {}",
    "{} &",
    "ls\n{}",
    "echo $({})",
    "echo `{}`",
    "cat <({})",
    "({})",
    "{{ {}; }}",
    "if true; then {}; fi",
    "for i in 1; do {}; done",
    "while true; do {}; done",
    "case x in x) {};; esac",
    "f() {{ {}; }}; f",
    "bash -c '{}'",
    'sh -c "{}"',
    "eval '{}'",
    "timeout 5 {}",
    "nice -n 1 {}",
    "nohup {}",
    "env A=1 {}",
    "command {}",
    "time {}",
    "watch {}",
    "cat <<EOF\n$({})\nEOF",
    "cat <<EOF\n`{}`\nEOF",
    "x=$({})",
]


@pytest.mark.parametrize("template", TEMPLATES)
def test_wrapped_dangerous_commands_are_never_allowed(
    template: str, make_ctx: ContextFactory
) -> None:
    """Every way of hiding a command the rules stop keeps it stopped: denied stays denied,
    and nothing is allowed."""
    ctx = make_ctx(CORPUS["settings"], seed=CORPUS["seed"])
    allowed: list[str] = []
    for core in DANGEROUS:
        command = template.replace("{}", core, 1).replace("{{", "{").replace("}}", "}")
        bare = decide("Bash", {"command": core}, ctx).behavior
        wrapped = decide("Bash", {"command": command}, ctx).behavior
        if wrapped == "allow" or (bare == "deny" and wrapped != "deny"):
            allowed.append(f"{command!r}: {wrapped} (alone: {bare})")
    assert allowed == []
