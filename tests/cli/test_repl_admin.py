"""The REPL's /add-dir, /export, /doctor, /config and /agents, which Claude Code has, on a real
terminal: what each shows, and what /add-dir, /export and /config change."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.cli.pty_terminal import PtyRepl
from tests.cli.test_repl_commands import anthropic_only
from tether.testing import FakeModelServer, reply, text, tool_use


def test_add_dir_lets_the_file_tools_work_in_another_directory(
    model_env: FakeModelServer, workspace: Path, home: Path, tmp_path: Path
) -> None:
    first, second = tmp_path / "sibling-repo", tmp_path / "other repo"
    first.mkdir()
    second.mkdir()
    model_env.script(
        reply(tool_use("Write", file_path=str(first / "A.md"), content="one\n")),
        reply(text("Wrote one.")),
        reply(tool_use("Write", file_path=str(second / "B.md"), content="two\n")),
        reply(text("Wrote two.")),
    )
    repl = PtyRepl(workspace, anthropic_only(home), "--permission-mode", "acceptEdits")
    try:
        repl.wait_for("> ")
        repl.send("/add-dir ../nowhere\r")
        repl.wait_for("no such directory")
        repl.send(f"/add-dir {first}\r")  # before any message: nothing saved to resume yet
        repl.wait_for("✓ Added")
        repl.send("write one\r")
        repl.wait_for("Wrote one.")
        repl.send("/add-dir ../other\\ repo\r")  # after one: the conversation goes on
        repl.wait_for("✓ Added", count=2)
        repl.send("write two\r")
        repl.wait_for("Wrote two.")
        assert "Allow" not in repl.screen  # not asked: the directories are the session's now
        repl.send("/add-dir ../sibling-repo\r")
        repl.wait_for("is already added")
    finally:
        repl.close()
    assert (first / "A.md").read_text() == "one\n"
    assert (second / "B.md").read_text() == "two\n"
    assert len(model_env.requests[2].messages()) == 5  # the conversation went on, not anew


def test_add_dir_goes_on_quietly_with_the_same_session(
    model_env: FakeModelServer, workspace: Path, home: Path, tmp_path: Path
) -> None:
    """/add-dir says only that it added the directory: no "resumed session" and no replay of
    the conversation, no start-up warning said again; the session keeps its id and spend."""
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "further").mkdir()
    (workspace / ".claude").mkdir()
    (workspace / ".claude" / "settings.json").write_text('{"modle": "x"}')
    model_env.script(reply(text("FIRST-REPLY")), reply(text("SECOND-REPLY")))
    repl = PtyRepl(workspace, anthropic_only(home))
    try:
        repl.wait_for("> ")
        repl.wait_for("modle")
        repl.send("/add-dir ../elsewhere\r")  # before any message
        repl.wait_for("✓ Added")
        repl.send("say one\r")
        repl.wait_for("FIRST-REPLY")
        repl.send("/status\r")
        repl.wait_for("Session:")
        repl.send("/cost\r")
        repl.wait_for("Usage by model:")
        before = repl.screen
        repl.send("/add-dir ../further\r")  # after one
        repl.wait_for("✓ Added", count=2)
        repl.send("/status\r")
        repl.wait_for("Session:", count=2)
        repl.send("/cost\r")
        repl.wait_for("Usage by model:", count=2)
        repl.send("say two\r")
        repl.wait_for("SECOND-REPLY")
        screen = repl.screen
    finally:
        repl.close()
    after = screen[len(before) :]
    assert "resumed" not in screen, screen
    assert "say one" not in after, after
    assert "FIRST-REPLY" not in after, after
    assert screen.count("modle") == 1, screen
    ids = [line.split()[-1] for line in screen.splitlines() if line.startswith("Session:")]
    costs = [
        line
        for line in screen.splitlines()
        if line.startswith(("Total cost:", "Total duration (API):"))
    ]
    assert len(ids) == 2, ids
    assert ids[0] == ids[1], ids
    assert costs[:2] == costs[2:], costs
    assert len(model_env.requests[1].messages()) == 3  # the conversation went on


def test_export_writes_the_conversation_and_doctor_checks_the_settings_and_endpoint(
    model_env: FakeModelServer, workspace: Path, home: Path
) -> None:
    model_env.script(reply(text("EXPORTED-REPLY")))
    repl = PtyRepl(workspace, anthropic_only(home))
    try:
        repl.wait_for("> ")
        repl.send("say something EXPORT-ME\r")
        repl.wait_for("EXPORTED-REPLY")
        repl.send("/export notes/chat.txt\r")
        repl.wait_for("exported to")
        (workspace / "CLAUDE.md").write_text("KEEP-ME\n")
        repl.send("/export CLAUDE.md\r")  # a file there is never overwritten
        repl.wait_until(lambda s: "it is not overwritten" in s.replace("\n", ""), "refusal")
        broken = home / ".claude" / "settings.json"
        broken.parent.mkdir()
        broken.write_text('{"model": ')  # broken while the session runs
        repl.send("/doctor\r")
        repl.wait_for("reachable")
        screen = repl.screen
    finally:
        repl.close()
    exported = (workspace / "notes" / "chat.txt").read_text()
    umask = os.umask(0o022)
    os.umask(umask)  # the REPL's, inherited: the file's mode is a new file's, as `>` makes it
    assert (workspace / "notes" / "chat.txt").stat().st_mode & 0o777 == 0o666 & ~umask
    assert not list((workspace / "notes").glob(".*.tmp"))  # the temporary is gone
    assert "> say something EXPORT-ME" in exported
    assert "EXPORTED-REPLY" in exported
    assert (workspace / "CLAUDE.md").read_text() == "KEEP-ME\n"
    for line in ("Installation", "Settings files", "MCP servers", "Sandbox", "Model"):
        assert line in screen, screen
    assert str(broken) in screen, screen
    assert "the next start stops here" in screen, screen
    assert ": reachable" in screen, screen


def test_config_shows_each_setting_with_its_file_and_sets_one(
    model_env: FakeModelServer, workspace: Path, home: Path
) -> None:
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"cleanupPeriodDays": 30, "permissions": {"allow": []}}))
    repl = PtyRepl(workspace, anthropic_only(home))
    try:
        repl.wait_for("> ")
        repl.send("/config\r")
        repl.wait_for("VALUE is JSON")
        screen = repl.screen
        assert "cleanupPeriodDays            30" in screen, screen
        assert "(see /permissions)" in screen, screen
        assert "from ~/.claude/settings.json" in screen, screen
        repl.send('/config theme "dark"\r')
        repl.wait_for("the next session")
    finally:
        repl.close()
    assert json.loads(settings.read_text()) == {
        "cleanupPeriodDays": 30,
        "permissions": {"allow": []},
        "theme": "dark",
    }


def test_agents_lists_them_by_source_and_shows_one(
    model_env: FakeModelServer, workspace: Path, home: Path
) -> None:
    agents = home / ".claude" / "agents"
    agents.mkdir(parents=True)
    (agents / "reviewer.md").write_text(
        "---\nname: reviewer\ndescription: Reviews diffs for bugs\ntools: Read, Grep\n---\n"
        "You review REVIEW-BODY.\n"
    )
    repl = PtyRepl(workspace, anthropic_only(home))
    try:
        repl.wait_for("> ")
        repl.send("/agents\r")
        repl.wait_for("/agents create says how")
        screen = repl.screen
        for shown in ("user agents", "built-in agents", "reviewer", "Reviews diffs for bugs"):
            assert shown in screen, screen
        repl.send("/agents reviewer\r")
        repl.wait_for("REVIEW-BODY")
        assert str(agents / "reviewer.md") in repl.screen
        assert "Read, Grep" in repl.screen
        repl.send("/agents create\r")
        repl.wait_for(".claude/agents/NAME.md")
    finally:
        repl.close()


def test_config_refuses_what_start_up_would_refuse_and_sets_dotted_keys_nested(
    model_env: FakeModelServer, workspace: Path, home: Path
) -> None:
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir()
    before = json.dumps({"theme": "dark"})
    settings.write_text(before)
    repl = PtyRepl(workspace, anthropic_only(home))
    try:
        repl.wait_for("> ")
        repl.send("/config model not-a-model\r")
        repl.wait_for("nothing written")
        assert "Unknown model 'not-a-model'" in repl.screen.replace("\n", ""), repl.screen
        repl.send("/config permissions.defaultMode yolo\r")
        repl.wait_for("nothing written", count=2)
        assert "unknown mode 'yolo'" in repl.screen, repl.screen
        repl.send("/config contextWindow -5\r")
        repl.wait_for("nothing written", count=3)
        assert settings.read_text() == before
        repl.send("/clear\r")  # the next session starts: nothing bad was written
        repl.send("/config nonsenseKey 1\r")
        repl.wait_for("is not a setting tether reads")
        repl.send("/config permissions.defaultMode plan\r")
        repl.wait_for("the next session", count=2)
        repl.send("/config enabledPlugins 7\r")  # start-up warns of it: so does /config
        repl.wait_for("the next session", count=3)
        repl.send("/config extraKnownMarketplaces.local 5\r")
        repl.wait_for("the next session", count=4)
        screen = "".join(repl.screen.split())  # however its lines wrapped
    finally:
        repl.close()
    assert "enabledPluginsmustbeanobject" in screen, screen
    assert "extraKnownMarketplaces.local:mustbeanobject" in screen, screen
    assert json.loads(settings.read_text()) == {
        "theme": "dark",
        "nonsenseKey": 1,
        "permissions": {"defaultMode": "plan"},
        "enabledPlugins": 7,
        "extraKnownMarketplaces": {"local": 5},
    }


def test_agents_reads_an_agent_file_added_after_start_and_the_session_offers_it(
    model_env: FakeModelServer, workspace: Path, home: Path
) -> None:
    model_env.script(
        reply(tool_use("Task", description="d", prompt="go", subagent_type="late.helper")),
        reply(text("LATE-HELPER-DONE")),
        reply(text("The helper ran.")),
    )
    agents = home / ".claude" / "agents"
    agents.mkdir(parents=True)
    repl = PtyRepl(workspace, anthropic_only(home))
    try:
        repl.wait_for("> ")
        repl.send("/agents\r")
        repl.wait_for("/agents create says how")
        (agents / "late.helper.md").write_text(  # added while the session runs
            "---\nname: late.helper\ndescription: Examples: <example>help late</example>\n---\n"
            "You are LATE-BODY.\n"
        )
        repl.send("/agents\r")
        repl.wait_for("/agents create says how", count=2)
        assert "late.helper" in repl.screen, repl.screen
        repl.send("use the helper\r")
        repl.wait_for("The helper ran.")
    finally:
        repl.close()
    assert "LATE-BODY" in model_env.requests[1].system()  # the subagent's own request
