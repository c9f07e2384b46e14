"""Project instructions: which files are read, in what order, and how `@path` imports resolve."""

from __future__ import annotations

from pathlib import Path

import pytest

from tether.config import instructions
from tether.config.import_syntax import ImportToken, find_imports
from tether.config.instructions import Instructions, load_instructions
from tether.text_files import read_text_file


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    path = tmp_path / "repo"
    (path / ".git").mkdir(parents=True)
    return path


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_nothing_to_read(repo: Path, home: Path) -> None:
    assert load_instructions(repo, home=home) == Instructions("", (), ())


def test_sources_in_order(repo: Path, home: Path) -> None:
    files = [
        write(home / ".claude/CLAUDE.md", "user"),
        write(repo / "CLAUDE.md", "root claude"),
        write(repo / ".claude/CLAUDE.md", "root dot-claude"),
        write(repo / "AGENTS.md", "root agents"),
        write(repo / "CLAUDE.local.md", "local"),
    ]
    assert load_instructions(repo, home=home) == Instructions(
        "Contents of ~/.claude/CLAUDE.md (user instructions, for every project):\n\nuser\n\n"
        "Contents of CLAUDE.md (project instructions):\n\nroot claude\n\n"
        "Contents of .claude/CLAUDE.md (project instructions):\n\nroot dot-claude\n\n"
        "Contents of AGENTS.md (project instructions):\n\nroot agents\n\n"
        "Contents of CLAUDE.local.md (local project instructions, not checked in):\n\nlocal",
        tuple(files),
        (),
    )


def test_from_the_repository_root_down_to_cwd(tmp_path: Path, home: Path) -> None:
    repo = tmp_path / "mono"
    write(repo / ".git", "gitdir: elsewhere\n")  # a worktree's .git is a file
    workspace = repo / "service"
    cwd = workspace / "pkg" / "sub"
    cwd.mkdir(parents=True)
    write(tmp_path / "AGENTS.md", "above the repository: AGENTS.md is the repository's own")
    files = [
        write(tmp_path / "CLAUDE.md", "above the repository: read, as Claude Code does"),
        write(repo / "AGENTS.md", "repo"),
        write(workspace / "CLAUDE.md", "service"),
        write(workspace / "pkg" / "sub" / "AGENTS.md", "sub"),
        write(workspace / "CLAUDE.local.md", "local"),
    ]
    result = load_instructions(workspace, home=home, cwd=cwd)
    assert result.files == tuple(files)
    assert result.problems == ()
    assert [line for line in result.text.splitlines() if line.startswith("Contents")] == [
        f"Contents of {tmp_path / 'CLAUDE.md'} (instructions of a parent directory):",
        f"Contents of {repo / 'AGENTS.md'} (project instructions):",
        "Contents of CLAUDE.md (project instructions):",
        "Contents of pkg/sub/AGENTS.md (project instructions):",
        "Contents of CLAUDE.local.md (local project instructions, not checked in):",
    ]


def test_without_git_the_parents_are_read_up_to_the_file_system_root(
    tmp_path: Path, home: Path
) -> None:
    parent = write(tmp_path / "CLAUDE.md", "outside")
    parent_local = write(tmp_path / "CLAUDE.local.md", "outside, mine")
    write(tmp_path / "AGENTS.md", "not looked for above the workspace")
    workspace = tmp_path / "ws"
    own = write(workspace / "CLAUDE.md", "inside")
    deeper = write(workspace / "a" / "CLAUDE.md", "deeper")
    result = load_instructions(workspace, home=home, cwd=workspace / "a")
    assert result.files == (parent, own, deeper, parent_local)
    assert result.problems == ()


def test_above_a_nested_repository_the_outer_ones_are_read(tmp_path: Path, home: Path) -> None:
    outer = tmp_path / "outer"
    (outer / ".git").mkdir(parents=True)
    inner = outer / "vendor" / "inner"
    (inner / ".git").mkdir(parents=True)
    outer_file = write(outer / "CLAUDE.md", "outer")
    outer_local = write(outer / "CLAUDE.local.md", "outer, mine")
    inner_file = write(inner / "CLAUDE.md", "inner")
    result = load_instructions(inner, home=home)
    assert result.files == (outer_file, inner_file, outer_local)


def test_imports_follow_their_importer(repo: Path, home: Path) -> None:
    write(repo / "CLAUDE.md", "Rules: @docs/rules.md and @~/.claude/mine.md\nEnd.")
    write(repo / "docs" / "rules.md", "Use tabs. See @../AGENTS.md")
    write(repo / "AGENTS.md", "agents")
    write(home / ".claude" / "mine.md", "personal")
    result = load_instructions(repo, home=home, external_imports=True)
    assert result == Instructions(
        "Contents of CLAUDE.md (project instructions):\n\n"
        "Rules: @docs/rules.md and @~/.claude/mine.md\nEnd.\n\n"
        "Contents of docs/rules.md (imported by CLAUDE.md):\n\nUse tabs. See @../AGENTS.md\n\n"
        "Contents of AGENTS.md (imported by docs/rules.md):\n\nagents\n\n"
        "Contents of ~/.claude/mine.md (imported by CLAUDE.md):\n\npersonal",
        (
            repo / "CLAUDE.md",
            repo / "docs" / "rules.md",
            repo / "AGENTS.md",
            home / ".claude" / "mine.md",
        ),
        (),
    )


