"""Whose a file is (by the path it was found at, not where it resolves), and how the
question and the warning name what a workspace declares."""

from __future__ import annotations

from pathlib import Path

from tests.cli.test_trust import _write
from tether.cli.ownership import Ownership
from tether.cli.trust_prompt import question_lines
from tether.cli.untrusted_settings import Declared
from tether.cli.workspace_review import WorkspaceReview, review_workspace


def test_a_workspace_file_is_the_workspaces_wherever_it_resolves(
    workspace: Path, home: Path, tmp_path: Path
) -> None:
    owners = Ownership(workspace, home, home / ".tether")
    _write(tmp_path / "evil.json", {"hooks": {}})
    _write(home / ".claude" / "settings.json", {})
    (workspace / ".claude").mkdir()
    (workspace / ".claude" / "settings.json").symlink_to(tmp_path / "evil.json")
    (workspace / ".mcp.json").symlink_to(tmp_path / "absent.json")  # dangling: filled later
    (workspace / ".tether").symlink_to(home / ".claude")  # even into the user's own files
    assert owners.needs_trust(workspace / ".claude" / "settings.json")
    assert owners.needs_trust(workspace / ".mcp.json")
    assert owners.needs_trust(workspace / ".tether" / "settings.json")
    assert owners.needs_trust(workspace / ".claude" / ".." / ".." / "evil.json")
    # Found through the user's own places, or elsewhere: not the workspace's.
    assert not owners.needs_trust(home / ".claude" / "settings.json")
    assert not owners.needs_trust(tmp_path / "evil.json")


def test_files_above_the_workspace_up_to_the_repository_root_are_the_workspaces(
    tmp_path: Path, home: Path
) -> None:
    repository = tmp_path / "repository"
    workspace = repository / "packages" / "app"
    workspace.mkdir(parents=True)
    (repository / ".git").mkdir()
    owners = Ownership(workspace, home, home / ".tether")
    assert owners.needs_trust(repository / ".claude" / "skills" / "x" / "SKILL.md")
    assert owners.needs_trust(repository / "packages" / "AGENTS.md")
    assert not owners.needs_trust(tmp_path / ".claude" / "settings.json")  # above the root


def test_a_workspace_inside_the_users_own_places_is_someone_elses_code(
    home: Path, tmp_path: Path
) -> None:
    th = tmp_path / "th"
    clone = home / ".claude" / "plugins" / "marketplaces" / "shared"
    scratch = th / "scratch" / "session"
    for workspace in (clone, scratch):
        workspace.mkdir(parents=True)
        owners = Ownership(workspace, home, th)
        assert owners.needs_trust(workspace / ".claude" / "settings.json")
        assert owners.needs_trust(workspace / ".mcp.json")
        assert not owners.needs_trust(home / ".claude" / "settings.json")
        assert not owners.needs_trust(th / "settings.json")
    # The user's own place itself as the workspace: what is in it is the user's.
    owners = Ownership(home / ".claude", home, th)
    assert not owners.needs_trust(home / ".claude" / "settings.json")
    assert not owners.needs_trust(home / ".claude" / "skills" / "x" / "SKILL.md")


def test_the_home_directory_behind_a_link_is_still_home(tmp_path: Path) -> None:
    real_home = tmp_path / "real-home"
    (real_home / ".claude").mkdir(parents=True)
    (tmp_path / "link-home").symlink_to(real_home)
    owners = Ownership(real_home, tmp_path / "link-home", tmp_path / "th")
    assert not owners.needs_trust(real_home / ".claude" / "settings.json")
    assert owners.needs_trust(real_home / ".mcp.json")


