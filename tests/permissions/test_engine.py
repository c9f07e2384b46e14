"""`decide` for file tools and other tools, the modes, and what the context controls."""

from __future__ import annotations

from pathlib import Path

from tether.permissions import Decision, PermissionContext, decide, load_rules

from .conftest import ContextFactory, Tree


def test_reads_inside_outside_and_denied(tree: Tree, make_ctx: ContextFactory) -> None:
    ctx = make_ctx({"permissions": {"deny": ["Read(./.env)"]}})
    assert decide("Read", {"file_path": "src/app.py"}, ctx) == Decision(
        "allow", None, "inside the workspace"
    )
    assert decide("Read", {"file_path": ".env"}, ctx) == Decision(
        "deny", "Read(./.env)", f"reading {tree.ws}/.env is denied by Read(./.env)"
    )
    assert decide("Read", {"file_path": "/etc/hosts"}, ctx) == Decision(
        "ask", None, "reads /etc/hosts, outside the workspace"
    )


def test_outside_reads_can_be_allowed(tree: Tree, make_ctx: ContextFactory) -> None:
    relaxed = make_ctx(ask_outside_reads=False)
    assert decide("Read", {"file_path": "/etc/hosts"}, relaxed) == Decision(
        "allow", None, "outside the workspace; no rule denies it"
    )
    scratch = make_ctx(read_dirs=(tree.outside,))
    assert decide("Read", {"file_path": str(tree.outside / "data.txt")}, scratch).behavior == (
        "allow"
    )
    assert decide("Write", {"file_path": str(tree.outside / "data.txt")}, scratch) == Decision(
        "ask", None, f"writes {tree.outside}/data.txt, outside the workspace"
    )


def test_additional_directories_are_part_of_the_workspace(
    tree: Tree, make_ctx: ContextFactory
) -> None:
    ctx = make_ctx(mode="acceptEdits", additional_dirs=(tree.outside,))
    call = {"file_path": str(tree.outside / "new.txt"), "content": "x"}
    assert decide("Write", call, ctx) == Decision(
        "allow", None, "acceptEdits mode: edits in the workspace"
    )
    assert decide("Bash", {"command": f"cat {tree.outside}/data.txt"}, ctx).behavior == "allow"


def test_edits_follow_rules_and_modes(tree: Tree, make_ctx: ContextFactory) -> None:
    settings = {"permissions": {"allow": ["Edit(/src/**)"], "ask": ["Edit(src/gen/**)"]}}
    ctx = make_ctx(settings)
    assert decide("Edit", {"file_path": "src/app.py"}, ctx) == Decision(
        "allow", "Edit(/src/**)", "allowed"
    )
    assert decide("Write", {"file_path": "src/gen/x.py"}, ctx) == Decision(
        "ask",
        "Edit(src/gen/**)",
        f"writing {tree.ws}/src/gen/x.py needs confirmation by Edit(src/gen/**)",
    )
    assert decide("Edit", {"file_path": "README.md"}, ctx) == Decision(
        "ask", None, f"writes {tree.ws}/README.md"
    )
    assert decide("Revert", {"file_path": "README.md"}, make_ctx(mode="acceptEdits")) == Decision(
        "allow", None, "acceptEdits mode: edits in the workspace"
    )


def test_protected_paths(tree: Tree, make_ctx: ContextFactory) -> None:
    """More in test_self_modification.py: asked in every mode but bypassPermissions."""
    ctx = make_ctx({"permissions": {"allow": ["Edit"]}}, mode="acceptEdits")
    for path in (".git/hooks/pre-commit", ".claude/skills/a/SKILL.md", ".mcp.json"):
        assert decide("Write", {"file_path": path}, ctx).behavior == "ask", path
    assert decide("Write", {"file_path": "src/.gitignore"}, ctx).behavior == "allow"
    bypass = make_ctx(mode="bypassPermissions")
    assert decide("Write", {"file_path": ".claude/settings.json"}, bypass).behavior == "allow"


