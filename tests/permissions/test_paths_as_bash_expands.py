"""Paths whose meaning bash decides at run time, judged for what they may be: a process's
directory under /proc reached through a variable or a glob in the pid's place (what its `cwd`
and `root` links stand for), and `~//x`, which bash expands to the home followed by `//x`."""

from __future__ import annotations

from pathlib import Path

import pytest

from tether.permissions import Decision, Mode, PermissionContext, decide, load_rules

from .conftest import ContextFactory, Tree

DENIES = ["Read(./.env)", "Read(./secrets/**)", "Read(~/.ssh/**)", "Edit(./.env)"]


def bash(command: str, ctx: PermissionContext) -> Decision:
    return decide("Bash", {"command": command}, ctx)


# 5. A process's directory named with a variable or a glob for the pid.

STANDING_FOR_DENIED = [
    "cat /proc/$PPID/cwd/.env",
    "head /proc/${BASHPID}/cwd/secrets/api.key",
    "cat /proc/[0-9]*/cwd/.env",
    "cat /proc/$(pgrep -n node)/cwd/.env",
    "tail /proc/*/task/*/cwd/.env",
    "cat /proc/$$/root/$HOME/.ssh/id_rsa",
    "cat /proc/$$/fd/3/../.env",
    "cat /proc/$$/c*/.env",
    "grep KEY /proc/*/cwd/.env",
]


@pytest.mark.parametrize("mode", ["default", "bypassPermissions", "acceptEdits"])
def test_a_process_directory_not_named_literally_may_stand_for_denied_files(
    mode: Mode, make_ctx: ContextFactory
) -> None:
    allowing = ["Bash(cat *)", "Bash(head *)", "Bash(tail *)", "Bash(grep *)", "Bash(pgrep *)"]
    ctx = make_ctx({"permissions": {"deny": DENIES, "allow": allowing}}, mode=mode)
    found = {c: bash(c, ctx).behavior for c in STANDING_FOR_DENIED}
    assert {c: b in ("ask", "deny") for c, b in found.items()} == dict.fromkeys(
        STANDING_FOR_DENIED, True
    ), found


def test_writes_through_a_process_directory(make_ctx: ContextFactory) -> None:
    ctx = make_ctx({"permissions": {"deny": DENIES}}, mode="bypassPermissions")
    assert bash("echo x > /proc/$$/cwd/.env", ctx).behavior in ("ask", "deny")
    accept = make_ctx(mode="acceptEdits")
    for command in ("echo x > /proc/*/cwd/.claude/settings.json", "cp a /proc/$$/cwd/.mcp.json"):
        assert bash(command, accept).behavior == "ask", command


def test_a_process_directory_is_unknown_without_deny_rules(make_ctx: ContextFactory) -> None:
    ctx = make_ctx({"permissions": {"allow": ["Bash(cat *)"]}}, mode="plan")
    for command in ("cat /proc/$$/cwd/notes.txt", "cat /proc/*/environ"):
        decision = bash(command, ctx)
        assert decision.behavior == "ask", decision
        assert "process's directory" in decision.reason


def test_other_proc_files_are_judged_as_before(make_ctx: ContextFactory) -> None:
    ctx = make_ctx({"permissions": {"deny": DENIES, "allow": ["Bash(cat *)"]}})
    for command in ("cat /proc/cpuinfo", "cat /proc/sys/kernel/ostype", "cat /procx/$$/a"):
        assert bash(command, ctx).behavior == "allow", command


# 6. `~//x` is the home's `x`.


@pytest.fixture
def home_holding_ws(tree: Tree) -> PermissionContext:
    """The workspace inside the home, as a project usually is: `~//ws/.env` is its `.env`."""
    rules = load_rules(
        [(tree.ws / ".claude" / "settings.json", {"permissions": {"deny": DENIES}})],
        seed_yaml=None,
    )

    def user_home(name: str) -> Path | None:
        return tree.root if name == "me" else None

    return PermissionContext(
        mode="bypassPermissions",
        rules=rules,
        workspace=tree.ws,
        cwd=tree.ws / "src",
        home=tree.root,
        user_home=user_home,
    )


@pytest.mark.parametrize(
    "command",
    [
        "cat ~//ws/.env",
        "cat ~///ws/./.env",
        "cat ~me//ws/.env",
        "cat ~me///ws/secrets//api.key",
        "head ~//ws/secrets/*",
        "echo x >> ~//ws/.env",
    ],
)
def test_a_doubled_slash_after_the_home_stays_below_it(
    command: str, home_holding_ws: PermissionContext
) -> None:
    assert bash(command, home_holding_ws).behavior == "deny", bash(command, home_holding_ws)


def test_file_tools_read_a_doubled_slash_the_same_way(home_holding_ws: PermissionContext) -> None:
    for path in ("~//ws/.env", "~me//ws/.env", "~///ws/secrets/api.key"):
        assert decide("Read", {"file_path": path}, home_holding_ws).behavior == "deny", path
