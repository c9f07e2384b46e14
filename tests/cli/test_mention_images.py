"""`@file` in a prompt reads the file as the Read tool does, pictures included: a notebook's
plots and a mentioned image reach the model as image blocks after the text that names them."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.cli.test_sdk_images import png
from tether.testing import FakeModelServer, reply, text
from tether.testing.cli_runner import CliResult

Run = Callable[..., CliResult]
PLOT = base64.b64encode(png(3, 2)).decode()


@pytest.fixture(autouse=True)
def user_home(monkeypatch: pytest.MonkeyPatch, home: Path) -> Path:
    monkeypatch.setenv("HOME", str(home))
    return home


def test_a_mentioned_notebook_and_picture_attach_the_images_their_text_names(
    fake_model: FakeModelServer, tether: Run, trusted_workspace: Path
) -> None:
    plot_cell = {
        "cell_type": "code",
        "metadata": {},
        "execution_count": 1,
        "source": "plot()",
        "outputs": [
            {
                "output_type": "display_data",
                "metadata": {},
                "data": {"image/png": PLOT, "text/plain": "<Figure>"},
            }
        ],
    }
    notebook = {"cells": [plot_cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (trusted_workspace / "analysis.ipynb").write_text(json.dumps(notebook))
    (trusted_workspace / "chart.png").write_bytes(png(2, 2))
    commands = trusted_workspace / ".claude" / "commands"
    commands.mkdir(parents=True)
    (commands / "look.md").write_text("Compare @analysis.ipynb with @chart.png\n")
    fake_model.script(reply(text("They match.")))

    result = tether("-p", "/look")

    assert result.exit_code == 0, result.stderr
    content = fake_model.requests[0].messages()[-1]["content"]
    kinds = [block["type"] for block in content]
    assert kinds == ["text", "text", "text", "image", "text", "text", "image"]
    assert "[PNG image output: image 1 of this result, shown below]" in content[2]["text"]
    assert content[3]["source"] == {"type": "base64", "media_type": "image/png", "data": PLOT}
    chart = base64.b64encode(png(2, 2)).decode()
    assert content[6]["source"] == {"type": "base64", "media_type": "image/png", "data": chart}