def test_workspace_inside_a_protected_name_is_not_all_protected(tmp_path: Path) -> None:
    ws = tmp_path / ".tether" / "projects" / "ws"
    ws.mkdir(parents=True)
    ctx = PermissionContext(
        mode="acceptEdits", rules=load_rules([], seed_yaml=None), workspace=ws, cwd=ws
    )
    assert decide("Write", {"file_path": "a.txt"}, ctx).behavior == "allow"


def test_symlinks_and_dotdot(tree: Tree, make_ctx: ContextFactory) -> None:
    ctx = make_ctx({"permissions": {"deny": ["Read(./.env)", "Edit(~/.bashrc)"]}})
    assert decide("Read", {"file_path": "src/link_env"}, ctx).behavior == "deny"
    assert decide("Read", {"file_path": "src/../.env"}, ctx).behavior == "deny"
    assert decide("Edit", {"file_path": "homelink/.bashrc"}, ctx) == Decision(
        "deny",
        "Edit(~/.bashrc)",
        f"writing {tree.ws}/homelink/.bashrc (that is {tree.home}/.bashrc) is denied by "
        "Edit(~/.bashrc)",
    )


def test_resolution_goes_through_the_context(tmp_path: Path) -> None:
    """decide touches the filesystem only through ctx.resolve: with a fake, a tree that does
    not exist is judged as the fake describes it."""
    ws = tmp_path / "nowhere"
    aliases = {ws / "innocent.txt": Path("/secrets/token")}
    rules = load_rules(
        [(ws / ".claude" / "settings.json", {"permissions": {"deny": ["Read(//secrets/**)"]}})],
        seed_yaml=None,
    )
    ctx = PermissionContext(
        mode="default",
        rules=rules,
        workspace=ws,
        cwd=ws,
        home=ws,
        resolve=lambda p: aliases.get(p, p),
    )
    assert decide("Read", {"file_path": "innocent.txt"}, ctx).behavior == "deny"
    assert decide("Bash", {"command": "cat innocent.txt"}, ctx).behavior == "deny"
    assert decide("Read", {"file_path": "other.txt"}, ctx).behavior == "allow"


def test_rules_sharing_an_anchor_resolve_it_once(tmp_path: Path) -> None:
    """Per call, a rule's anchor directory is resolved once however many rules hang from it."""
    ws = tmp_path / "nowhere"
    deny = ["Read(./.env)", "Read(./secrets/**)", "Read(*.pem)", "Read(./config/private/**)"]
    rules = load_rules(
        [(ws / ".claude" / "settings.json", {"permissions": {"deny": deny}})], seed_yaml=None
    )
    resolved: list[Path] = []

    def resolve(path: Path) -> Path:
        resolved.append(path)
        return path

    ctx = PermissionContext(
        mode="default", rules=rules, workspace=ws, cwd=ws, home=ws, resolve=resolve
    )
    resolved.clear()
    assert decide("Read", {"file_path": "src/app.py"}, ctx) == Decision(
        "allow", None, "inside the workspace"
    )
    assert resolved == [ws / "src" / "app.py", ws]


def test_glob_and_grep_targets(tree: Tree, make_ctx: ContextFactory) -> None:
    ctx = make_ctx({"permissions": {"deny": ["Read(~/.ssh/**)"]}})
    assert decide("Glob", {"pattern": "**/*.py"}, ctx).behavior == "allow"
    assert decide("Glob", {"pattern": "*", "path": "~/.ssh"}, ctx).behavior == "deny"
    assert decide("Glob", {"pattern": ".ssh/*", "path": "~"}, ctx).behavior == "deny"
    assert decide("Glob", {"pattern": "/etc/**"}, ctx) == Decision(
        "ask", None, "reads /etc, outside the workspace"
    )
    assert decide("Grep", {"pattern": "x", "path": "homelink/.ssh"}, ctx).behavior == "deny"
    assert decide("Grep", {"pattern": "x"}, ctx).behavior == "allow"


def test_calls_without_a_path(make_ctx: ContextFactory) -> None:
    ctx = make_ctx()
    assert decide("Read", {}, ctx) == Decision("ask", None, "Read call names no file")
    assert decide("Bash", {"command": 3}, ctx) == Decision("ask", None, "no command given")
    denied = make_ctx({"permissions": {"deny": ["Read"]}})
    assert decide("Read", {}, denied) == Decision("deny", "Read", "Read is denied by Read")


