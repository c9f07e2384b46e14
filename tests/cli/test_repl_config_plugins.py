"""/config and the plugin settings: it judges `enabledPlugins` as start-up does (the same
warnings, for a value it sets and for one already in a file), and a dotted key into
`enabledPlugins` takes the rest as one plugin id (ids hold dots)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.pty_terminal import PtyRepl
from tests.cli.test_repl_commands import anthropic_only
from tether.testing import FakeModelServer


def said_set(repl: PtyRepl, count: int) -> None:
    repl.wait_until(
        lambda screen: "".join(screen.split()).count("thenextsession") >= count,
        f"{count} settings set",
    )


@pytest.mark.xfail(
    strict=True,
    reason="the REPL does not show this user-settings warning at start-up since settings "
    "warnings became file notices (said by /config only): open",
)
def test_config_warns_of_an_enabled_plugins_start_up_rejects_and_keeps_dotted_ids_whole(
    model_env: FakeModelServer, workspace: Path, home: Path
) -> None:
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"enabledPlugins": ["foo@bar"]}))
    repl = PtyRepl(workspace, anthropic_only(home))
    try:
        repl.wait_for("> ")
        repl.send("/config\r")  # the wrong value already in the file: said as start-up says it
        repl.wait_for("VALUE is JSON")
        said = "".join(repl.screen.split()).count('enabledPlugins"mustbeanobject')
        assert said == 2, repl.screen  # at start-up, then by /config
        repl.send('/config enabledPlugins {"nomarket": true, "a.b@c.d": true}\r')
        said_set(repl, 1)
        repl.send("/config enabledPlugins.formatter@my.market true\r")
        said_set(repl, 2)
        screen = "".join(repl.screen.split())  # however its lines wrapped
    finally:
        repl.close()
    assert "'nomarket'isnotoftheform" in screen, screen
    assert "a.b@c.d'isnot" not in screen, screen
    assert "formatter@my:" not in screen, screen
    assert "✓enabledPlugins.formatter@my.market=true" in screen, screen
    assert json.loads(settings.read_text()) == {
        "enabledPlugins": {"nomarket": True, "a.b@c.d": True, "formatter@my.market": True}
    }
