"""The attack corpora (corpus/*.jsonl): every row is one Bash command, the setup it runs under
(corpus/setups.json: a workspace to build and the settings read from it) and the decision the
engine must give it, through `decide`, the entry the Bash tool's permission gate calls.

`expected` is a bound, as the attackers judged it: `allow` must be allowed (a routine command the
rules cover), `ask` must not run without a person (ask or deny), `deny` must be denied. A row the
engine gets wrong today names its class of defect in `xfail`; the mark is strict, so fixing the
class turns these rows red until the mark is removed from the data.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import pytest

from tether.permissions import PermissionContext, decide, load_rules

CORPUS = Path(__file__).parent / "corpus"
SETUPS: dict[str, Any] = json.loads((CORPUS / "setups.json").read_text())
Expected = Literal["allow", "ask", "deny"]
ACCEPTED: dict[Expected, set[str]] = {
    "allow": {"allow"},
    "ask": {"ask", "deny"},
    "deny": {"deny"},
}


@dataclass(frozen=True)
class Row:
    corpus_class: str
    line: int
    command: str
    setup: str
    expected: Expected
    reason: str
    xfail: str | None

    @property
    def test_id(self) -> str:
        return f"{self.corpus_class}:{self.line}"


def _rows() -> list[Row]:
    rows: list[Row] = []
    for path in sorted(CORPUS.glob("*.jsonl")):
        # Split on newlines alone: commands hold other line separators (\r, \x85, \u2028).
        for number, line in enumerate(path.read_text().split("\n")[:-1], 1):
            data = json.loads(line)
            rows.append(
                Row(
                    path.stem,
                    number,
                    data["command"],
                    data["setup"],
                    data["expected"],
                    data["reason"],
                    data.get("xfail"),
                )
            )
    return rows


ROWS = _rows()


def _param(row: Row) -> Any:
    marks = [pytest.mark.xfail(strict=True, reason=row.xfail)] if row.xfail else []
    return pytest.param(row, id=row.test_id, marks=marks)


@dataclass(frozen=True)
class Built:
    """One setup's workspace on disk and the context its settings give."""

    root: Path
    context: PermissionContext

    def fill(self, text: str) -> str:
        ws = self.context.workspace
        return (
            text.replace("{ws}", str(ws))
            .replace("{home}", str(self.root / "home"))
            .replace("{outside}", str(self.root / "outside"))
            .replace("{root}", str(self.root))
        )


def _build(root: Path, workspace: dict[str, Any]) -> None:
    for name, text in workspace["files"].items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text.replace("{root}", str(root)))
    for name, target in workspace["symlinks"].items():
        (root / name).symlink_to(target)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Built]:
    """Every setup, each workspace built once for the module (the engine only reads them)."""
    roots: dict[str, Path] = {}
    for name, workspace in SETUPS["workspaces"].items():
        roots[name] = tmp_path_factory.mktemp(name)
        _build(roots[name], workspace)
    setups: dict[str, Built] = {}
    for name, setup in SETUPS["setups"].items():
        root = roots[setup["workspace"]]
        ws = root / "ws"
        rules = load_rules([(ws / ".claude" / "settings.json", setup["settings"])], seed_yaml=None)
        context = PermissionContext(
            mode="default", rules=rules, workspace=ws, cwd=ws, home=root / "home"
        )
        setups[name] = Built(root, context)
    return setups


def test_rows_are_unique_and_well_formed() -> None:
    seen: dict[tuple[str, str], str] = {}
    for row in ROWS:
        assert row.setup in SETUPS["setups"], row
        assert row.expected in ACCEPTED, row
        key = (row.command, row.setup)
        assert key not in seen, f"{row.test_id} repeats {seen[key]}"
        seen[key] = row.test_id


@pytest.mark.parametrize("row", [_param(row) for row in ROWS])
def test_decision(row: Row, built: dict[str, Built]) -> None:
    setup = built[row.setup]
    decision = decide("Bash", {"command": setup.fill(row.command)}, setup.context)
    assert decision.behavior in ACCEPTED[row.expected], (row.reason, decision)
