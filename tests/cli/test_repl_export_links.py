"""/export on a real terminal with links where the file would go: a link to nothing is not
followed (writing through it would create its target, outside the workspace), nor a directory
link that leads out of the workspace or to nothing; the file appears whole, no temporary left."""

from __future__ import annotations

from pathlib import Path

from tests.cli.pty_terminal import PtyRepl
from tests.cli.test_repl_commands import anthropic_only
from tether.testing import FakeModelServer, reply, text


def _refused(repl: PtyRepl, times: int) -> None:
    """Until the refusal has been drawn `times` times, however its long lines wrapped."""
    repl.wait_until(lambda s: "".join(s.split()).count("nothingwritten") >= times, "refusal")


def test_export_follows_no_link_to_nothing_nor_out_of_the_workspace(
    model_env: FakeModelServer, workspace: Path, home: Path, tmp_path: Path
) -> None:
    victim = tmp_path / "victim.txt"
    (workspace / "notes.md").symlink_to(victim)
    (workspace / "gone").symlink_to(tmp_path / "no-such-dir")
    (tmp_path / "elsewhere").mkdir()
    (workspace / "out").symlink_to(tmp_path / "elsewhere")
    (workspace / "docs").mkdir()
    (workspace / "a.txt").write_text("a file\n")
    long_name = "n" * 246 + ".txt"  # 250 characters: a name the file system takes
    model_env.script(reply(text("EXPORTED-REPLY")))
    repl = PtyRepl(workspace, anthropic_only(home))
    try:
        repl.wait_for("> ")
        repl.send("say something\r")
        repl.wait_for("EXPORTED-REPLY")
        repl.send("/export notes.md\r")
        _refused(repl, 1)
        repl.send("/export gone/chat.txt\r")
        _refused(repl, 2)
        repl.send("/export out/chat.txt\r")
        _refused(repl, 3)
        repl.send(f"/export {workspace}/out/abs.txt\r")  # absolute, inside: the same check
        _refused(repl, 4)
        repl.send("/export .\r")
        _refused(repl, 5)
        repl.send("/export a.txt/x.txt\r")
        _refused(repl, 6)
        repl.send("/export ~nobody-here-at-all/chat.txt\r")  # no such user: no crash
        _refused(repl, 7)
        repl.send("/export docs/chat.txt\r")
        repl.wait_for("exported to")
        repl.send(f"/export docs/{long_name}\r")
        repl.wait_until(lambda s: "".join(s.split()).count("exportedto") >= 2, "second export")
        screen = "".join(repl.screen.split())  # however its lines wrapped
    finally:
        repl.close()
    assert not victim.exists()
    assert "isafolder;nameafileinit" in screen, screen
    assert "a.txtisafile,notafolder" in screen, screen
    assert (workspace / "docs" / long_name).is_file()
    assert not (tmp_path / "no-such-dir").exists()
    assert list((tmp_path / "elsewhere").iterdir()) == []
    assert "whichdoesnotexist;itisnotfollowed" in screen, screen
    assert "~nobody-here-at-allnamesnohome" in screen, screen
    assert "isalinkoutoftheworkspace" in screen, screen
    assert (workspace / "notes.md").is_symlink()
    assert sorted(p.name for p in (workspace / "docs").iterdir()) == ["chat.txt", long_name]
    assert "EXPORTED-REPLY" in (workspace / "docs" / "chat.txt").read_text()
