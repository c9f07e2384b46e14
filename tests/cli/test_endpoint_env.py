"""A base URL that is no URL, or an API key that cannot go in an HTTP header, is said in one
precise line before any request, on both wires (it was a traceback)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest


@pytest.mark.parametrize(
    ("variables", "said"),
    [
        ({"ANTHROPIC_BASE_URL": "http://[::1"}, "ANTHROPIC_BASE_URL is not a valid URL"),
        ({"ANTHROPIC_BASE_URL": "http://x:99999"}, "ANTHROPIC_BASE_URL is not a valid URL"),
        (
            {"ANTHROPIC_API_KEY": "k\u00e9y"},
            "ANTHROPIC_API_KEY holds a character that is not ASCII",
        ),
        ({"OPENAI_BASE_URL": "http://[::1"}, "OPENAI_BASE_URL is not a valid URL"),
        ({"OPENAI_API_KEY": "\u00e9"}, "OPENAI_API_KEY holds a character that is not ASCII"),
    ],
)
def test_a_bad_endpoint_variable_is_one_line(
    tmp_path: Path, variables: dict[str, str], said: str
) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC", "OPENAI"))}
    env.update(TETHER_HOME=str(tmp_path / "home"), HOME=str(tmp_path))
    env.update(ANTHROPIC_BASE_URL="http://127.0.0.1:9", ANTHROPIC_API_KEY="k")
    model = ["--model", "openai/gpt-5"] if any(k.startswith("OPENAI") for k in variables) else []
    if model:
        env.update(OPENAI_BASE_URL="http://127.0.0.1:9/v1", OPENAI_API_KEY="k")
    env.update(variables)
    ran = subprocess.run(
        [sys.executable, "-m", "tether", "-p", "hi", *model],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert ran.returncode != 0
    assert ran.stderr.count("\n") == 1, ran.stderr
    assert said in ran.stderr
    assert "Traceback" not in ran.stderr


@pytest.mark.parametrize(
    ("base_url", "why"),
    [
        ("http://127.0.0.1:99999/v1", "Port out of range 0-65535"),
        ("http://127.0.0.1:1e3/v1", "Port could not be cast to integer value as '1e3'"),
        ("https://[::1/v1", "Invalid IPv6 URL"),
    ],
)
def test_a_provider_from_settings_with_a_bad_base_url_is_one_line(
    tmp_path: Path, base_url: str, why: str
) -> None:
    """The port of a provider's `base_url` in settings is a number too: out of range, it is
    said in one line naming the setting (it was an internal error when the request went)."""
    home = tmp_path / "home"
    home.mkdir()
    provider = {"base_url": base_url, "key_env": "LAB_KEY"}
    (home / "settings.json").write_text(json.dumps({"providers": {"lab": provider}}))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC", "OPENAI"))}
    env.update(TETHER_HOME=str(home), HOME=str(tmp_path), LAB_KEY="k")
    ran = subprocess.run(
        [sys.executable, "-m", "tether", "-p", "hi", "--model", "lab/m"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert (ran.returncode, ran.stdout) == (2, "")
    assert ran.stderr == (
        f"tether: settings: providers.lab.base_url is not a valid URL ({why})\n"
    ), ran.stderr