def test_a_cycle_is_read_once_and_reported(repo: Path, home: Path) -> None:
    write(repo / "CLAUDE.md", "@a.md")
    write(repo / "a.md", "@b.md")
    write(repo / "b.md", "back to @a.md")
    result = load_instructions(repo, home=home)
    assert result.files == (repo / "CLAUDE.md", repo / "a.md", repo / "b.md")
    assert result.problems == ("b.md line 1: @a.md imports a file that imports it; skipped.",)


def test_imports_nest_at_most_four_levels(repo: Path, home: Path) -> None:
    write(repo / "CLAUDE.md", "@l1.md")
    for level in range(1, 7):
        write(repo / f"l{level}.md", f"level {level} @l{level + 1}.md")
    result = load_instructions(repo, home=home)
    assert result.files == (repo / "CLAUDE.md", *(repo / f"l{n}.md" for n in range(1, 5)))
    assert result.problems == ("l4.md line 1: @l5.md not read: imports nest at most 4 levels.",)


def test_a_missing_import_is_reported_once(repo: Path, home: Path) -> None:
    write(repo / "CLAUDE.md", "first\n@gone.md\nagain @./gone.md\n")
    write(repo / "AGENTS.md", "@gone.md @docs/")
    (repo / "docs").mkdir()
    result = load_instructions(repo, home=home)
    assert result.files == (repo / "CLAUDE.md", repo / "AGENTS.md")
    assert result.problems == (
        "CLAUDE.md line 2: @gone.md not found.",
        "AGENTS.md line 1: @docs/ is not a file.",
    )


def test_a_file_read_by_import_is_not_read_again(repo: Path, home: Path) -> None:
    write(repo / "CLAUDE.md", "@AGENTS.md")
    write(repo / "AGENTS.md", "shared")
    result = load_instructions(repo, home=home)
    assert result.files == (repo / "CLAUDE.md", repo / "AGENTS.md")
    assert result.text.count("shared") == 1


def test_what_is_not_an_import() -> None:
    text = (
        "Mail admin@example.com or ask @someone.\n"
        "Inline `@code/span.md` and ``double `@x.md` span`` are code.\n"
        "```\n"
        "@fenced/block.md\n"
        "```\n"
        "~~~~python\n"
        "@decorator.thing\n"
        "```\n"
        "~~~~\n"
        "(@not.md), then @real.md then @dir/file.txt: done <!-- @hidden.md -->\n"
    )
    # Punctuation belongs to the path, as in Claude Code; `@someone.` is not path-like, so
    # nothing is said when no such file exists.
    assert list(find_imports(text)) == [
        ImportToken(1, "someone.", path_like=False),
        ImportToken(10, "real.md", path_like=True),
        ImportToken(10, "dir/file.txt:", path_like=True),
    ]