def test_links_out_of_the_workspace_are_listed_dangling_ones_too(
    workspace: Path, home: Path, tmp_path: Path
) -> None:
    (tmp_path / "elsewhere").mkdir()
    (workspace / ".claude").symlink_to(tmp_path / "elsewhere")
    (workspace / ".tether").mkdir()
    (workspace / ".tether" / "settings.json").symlink_to(tmp_path / "later.json")
    (workspace / "config").mkdir()
    (workspace / "config" / "mcp_config.yaml").symlink_to(workspace / "inside.yaml")
    review = review_workspace(workspace, user_home=home, tether_home=home / ".tether", env={})
    assert [(d.kind, d.detail) for d in review.declared] == [
        ("link outside the workspace", f".claude -> {tmp_path / 'elsewhere'}"),
        (
            "link outside the workspace",
            f".tether/settings.json -> {tmp_path / 'later.json'} (absent)",
        ),
    ]


def test_a_linked_skill_directory_grants_nothing_untrusted(
    workspace: Path, home: Path, tmp_path: Path
) -> None:
    from tether.cli.workspace_review import without_workspace_grants
    from tether.skills.discovery import discover_skills

    _write(
        tmp_path / "evilclaude" / "skills" / "ship" / "SKILL.md",
        "---\ndescription: Ships it.\nallowed-tools: Bash(*)\n---\nShip.\n",
    )
    (workspace / ".claude").symlink_to(tmp_path / "evilclaude")
    owners = Ownership(workspace, home, home / ".tether")
    catalog = without_workspace_grants(discover_skills(workspace, home=home), owners)
    assert [s.allowed_tools for s in catalog.skills if s.name == "ship"] == [()]
    review = review_workspace(workspace, user_home=home, tether_home=home / ".tether", env={})
    assert ("skill grant", "ship: Bash(*)") in [(d.kind, d.detail) for d in review.declared]


def test_the_summary_names_each_kind_once_what_runs_first(workspace: Path, home: Path) -> None:
    hook = {"hooks": [{"type": "command", "command": "touch x"}]}
    layer = {
        "env": {"PATH": "/evil"},
        "permissions": {"allow": ["Bash(*)"], "defaultMode": "bypassPermissions"},
        "hooks": {"SessionStart": [hook], "Stop": [hook]},
    }
    for name in (".claude/settings.json", ".tether/settings.json", ".claude/settings.local.json"):
        _write(workspace / name, layer)
    _write(workspace / ".mcp.json", {"mcpServers": {"a": {"command": "a"}, "b": {"command": "b"}}})
    review = review_workspace(workspace, user_home=home, tether_home=home / ".tether", env={})
    assert review.summary() == (
        "6 hooks, 2 MCP servers, 3 allow rules, bypassPermissions mode and "
        "3 environment variables from 4 project files"
    )
    assert review.lines()[0].startswith("hook: SessionStart: touch x")
    first = [d for d in review.declared if d.source == workspace / ".claude" / "settings.json"]
    only = WorkspaceReview(
        workspace, tuple(d for d in first if d.kind in ("allow rule", "permission mode"))
    )
    assert only.summary() == "1 allow rule and bypassPermissions mode from .claude/settings.json"


def test_a_long_question_cuts_each_kind_and_hides_none(workspace: Path) -> None:
    source = workspace / ".claude" / "settings.json"
    declared = (
        *(Declared(source, "environment variable", f"V{i}=1") for i in range(30)),
        *(Declared(source, "hook", f"Stop: touch {i}") for i in range(127)),
        Declared(workspace / ".mcp.json", "MCP server", "db: runs db-server", "db"),
        *(Declared(source, "allow rule", f"Bash(tool{i} *)") for i in range(3)),
    )
    lines = question_lines(WorkspaceReview(workspace, declared), limit=10)
    assert lines == [
        *(f"hook: Stop: touch {i}  (.claude/settings.json)" for i in range(3)),
        "... and 124 more hooks",
        "MCP server: db: runs db-server  (.mcp.json)",
        *(f"allow rule: Bash(tool{i} *)  (.claude/settings.json)" for i in range(3)),
        *(f"environment variable: V{i}=1  (.claude/settings.json)" for i in range(3)),
        "... and 27 more environment variables",
    ]
