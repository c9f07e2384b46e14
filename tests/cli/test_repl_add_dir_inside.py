"""`/add-dir` of a directory the session can work in already (the workspace, `.`, a directory
inside it or inside one added before) adds nothing and says so, as Claude Code does; and a
path written in a sentence (`see /a/b.png, and…`) is found without the punctuation after it,
while a name that holds a comma is found as it is; so is one in parentheses or backticks,
or before a full-width stop."""

from __future__ import annotations

from pathlib import Path

from tests.cli.pty_terminal import PtyRepl
from tests.cli.test_repl_commands import anthropic_only
from tests.cli.test_repl_images import images_sent
from tests.cli.test_sdk_images import png
from tether.testing import FakeModelServer, reply, text


def test_add_dir_of_a_place_already_reachable_adds_nothing_and_says_why(
    model_env: FakeModelServer, workspace: Path, home: Path, tmp_path: Path
) -> None:
    (workspace / "sub").mkdir()
    (tmp_path / "other" / "deep").mkdir(parents=True)
    repl = PtyRepl(workspace, anthropic_only(home))
    try:
        repl.wait_for("> ")
        repl.send("/add-dir .\r")
        repl.wait_for("already accessible")
        repl.send("/add-dir sub\r")
        repl.wait_for("already accessible", count=2)
        repl.send("/add-dir ../other\r")
        repl.wait_for("✓ Added")
        repl.send("/add-dir ../other/deep\r")
        repl.wait_for("already accessible", count=3)
        screen = "".join(repl.screen.split())  # however its lines wrapped
    finally:
        repl.close()
    real, other = workspace.resolve(), (tmp_path / "other").resolve()
    within = "isalreadyaccessiblewithintheexistingworkingdirectory"
    assert f"{real}{within}{real}." in screen, screen
    assert f"{real / 'sub'}{within}{real}." in screen, screen
    assert f"{other / 'deep'}{within}{other}." in screen, screen
    assert screen.count("✓Added") == 1, screen


def test_a_path_before_a_comma_is_found_and_a_comma_in_a_name_is_kept(
    model_env: FakeModelServer, workspace: Path, home: Path, tmp_path: Path
) -> None:
    (tmp_path / "notes.txt").write_text("some notes\n")
    (tmp_path / "a,b.png").write_bytes(png(2, 2))
    model_env.script(reply(text("Seen one.")), reply(text("Seen two.")))
    repl = PtyRepl(workspace, anthropic_only(home))
    try:
        repl.wait_for("> ")
        repl.send(f"see {tmp_path / 'notes.txt'}, and say what it holds\r")
        repl.wait_for("Seen one.")
        repl.send(f"and {tmp_path / 'a,b.png'}: what is it?\r")
        repl.wait_for("Seen two.")
        screen = "".join(repl.screen.split())  # however its lines wrapped
    finally:
        repl.close()
    assert f"{tmp_path / 'notes.txt'}isnotanimage" in screen, screen
    assert len(images_sent(model_env, 1)) == 1  # `a,b.png:`: the picture, the colon left out


def test_a_path_in_parentheses_or_backticks_or_before_a_full_width_stop_is_found(
    model_env: FakeModelServer, workspace: Path, home: Path, tmp_path: Path
) -> None:
    (tmp_path / "pic.png").write_bytes(png(2, 2))
    (tmp_path / "shot.png").write_bytes(png(3, 3))
    (tmp_path / "notes.txt").write_text("some notes\n")
    model_env.script(*(reply(text(f"Seen {n}.")) for n in range(3)))
    repl = PtyRepl(workspace, anthropic_only(home))
    try:
        repl.wait_for("> ")
        repl.send(f"look at `{tmp_path / 'pic.png'}` please\r")
        repl.wait_for("Seen 0.")
        repl.send(f"the screenshot ({tmp_path / 'shot.png'}), what is it?\r")
        repl.wait_for("Seen 1.")
        repl.send(f"これを見て {tmp_path / 'notes.txt'}。\r")
        repl.wait_for("Seen 2.")
        screen = "".join(repl.screen.split())  # however its lines wrapped
    finally:
        repl.close()
    assert len(images_sent(model_env, 0)) == 1
    assert len(images_sent(model_env, 1)) == 1
    assert f"{tmp_path / 'notes.txt'}isnotanimage" in screen, screen
