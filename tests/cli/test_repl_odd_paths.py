"""Words of a message, and `/add-dir` arguments, that look like paths but cannot be one, or
name something that must not be read: `~5` in prose, `~nobody`, a link that loops, a name
longer than the system takes (a pasted base64 JPEG starts `/9j/`), a FIFO. The REPL neither
crashes nor waits: the message is sent as its text, whole, and `/add-dir` says why it adds
nothing."""

from __future__ import annotations

import os
from pathlib import Path

from tests.cli.pty_terminal import PtyRepl
from tests.cli.test_repl_commands import anthropic_only
from tether.testing import FakeModelServer, reply, text


def _text_sent(model_env: FakeModelServer, index: int) -> str:
    content = model_env.requests[index].messages()[-1]["content"]
    if isinstance(content, str):
        return content
    return "".join(str(block.get("text", "")) for block in content if block["type"] == "text")


def test_words_that_cannot_be_paths_are_sent_as_text(
    model_env: FakeModelServer, workspace: Path, home: Path, tmp_path: Path
) -> None:
    (tmp_path / "loop").symlink_to("loop")
    os.mkfifo(tmp_path / "pipe")
    jpeg = "/9j/" + "4AAQSkZJRgABAQ" * 40  # one word, longer than a file name may be
    messages = [
        "the build takes ~5 minutes, and ~nobodyhere/x.png too, why?",
        f"hello there, see {tmp_path / 'loop'} please",
        f"what is this image? {jpeg}",
        f"what is {tmp_path / 'pipe'}, please",  # a FIFO with no writer: never opened
        f"and @{tmp_path / 'pipe'} or @~nobodyhere/x or @{tmp_path / 'loop'}?",
    ]
    model_env.script(*(reply(text(f"Answer {n}.")) for n in range(len(messages))))
    repl = PtyRepl(workspace, anthropic_only(home))
    try:
        repl.wait_for("> ")
        for n, message in enumerate(messages):
            repl.send(f"{message}\r")
            repl.wait_for(f"Answer {n}.")
    finally:
        repl.close()
    for n, message in enumerate(messages):
        assert _text_sent(model_env, n) == message  # nothing lost, nothing attached


def test_add_dir_says_why_a_path_names_no_directory(
    model_env: FakeModelServer, workspace: Path, home: Path, tmp_path: Path
) -> None:
    (tmp_path / "loop").symlink_to("loop")
    os.mkfifo(tmp_path / "pipe")
    repl = PtyRepl(workspace, anthropic_only(home))
    try:
        repl.wait_for("> ")
        repl.send(f"/add-dir {tmp_path / 'loop'}\r")
        repl.wait_for("loops")
        repl.send("/add-dir ~nobodyhere\r")
        repl.wait_for("no user named")
        repl.send(f"/add-dir /{'a' * 300}\r")
        repl.wait_for("too long")
        repl.send(f"/add-dir {tmp_path / 'pipe'}\r")
        repl.wait_for("not a directory")
        repl.send(f"/add-dir {tmp_path / 'none'}\r")
        repl.wait_for("no such directory")
        repl.send(f"/add-dir {tmp_path}\r")
        repl.wait_for("✓ Added")  # the REPL goes on
        screen = "".join(repl.screen.split())
    finally:
        repl.close()
    assert "Traceback" not in screen, screen
