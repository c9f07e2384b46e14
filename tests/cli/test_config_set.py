"""`/config KEY VALUE` as start-up will read the file: what start-up refuses is refused here
(a dotted key reaches inside any block), and the file is written as it is kept (through a
link, with its mode; a read-only one is refused with why, and nothing is left behind)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tether.cli.config_set import change_config


def _settings(home: Path) -> Path:
    path = home / ".claude" / "settings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"cleanupPeriodDays": 30}) + "\n")
    return path


@pytest.mark.parametrize(
    "args",
    [
        "hooks.PreToolUse 5",  # start-up refused the file, every later start exited 2
        'hooks.PreToolUse [{"matcher": "Bash"}]',
        'webhooks [{"url": "not a url"}]',
        'sandbox.enabled "sometimes"',
    ],
)
def test_what_start_up_refuses_is_refused_and_nothing_written(tmp_path: Path, args: str) -> None:
    path = _settings(tmp_path)
    before = path.read_bytes()
    said = change_config(args, tmp_path, []).plain
    assert said.startswith("✗ /config"), said
    assert "nothing written" in said
    assert path.read_bytes() == before


def test_a_linked_settings_file_is_written_through_the_link(tmp_path: Path) -> None:
    dotfiles = tmp_path / "dotfiles" / "settings.json"
    dotfiles.parent.mkdir()
    dotfiles.write_text("{}\n")
    (tmp_path / ".claude").mkdir()
    link = tmp_path / ".claude" / "settings.json"
    link.symlink_to(dotfiles)
    said = change_config("cleanupPeriodDays 7", tmp_path, []).plain
    assert said.startswith("✓"), said
    assert link.is_symlink()  # it was replaced by a plain file
    assert json.loads(dotfiles.read_text()) == {"cleanupPeriodDays": 7}


def test_a_read_only_settings_file_is_refused_saying_why(tmp_path: Path) -> None:
    path = _settings(tmp_path)
    path.chmod(0o444)
    before = path.read_bytes()
    said = change_config("cleanupPeriodDays 7", tmp_path, []).plain
    assert said.startswith("✗ /config: cannot write"), said
    assert path.read_bytes() == before
    assert oct(path.stat().st_mode & 0o777) == oct(0o444)
    assert [p.name for p in path.parent.iterdir()] == ["settings.json"]  # no temporary left
