"""An image file dropped or pasted into the REPL's prompt (its path, bare, quoted or with its
spaces escaped, as terminals write one) is sent as an image, as Claude Code sends it; Ctrl+V
pastes the clipboard's image through the system's clipboard tool, or says there is none."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from tests.cli.pty_terminal import PtyRepl
from tests.cli.test_repl_commands import anthropic_only
from tests.cli.test_sdk_images import png
from tether.testing import FakeModelServer, reply, text

PASTE_START, PASTE_END = "\x1b[200~", "\x1b[201~"


def images_sent(model_env: FakeModelServer, index: int) -> list[dict[str, object]]:
    content = model_env.requests[index].messages()[-1]["content"]
    return [block for block in content if block["type"] == "image"]


def test_a_dropped_image_path_is_sent_as_an_image_quoted_or_escaped(
    model_env: FakeModelServer, workspace: Path, home: Path, tmp_path: Path
) -> None:
    pictures = tmp_path / "my shots"
    pictures.mkdir()
    (pictures / "a b.png").write_bytes(png(2, 2))
    (pictures / "plain.png").write_bytes(png(3, 3))
    (pictures / "notes.png").write_text("not a picture")
    model_env.script(reply(text("A grey square.")), reply(text("Another.")), reply(text("Text.")))
    repl = PtyRepl(workspace, anthropic_only(home))
    try:
        repl.wait_for("> ")
        quoted = f"'{pictures / 'a b.png'}'"
        repl.send(f"{PASTE_START}{quoted}{PASTE_END} what is this\r")
        repl.wait_for("A grey square.")
        escaped = str(pictures / "plain.png").replace(" ", "\\ ")
        repl.send(f"{PASTE_START}{escaped}{PASTE_END} and this\r")
        repl.wait_for("Another.")
        repl.send(f"{PASTE_START}'{pictures / 'notes.png'}'{PASTE_END} see\r")
        repl.wait_for("Text.")
        screen = "".join(repl.screen.split())  # however its lines wrapped
    finally:
        repl.close()
    said = f"{pictures / 'notes.png'} is not an image: it is sent as its path, as text"
    assert "".join(said.split()) in screen, screen  # said, not silently left as a word
    assert "attachesitscontent" in screen, screen
    assert len(images_sent(model_env, 0)) == 1
    assert len(images_sent(model_env, 1)) == 1
    assert images_sent(model_env, 2) == []  # a file named .png that is not a picture is a word


def test_ctrl_v_pastes_the_clipboards_image_or_says_why_not(
    model_env: FakeModelServer, workspace: Path, home: Path, tmp_path: Path
) -> None:
    tools = tmp_path / "bin"
    tools.mkdir()
    picture = tmp_path / "clip.png"
    picture.write_bytes(png(4, 4))
    env = {**anthropic_only(home), "PATH": f"{tools}{os.pathsep}{os.environ['PATH']}"}
    model_env.script(reply(text("A pasted picture.")))
    repl = PtyRepl(workspace, {**env, "PATH": str(tools)})  # no clipboard tool at all
    try:
        repl.wait_for("> ")
        repl.send("\x16")
        repl.wait_for("Ctrl+V: no clipboard tool for images here")
    finally:
        repl.close()
    xclip = tools / "xclip"
    xclip.write_text(f"#!/bin/sh\ncat '{picture}'\n")
    xclip.chmod(xclip.stat().st_mode | stat.S_IEXEC)
    repl = PtyRepl(workspace, env)
    try:
        repl.wait_for("> ")
        repl.send("look at ")
        repl.send("\x16")
        repl.wait_for("clipboard-")
        repl.send("please\r")
        repl.wait_for("A pasted picture.")
    finally:
        repl.close()
    assert len(images_sent(model_env, 0)) == 1
    assert model_env.requests[0].messages()[-1]["content"][0]["text"].startswith("look at '")
