"""One reading of a workspace marketplace's plugin sources (`tether.plugin_places`) for the
permission engine and the sandbox's sweep: a `{"path": ...}` source and `metadata.pluginRoot`
name plugin directories for both."""

from __future__ import annotations

import json

from tether.plugin_places import PLUGIN_WHY, marketplace_sources, plugin_place
from tether.sandbox.git_sweep import DISABLED

from .conftest import Layout, bash_runner, end_session, needs_bwrap, sandboxed_context

MARKET = {
    "name": "local",
    "owner": {"name": "me"},
    "metadata": {"pluginRoot": "./plugins"},
    "plugins": [
        {"name": "d", "source": {"source": "path", "path": "./tools/d"}},
        {"name": "r", "source": "r"},
        {"name": "s", "source": "./s"},
    ],
}


def test_the_sources_are_read_once_for_both() -> None:
    found = marketplace_sources(MARKET)
    assert found == ["plugins/tools/d", "tools/d", "plugins/r", "plugins/s", "s"]


def test_the_engine_asks_about_every_reading(tmp_path: object) -> None:
    from pathlib import Path

    root = Path(str(tmp_path))
    (root / ".claude-plugin").mkdir()
    (root / ".claude-plugin" / "marketplace.json").write_text(json.dumps(MARKET))
    for relative in ("tools/d/hooks/hooks.json", "plugins/r/run.sh", "s/hooks/hooks.json"):
        assert plugin_place(str(root / relative), str(root)) == PLUGIN_WHY, relative
    assert plugin_place(str(root / "src" / "app.py"), str(root)) is None


@needs_bwrap
async def test_the_sweep_guards_a_path_source_plugin(boundary: Layout) -> None:
    ws = boundary.workspace
    (ws / ".claude-plugin").mkdir()
    (ws / ".claude-plugin" / "marketplace.json").write_text(json.dumps(MARKET))
    boundary.hand_over()
    ctx = sandboxed_context(boundary)
    run = bash_runner(ctx)
    targets = [ws / "tools" / "d" / "run.sh", ws / "plugins" / "s" / "run.sh"]
    made = "".join(f"mkdir -p {t.parent}; echo x > {t}; " for t in targets)
    out = await run(command=made + "echo end")
    assert out.content.startswith("end"), out.content
    for target in targets:
        assert not target.exists(), target
        assert target.with_name(target.name + DISABLED).read_text() == "x\n"
    await end_session(ctx)
