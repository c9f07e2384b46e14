"""CLAUDE.md markup as Claude Code reads it, seen in the model's first request: block HTML
comments are left out and import nothing, and `@path` imports follow Claude Code's token rule
(whitespace before `@`, `\\ ` for a space, punctuation part of the path, never in code)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tether.testing import FakeModelServer, reply, text
from tether.testing.cli_runner import CliResult

Run = Callable[..., CliResult]


def _first_request_system(fake_model: FakeModelServer, tether: Run) -> str:
    fake_model.script(reply(text("ok")))
    result = tether("-p", "hi")
    assert (result.exit_code, result.stdout) == (0, "ok\n"), result.stderr
    return fake_model.requests[0].system()


def _marks(workspace: Path, names: list[str]) -> None:
    for name in names:
        path = workspace / "d" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"MARK-{name}\n")


def test_block_comments_are_not_sent_and_their_imports_not_followed(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    _marks(workspace, ["a.md", "b.md", "c.md", "d.md", "e.md", "f.md", "g.md"])
    (workspace / "CLAUDE.md").write_text(
        "# Rules\n"
        "VISIBLE <!-- inline @d/a.md --> after inline\n"
        "<!-- disabled: @d/b.md --> trailing @d/c.md\n"
        "<!--\n"
        "HIDDEN-NOTE maintainers only\n"
        "@d/d.md\n"
        "-->\n"
        "```\n"
        "<!-- in a fence @d/e.md -->\n"
        "```\n"
        "last line\n"
        "<!-- never closed @d/f.md\n"
        "@d/g.md\n"
    )
    system = _first_request_system(fake_model, tether)
    claude_md = system.split("Contents of CLAUDE.md (project instructions):\n\n", 1)[1]
    assert claude_md.split("\n\nContents of ", 1)[0] == (
        "# Rules\n"
        "VISIBLE <!-- inline @d/a.md --> after inline\n"
        " trailing @d/c.md\n"
        "```\n"
        "<!-- in a fence @d/e.md -->\n"
        "```\n"
        "last line\n"
        "<!-- never closed @d/f.md\n"
        "@d/g.md"
    )
    imported = sorted(n for n in "abcdefg" if f"MARK-{n}.md" in system)
    assert imported == ["c"]


def test_import_tokens_are_claude_codes(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    names = ["dot.md", "paren.md", "comma.md", "sp ace.md", "mail.md", "head.md", "item.md"]
    names += ["strong.md", "frag.md", "quoted.md", "lazy.md", "code.md", "listed.md", "noext"]
    _marks(workspace, names)
    (workspace / "CLAUDE.md").write_text(
        "see @d/dot.md.\n"
        "(@d/paren.md)\n"
        "@d/comma.md, and more\n"
        "@d/sp\\ ace.md\n"
        "mail me@d/mail.md\n"
        "# @d/head.md\n"
        "- @d/item.md\n"
        "**@d/strong.md** and @d/frag.md#section\n"
        '"@d/quoted.md"\n'
        "\n"
        "text\n"
        "    @d/lazy.md\n"
        "\n"
        "    @d/code.md\n"
        "\n"
        "- item\n"
        "\n"
        "    @d/listed.md\n"
        "\n"
        "@d/noext\n"
    )
    fake_model.script(reply(text("ok")))
    result = tether("-p", "hi")
    assert result.exit_code == 0, result.stderr
    system = fake_model.requests[0].system()
    imported = [name for name in names if f"MARK-{name}" in system]
    assert imported == [
        "sp ace.md",
        "head.md",
        "item.md",
        "strong.md",
        "frag.md",
        "lazy.md",
        "listed.md",
        "noext",
    ]
    missing = [line for line in result.stderr.splitlines() if "not found" in line]
    assert missing == [
        "tether: instructions: CLAUDE.md line 1: @d/dot.md. not found.",
        "tether: instructions: CLAUDE.md line 3: @d/comma.md, not found.",
    ]


def test_imports_nest_four_levels_as_in_claude_code(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    (workspace / "CLAUDE.md").write_text("@h1.md\n")
    for level in range(1, 8):
        (workspace / f"h{level}.md").write_text(f"MARK-H{level} @h{level + 1}.md\n")
    fake_model.script(reply(text("ok")))
    result = tether("-p", "hi")
    assert result.exit_code == 0, result.stderr
    system = fake_model.requests[0].system()
    assert [level for level in range(1, 8) if f"MARK-H{level} " in system] == [1, 2, 3, 4]
    assert "h4.md line 1: @h5.md not read: imports nest at most 4 levels." in result.stderr
