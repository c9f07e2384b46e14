"""Ctrl+V at the REPL's prompt: an image on the clipboard, as Claude Code takes it. Read with the
clipboard tool the system has (`wl-paste`, `xclip`, `pngpaste`), saved to a file, and its path
put into the message, where it is sent as an image (`tether.cli.dropped_paths`); with no tool,
or no image on the clipboard, a one-line note says so."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

from prompt_toolkit.application import run_in_terminal
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent

if TYPE_CHECKING:
    from tether.cli.startup import SessionStartup

CLIPBOARD_TOOLS = (
    ("wl-paste", "--no-newline", "--type", "image/png"),
    ("xclip", "-selection", "clipboard", "-target", "image/png", "-out"),
    ("pngpaste", "-"),
)
"""The commands that print the clipboard's image as PNG, tried in this order."""
NO_TOOL = (
    "Ctrl+V: no clipboard tool for images here (wl-paste, xclip or pngpaste); "
    "drop the image file into the terminal, or type its path."
)
NO_IMAGE = "Ctrl+V: no image on the clipboard (text is pasted with the terminal's own paste)."
_WAIT_S = 5.0


def paste_keys(startup: SessionStartup) -> KeyBindings:
    """Ctrl+V: the clipboard's image saved in the session's scratch directory (a temporary
    one before the session is built), its path typed at the cursor."""
    bindings = KeyBindings()

    @bindings.add("c-v")
    def _paste(event: KeyPressEvent) -> None:  # pyright: ignore[reportUnusedFunction]
        image, note = clipboard_image()
        if image is None:
            run_in_terminal(lambda: print(note))
            return
        ready = startup.ready
        directory = (
            ready.session.agent.tool_context.scratch_dir
            if ready is not None
            else Path(tempfile.gettempdir()) / "tether-pasted-images"
        )
        directory.mkdir(parents=True, exist_ok=True)
        path = directory / f"clipboard-{time.strftime('%Y%m%d-%H%M%S')}-{time.monotonic_ns()}.png"
        path.write_bytes(image)
        buffer = event.current_buffer
        before = buffer.document.char_before_cursor
        buffer.insert_text(("" if not before or before.isspace() else " ") + f"'{path}' ")

    return bindings


def clipboard_image() -> tuple[bytes | None, str]:
    """The clipboard's image as PNG bytes, or None and why not."""
    from tether.tools.builtin.read_image import image_type

    tried = False
    for command in CLIPBOARD_TOOLS:
        program = shutil.which(command[0])
        if program is None:
            continue
        tried = True
        try:
            done = subprocess.run(
                [program, *command[1:]], capture_output=True, timeout=_WAIT_S, check=False
            )
        except (OSError, subprocess.TimeoutExpired):
            continue
        if done.returncode == 0 and image_type(done.stdout[:16]) is not None:
            return done.stdout, ""
    return None, NO_IMAGE if tried else NO_TOOL
