"""A worktree's session reads its main workspace's settings files as if they were in the
worktree: rules relative to a file are relative to its place there, and every message about
a file names the file read (its place in the worktree may not exist: a local file git does
not carry)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tether.config.settings import Settings, relocated
from tether.hooks.config import parse_hooks
from tether.permissions.rules import additional_directories, load_rules
from tether.protocol import ConfigError


def _moved(tmp_path: Path, data: dict[str, object]) -> tuple[Path, Settings]:
    main, tree = tmp_path / "main", tmp_path / "main" / ".tether" / "worktrees" / "1"
    read = main / ".claude" / "settings.local.json"
    return read, relocated(Settings(data, ((read, data),)), main, tree)


@pytest.mark.parametrize(
    ("data", "read"),
    [
        ({"permissions": {"deny": "Edit"}}, lambda s: load_rules(s.layers, seed_yaml=None)),
        ({"permissions": []}, lambda s: load_rules(s.layers, seed_yaml=None)),
        ({"permissions": {"additionalDirectories": 3}}, lambda s: additional_directories(s.layers)),
        ({"hooks": ["x"]}, lambda s: parse_hooks(s.layers)),
    ],
    ids=["a rule list", "permissions", "additionalDirectories", "hooks"],
)
def test_an_error_names_the_file_read(tmp_path: Path, data: dict[str, object], read) -> None:
    file, settings = _moved(tmp_path, data)
    with pytest.raises(ConfigError) as raised:
        read(settings)
    assert str(file) in str(raised.value)
    assert "worktrees" not in str(raised.value)


def test_a_rule_is_relative_to_the_files_place_in_the_worktree(tmp_path: Path) -> None:
    _, settings = _moved(tmp_path, {"permissions": {"additionalDirectories": ["shared"]}})
    [directory] = additional_directories(settings.layers)
    assert directory == tmp_path / "main" / ".tether" / "worktrees" / "1" / "shared"
