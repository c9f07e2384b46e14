"""Images a client sends (stream-json input) get the checks a session file gets when it is read
back: one the API would refuse is left out with a warning, on both wires, and the session goes
on; a result of a tool with such an image keeps its text and says what was left out."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from tether.core.boundary import sendable_images
from tether.protocol import ImageBlock, TextBlock, ToolResultBlock
from tether.testing import FakeModelServer, reply, text
from tether.testing.cli_runner import run_cli

GIF = base64.b64encode(b"GIF89a\x01\x00\x01\x00\x00\x00\x00;").decode()
PNG = "iVBORw0KGgo="  # a PNG's signature
BAD = {
    "a file URL": ({"type": "url", "url": "file:///etc/passwd"}, "URL is not an http(s) address"),
    "bad base64": (
        {"type": "base64", "media_type": "image/png", "data": "!!!"},
        "data is not valid base64",
    ),
    "wrong type": (
        {"type": "base64", "media_type": "image/png", "data": GIF},
        "data is not image/png",
    ),
}
WIRES = ["claude-sonnet-4-5", "openai/gpt-4.1"]


@pytest.mark.parametrize("model", WIRES)
@pytest.mark.parametrize("case", sorted(BAD))
def test_a_bad_image_from_the_client_is_left_out_and_the_session_goes_on(
    model_env: FakeModelServer, workspace: Path, model: str, case: str
) -> None:
    source, said = BAD[case]
    look = [{"type": "text", "text": "look"}, {"type": "image", "source": source}]
    stdin = "".join(
        json.dumps({"type": "user", "message": {"role": "user", "content": content}}) + "\n"
        for content in (look, "and then")
    )
    model_env.script(reply(text("seen")), reply(text("then")), reply(text("resumed")))
    flags = ["--cwd", str(workspace), "--model", model, "--permission-mode", "bypassPermissions"]
    result = run_cli(
        [*flags, "--input-format", "stream-json", "--output-format", "stream-json", "--verbose"],
        stdin=stdin,
    )
    assert result.exit_code == 0, result.stderr
    outcomes = [
        (line["subtype"], line["result"])
        for line in result.json_lines()
        if line["type"] == "result"
    ]
    assert outcomes == [("success", "seen"), ("success", "then")]
    assert f"content block 1 of a user message was left out: an image whose {said}" in result.stderr
    resumed = run_cli([*flags, "-c", "-p", "and now"])
    assert (resumed.exit_code, resumed.stdout) == (0, "resumed\n"), resumed.stderr
    assert model_env.rejections == []


def test_images_entering_the_history_are_checked_wherever_they_come_from() -> None:
    good = ImageBlock.model_validate(
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}}
    )
    bad = ImageBlock.model_validate({"type": "image", "source": BAD["a file URL"][0]})
    result = ToolResultBlock(tool_use_id="toolu_1", content="two pictures", images=(good, bad))
    assert sendable_images([result, good, bad]) == (
        result.model_copy(
            update={
                "images": (good,),
                "content": "two pictures\n[tether: an image whose URL is not an http(s) address "
                "was left out: the API would refuse it]",
            }
        ),
        good,
        TextBlock(
            text="[tether: an image whose URL is not an http(s) address was left out: the API "
            "would refuse it]"
        ),
    )