def test_the_text_is_capped(repo: Path, home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(instructions, "MAX_CHARS", 120)
    write(repo / "CLAUDE.md", "a" * 50)
    write(repo / "AGENTS.md", "b" * 100)
    write(repo / "CLAUDE.local.md", "c")
    result = load_instructions(repo, home=home)
    note = "Instructions cut at 120 characters: the rest of AGENTS.md and 1 more file(s) left out."
    first = "Contents of CLAUDE.md (project instructions):\n\n" + "a" * 50
    second = "Contents of AGENTS.md (project instructions):\n\n" + "b" * 100
    assert result.text == f"{first}\n\n{second[: 120 - len(first) - 2]}\n[{note}]"
    assert result.problems == (note,)
    assert len(result.files) == 3


# -- imports outside the workspace, secrets ----------------------------------------------------


def test_imports_outside_the_workspace_wait_for_approval(tmp_path: Path, home: Path) -> None:
    repo = tmp_path / "repo"
    write(repo / ".git" / "HEAD", "ref: refs/heads/main\n")
    write(tmp_path / "sibling" / "style.md", "SIBLING")
    write(home / "notes" / "mine.md", "NOTES")
    write(repo / "CLAUDE.md", "@../sibling/style.md and @~/notes/mine.md and @docs/in.md")
    write(repo / "docs" / "in.md", "INSIDE, then @../../sibling/style.md again")
    waiting = load_instructions(repo, home=home)
    assert waiting.files == (repo / "CLAUDE.md", repo / "docs" / "in.md")
    assert "SIBLING" not in waiting.text
    assert "NOTES" not in waiting.text
    assert waiting.external == (
        "CLAUDE.md line 1: @../sibling/style.md",
        "CLAUDE.md line 1: @~/notes/mine.md",
    )
    assert waiting.problems == ()
    approved = load_instructions(repo, home=home, external_imports=True)
    assert approved.files == (
        repo / "CLAUDE.md",
        tmp_path / "sibling" / "style.md",
        home / "notes" / "mine.md",
        repo / "docs" / "in.md",
    )
    assert approved.external == ()


def test_an_untrusted_workspace_reads_nothing_outside_it_even_approved(
    tmp_path: Path, home: Path
) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    write(home / "notes.md", "NOTES")
    write(repo / "AGENTS.md", "@~/notes.md")
    result = load_instructions(repo, home=home, trusted=False, external_imports=True)
    assert result.files == (repo / "AGENTS.md",)
    assert result.external == ()
    assert result.problems == (
        "AGENTS.md line 1: @~/notes.md not read: outside the workspace, which is not trusted.",
    )


def test_a_project_file_that_links_out_is_external(repo: Path, home: Path) -> None:
    write(home / "shared" / "CLAUDE.md", "SHARED")
    (repo / "CLAUDE.md").symlink_to(home / "shared" / "CLAUDE.md")
    write(repo / "docs" / "real.md", "REAL")
    (repo / "CLAUDE.local.md").symlink_to(repo / "docs" / "real.md")
    result = load_instructions(repo, home=home)
    assert result.files == (repo / "docs" / "real.md",)
    assert result.external == ("CLAUDE.md",)
    approved = load_instructions(repo, home=home, external_imports=True)
    assert approved.files == (home / "shared" / "CLAUDE.md", repo / "docs" / "real.md")


@pytest.mark.parametrize(
    "secret",
    [".ssh/id_ed25519", ".aws/credentials", ".config/gh/hosts.yml", ".bash_history",
     ".claude.json", ".claude/.credentials.json", ".docker/config.json"],
)  # fmt: skip
def test_no_instruction_file_brings_in_a_credential(repo: Path, home: Path, secret: str) -> None:
    write(home / secret, "SECRET-MATERIAL")
    write(home / ".claude" / "CLAUDE.md", f"mine: @~/{secret}")
    write(repo / "CLAUDE.md", f"@~/{secret}")
    (repo / "AGENTS.md").symlink_to(home / secret)
    write(repo / "docs" / "a.md", "nested")
    (repo / "docs" / "key").symlink_to(home / secret)
    write(repo / "CLAUDE.local.md", "@docs/key")
    result = load_instructions(repo, home=home, external_imports=True)
    assert "SECRET-MATERIAL" not in result.text
    assert home / secret not in result.files
    assert all("holds credentials or history, never read into the prompt" in p
               for p in result.problems)  # fmt: skip
    assert len(result.problems) == 1  # the same file, reported once


def test_files_of_processes_and_devices_are_never_read(repo: Path, home: Path) -> None:
    write(repo / "CLAUDE.md", "@/proc/self/environ @/proc/self/cmdline @/dev/null")
    (repo / "AGENTS.md").symlink_to("/proc/self/environ")
    result = load_instructions(repo, home=home, external_imports=True)
    assert result.files == (repo / "CLAUDE.md",)
    assert "environ" not in result.text.replace("@/proc/self/environ", "")
    assert [p.split(": ", 1)[-1] for p in result.problems] == [
        "@/proc/self/environ not read: /proc holds processes' memory and devices, not "
        "instructions.",
        "@/proc/self/cmdline not read: /proc holds processes' memory and devices, not "
        "instructions.",
        "@/dev/null is not a file.",
    ]


def test_a_read_deny_rule_refuses_an_import(repo: Path, home: Path) -> None:
    write(repo / "CLAUDE.md", "@config/prod.env.md and @docs/ok.md")
    write(repo / "config" / "prod.env.md", "DB_PASSWORD=hunter2")
    write(repo / "docs" / "ok.md", "fine")
    denied = repo / "config" / "prod.env.md"
    result = load_instructions(repo, home=home, refuse=lambda path: path == denied)
    assert result.files == (repo / "CLAUDE.md", repo / "docs" / "ok.md")
    assert result.problems == (
        "CLAUDE.md line 1: @config/prod.env.md not read: a Read deny rule covers it.",
    )


def test_a_link_swapped_in_after_the_check_is_not_followed(repo: Path, home: Path) -> None:
    # What a command running meanwhile could do: the file judged is replaced by a link to
    # a secret before it is opened. The read refuses anything but the file it judged.
    secret = write(home / "elsewhere.txt", "SECRET")
    judged = write(repo / "docs" / "a.md", "harmless")
    judged.unlink()
    judged.symlink_to(secret)
    with pytest.raises(OSError, match="replaced by a link"):
        read_text_file(judged, nofollow=True)
    (repo / "docs" / "a.md").unlink()
    (repo / "moved").mkdir()
    write(repo / "moved" / "a.md", "other")
    (repo / "docs").rmdir()
    (repo / "docs").symlink_to(repo / "moved")
    with pytest.raises(OSError, match="replaced by a link"):
        read_text_file(repo / "docs" / "a.md", nofollow=True)


def test_a_huge_import_is_read_only_as_far_as_the_cap(
    repo: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(instructions, "MAX_FILE_BYTES", 1000)
    write(repo / "CLAUDE.md", "x" * 5000)
    assert len(load_instructions(repo, home=home).text) < 1100
