"""`ToolGate.for_subagent`: the parent's rules, a mode of its own, grants that do not leak."""

from __future__ import annotations

from pathlib import Path

from tether.core.gate import RuleSources, ToolGate
from tether.permissions import PermissionContext, decide, load_rules


def gate(workspace: Path, home: Path) -> ToolGate:
    sources = RuleSources(extra_deny=["Bash(rm *)"])
    rules = load_rules((), seed_yaml=None, extra_deny=sources.extra_deny)
    context = PermissionContext(
        mode="bypassPermissions", rules=rules, workspace=workspace, cwd=workspace, home=home
    )
    return ToolGate(context, sources)


def behavior(g: ToolGate, command: str) -> str:
    return decide("Bash", {"command": command}, g.permissions).behavior


def test_same_rules_own_mode_and_grants(workspace: Path, home: Path) -> None:
    remembered: list[str] = []
    parent = gate(workspace, home)
    parent.remember = remembered.append
    parent.grant_for_turn(["Bash(make *)"])
    child = parent.for_subagent(shell_cwd=lambda: workspace / "sub", read_only=False)
    explorer = parent.for_subagent(shell_cwd=None, read_only=True)

    assert (child.permissions.mode, explorer.permissions.mode) == ("bypassPermissions", "plan")
    assert (behavior(child, "rm x"), behavior(explorer, "touch x")) == ("deny", "deny")
    assert child.shell_cwd is not None
    assert child.shell_cwd() == workspace / "sub"
    assert child._turn_grants == ["Bash(make *)"]

    child.grant_for_turn(["Bash(npm test)"])
    child.end_turn()
    assert parent._turn_grants == ["Bash(make *)"]

    child.allow_always("Bash(cargo build)")
    assert remembered == ["Bash(cargo build)"]
    assert parent.sources.extra_allow == ["Bash(cargo build)"]
    assert child.sources.extra_allow == ["Bash(cargo build)"]
    assert child.hooks is parent.hooks
