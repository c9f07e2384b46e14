"""Environment variables whose bytes are not UTF-8, as a shell can set them (`os.environb`):
a setting of ours is refused with one precise line (never a traceback, never its value, which
may be a key); a place on disk with such bytes is a path like any other and works."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tether.testing import FakeModelServer, reply, text

BAD = b"ab\xc3\xa9\xff\xfe"  # 'abé' then two bytes that are no UTF-8


def _run(env: dict[bytes, bytes], *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tether", *args],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        errors="replace",
        timeout=120,
        check=False,
    )


def _env(server: FakeModelServer, home: Path) -> dict[bytes, bytes]:
    env = {k: v for k, v in os.environb.items() if not k.startswith((b"TETHER_", b"CLAUDE_"))}
    env.update(
        {
            b"ANTHROPIC_BASE_URL": server.url.encode(),
            b"ANTHROPIC_API_KEY": b"test-key",
            b"HOME": bytes(home),
            b"TETHER_HOME": bytes(home / "tether"),
        }
    )
    return env


@pytest.mark.parametrize(
    "name",
    [
        b"ANTHROPIC_API_KEY",
        b"ANTHROPIC_BASE_URL",
        b"ANTHROPIC_MODEL",
        b"TETHER_MODEL_IDLE_TIMEOUT_MS",
        b"CLAUDE_CODE_MAX_OUTPUT_TOKENS",
    ],
)
def test_a_setting_that_is_not_utf8_is_one_precise_line(
    fake_model: FakeModelServer, tmp_path: Path, name: bytes
) -> None:
    env = {**_env(fake_model, tmp_path), name: BAD}
    for args in (["-p", "hi"], ["sessions", "list"]):
        result = _run(env, *args, cwd=tmp_path)
        assert (result.returncode, result.stdout) == (2, "")
        assert result.stderr == (
            f"tether: {name.decode()} is not valid UTF-8 (byte 0xff at position 4); "
            "set it again as text, or unset it\n"
        )
    assert fake_model.requests == []


@pytest.mark.parametrize("name", [b"HOME", b"TETHER_HOME", b"CLAUDE_CONFIG_DIR"])
def test_a_place_whose_path_is_not_utf8_is_used_as_it_is(
    fake_model: FakeModelServer, tmp_path: Path, name: bytes
) -> None:
    place = bytes(tmp_path) + b"/" + BAD
    os.mkdir(place)
    env = {**_env(fake_model, tmp_path), name: place}
    fake_model.script(reply(text("first")), reply(text("second")))
    first = _run(env, "-p", "hi", cwd=tmp_path)
    assert (first.returncode, first.stdout) == (0, "first\n"), first.stderr
    again = _run(env, "-c", "-p", "again", cwd=tmp_path)
    assert (again.returncode, again.stdout) == (0, "second\n"), again.stderr
    assert "Traceback" not in first.stderr + again.stderr
    if name != b"HOME":  # the sessions live there
        with os.scandir(place) as entries:
            assert any(entries)


def test_a_providers_own_key_variable_that_is_not_utf8_is_named(
    fake_model: FakeModelServer, tmp_path: Path
) -> None:
    """A provider from the settings reads the variable it names (`key_env`): the same rule."""
    settings = tmp_path / "settings.json"
    lab = {"base_url": f"{fake_model.url}/v1", "key_env": "LAB_API_KEY"}
    settings.write_text(json.dumps({"providers": {"lab": lab}}))
    env = {**_env(fake_model, tmp_path), b"LAB_API_KEY": BAD}
    result = _run(env, "--settings", str(settings), "--model", "lab/x", "-p", "hi", cwd=tmp_path)
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (
        "tether: LAB_API_KEY is not valid UTF-8 (byte 0xff at position 4); "
        "set it again as text, or unset it\n"
    )
    assert fake_model.requests == []
