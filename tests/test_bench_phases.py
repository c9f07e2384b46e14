"""The start-up phases bench times tether's set-up steps by wrapping them where they are
looked up: a step moved to another module made the bench end in an AttributeError before it
printed anything. Each step it names must exist where it names it."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent / "bench" / "startup_phases.py"


def _named_steps() -> list[tuple[str, str]]:
    tree = ast.parse(BENCH.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == "BUILD_STEPS" for t in node.targets)
            and isinstance(node.value, ast.Dict)
        ):
            return [ast.literal_eval(key) for key in node.value.keys if key is not None]
    raise AssertionError(f"no BUILD_STEPS table in {BENCH}")


def test_every_step_the_phases_bench_wraps_is_where_it_says() -> None:
    steps = _named_steps()
    assert len(steps) > 10
    missing = [
        f"{module}.{name}"
        for module, name in steps
        if not hasattr(importlib.import_module(module), name)
    ]
    assert missing == []
