"""A base URL that is no URL, or an API key that cannot go in an HTTP header, is said in one
precise line before any request, on both wires (it was a traceback)."""

from __future__ import annotations

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