def test_other_tools(make_ctx: ContextFactory) -> None:
    ctx = make_ctx(
        {
            "permissions": {
                "allow": [
                    "WebFetch(domain:*.python.org)",
                    "mcp__gh",
                    "Task(Explore)",
                    "Skill(review)",
                ],
                "ask": ["Task(general-purpose)"],
                "deny": ["mcp__gh__delete_repo", "WebFetch(domain:evil.example)"],
            }
        }
    )
    fetch = {"url": "https://docs.python.org/3/"}
    assert decide("WebFetch", fetch, ctx) == Decision(
        "allow", "WebFetch(domain:*.python.org)", "allowed"
    )
    assert decide("WebFetch", {"url": "https://EVIL.example/"}, ctx).behavior == "deny"
    assert decide("WebFetch", {"url": "https://python.org.evil.example"}, ctx).behavior == "ask"
    assert decide("mcp__gh__list", {}, ctx).behavior == "allow"
    assert decide("mcp__gh__delete_repo", {}, ctx) == Decision(
        "deny", "mcp__gh__delete_repo", "mcp__gh__delete_repo is denied by mcp__gh__delete_repo"
    )
    assert decide("Agent", {"subagent_type": "Explore"}, ctx).behavior == "allow"
    assert decide("Task", {"subagent_type": "general-purpose"}, ctx).behavior == "ask"
    assert decide("Task", {"subagent_type": "Plan"}, ctx).behavior == "allow"
    assert decide("Skill", {"skill": "review"}, ctx).behavior == "allow"
    # Loading a skill only adds text to the session; its allowed-tools are the repository's
    # own grant, as trusted as the repository's settings.
    assert decide("Skill", {"skill": "deploy"}, ctx) == Decision(
        "allow", None, "changes only the session's own state"
    )
    assert decide("TodoWrite", {"todos": []}, ctx) == Decision(
        "allow", None, "changes only the session's own state"
    )


def test_read_only_tools_from_the_registry(make_ctx: ContextFactory) -> None:
    ctx = make_ctx(read_only_tools=frozenset({"Read", "Glob", "Grep", "mcp__docs__search"}))
    assert decide("mcp__docs__search", {"q": "x"}, ctx) == Decision("allow", None, "read-only tool")
    assert decide("mcp__docs__search", {"q": "x"}, make_ctx(mode="plan")) == Decision(
        "deny",
        None,
        "plan mode: only read-only tools run (mcp__docs__search is not)",
        plan_mode=True,
    )


def test_mode_reasons(make_ctx: ContextFactory) -> None:
    call = {"command": "make"}
    assert decide("Bash", call, make_ctx()) == Decision("ask", None, "no rule allows `make`")
    assert decide("Bash", call, make_ctx(mode="dontAsk")) == Decision(
        "deny", None, "dontAsk mode, not pre-approved: no rule allows `make`"
    )
    assert decide("Bash", call, make_ctx(mode="plan")) == Decision(
        "deny", None, "plan mode: only read-only tools run (Bash is not)", plan_mode=True
    )
    assert decide("Bash", call, make_ctx(mode="bypassPermissions")) == Decision(
        "allow", None, "bypassPermissions mode"
    )
    hard = make_ctx({"permissions": {"ask": ["Bash(make *)"]}}, mode="bypassPermissions")
    assert decide("Bash", call, hard) == Decision(
        "ask", "Bash(make *)", "`make` needs confirmation (Bash(make *))"
    )


def test_seed_rules_carry_their_reason(make_ctx: ContextFactory) -> None:
    seed = "always_deny:\n  - pattern: 'mkfs'\n    reason: formats a disk\n"
    ctx = make_ctx(seed=seed)
    assert decide("Bash", {"command": "sudo mkfs /dev/sda"}, ctx) == Decision(
        "deny",
        "always_deny: mkfs",
        "`sudo mkfs /dev/sda` is denied by always_deny: mkfs: formats a disk",
    )
