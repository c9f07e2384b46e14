"""What the `Read` deny rules name is hidden inside the sandbox, whatever program reads it: a
script the model wrote (`make`, `npm run`, `python3 x.py` running `cat .env`) gets nothing,
while every other file reads as usual. As root and as an unprivileged caller."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

from tether.permissions.read_denials import read_deny_matcher
from tether.permissions.rules import RuleSet, parse_rule
from tether.sandbox.denied_reads import Budget, DeniedScan, ReadDenials
from tether.tools.context import ToolContext

from .conftest import Layout, SandboxWrapper, bash_runner, needs_bwrap

pytestmark = needs_bwrap


def denials(layout: Layout, *rules: str) -> ReadDenials:
    ruleset = RuleSet(
        tuple(parse_rule(r, "deny", source="test", project_root=layout.workspace) for r in rules)
    )
    match, prefixes, names = read_deny_matcher(
        ruleset, workspace=layout.workspace, home=layout.home
    )
    return ReadDenials(match, prefixes, names)


def context(layout: Layout, *rules: str, budget: Budget | None = None) -> ToolContext:
    scan = DeniedScan(denials(layout, *rules), budget or Budget())
    sandbox = dataclasses.replace(layout.sandbox(), denied_scan=scan)
    wrapper = SandboxWrapper(sandbox, layout)
    return ToolContext(
        workspace=layout.workspace, scratch_dir=layout.scratch, command_wrapper=wrapper
    )


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


READER = """import sys
for name in sys.argv[1:]:
    try:
        with open(name) as f:
            print(name, "=", repr(f.read()))
    except OSError as e:
        print(name, "!", type(e).__name__)
"""


async def test_a_script_reads_nothing_a_read_rule_denies(boundary: Layout) -> None:
    ws = boundary.workspace
    write(ws / ".env", "TOP=1\n")
    write(ws / "sub" / "deeper" / ".env", "SUB=1\n")
    write(ws / "node_modules" / "pkg" / ".env", "DEP=1\n")
    write(ws / ".gitignore", "node_modules/\n")
    write(ws / "secrets" / "a.txt", "A\n")
    write(ws / "secrets" / "inner" / "b.txt", "B\n")
    write(ws / "ok.txt", "fine\n")
    write(ws / "sub" / "env.txt", "also fine\n")
    write(boundary.outside / "key.txt", "KEY\n")
    write(boundary.outside / "public.txt", "public\n")
    write(ws / "src" / "x.py", READER)
    boundary.hand_over()
    run = bash_runner(
        context(
            boundary, "Read(**/.env)", "Read(./secrets/**)", f"Read(/{boundary.outside}/key.txt)"
        )
    )
    names = [
        ".env",
        "sub/deeper/.env",
        "node_modules/pkg/.env",
        "secrets/a.txt",
        "secrets/inner/b.txt",
        str(boundary.outside / "key.txt"),
        "ok.txt",
        "sub/env.txt",
        str(boundary.outside / "public.txt"),
    ]
    outcome = await run(command=f"python3 src/x.py {' '.join(names)}; ls -A secrets | wc -l")
    assert outcome.content.splitlines() == [
        ".env = ''",
        "sub/deeper/.env = ''",
        "node_modules/pkg/.env = ''",
        "secrets/a.txt ! FileNotFoundError",
        "secrets/inner/b.txt ! FileNotFoundError",
        f"{boundary.outside / 'key.txt'} = ''",
        "ok.txt = 'fine\\n'",
        "sub/env.txt = 'also fine\\n'",
        f"{boundary.outside / 'public.txt'} = 'public\\n'",
        "0",
    ]
    # Hidden, not destroyed: the files are whole outside.
    assert (ws / ".env").read_text() == "TOP=1\n"
    assert (ws / "secrets" / "a.txt").read_text() == "A\n"


async def test_what_an_earlier_command_made_is_hidden_at_the_next(boundary: Layout) -> None:
    """The tree is looked at when each command starts: a denied file a command wrote (or
    moved into place) is hidden from the next; a link to it leads to nothing."""
    ws = boundary.workspace
    write(ws / "src" / "x.py", READER)
    boundary.hand_over()
    run = bash_runner(context(boundary, "Read(**/.env)"))
    made = await run(command="mkdir -p a/b && echo S=1 > a/b/.env && cat a/b/.env")
    assert made.content == "S=1"  # the command that writes it sees what it wrote
    await run(command="echo T=1 > plain.txt && ln -s plain.txt .env")
    outcome = await run(command="python3 src/x.py a/b/.env .env plain.txt")
    assert outcome.content.splitlines() == ["a/b/.env = ''", ".env = ''", "plain.txt = ''"]
    assert (ws / "a" / "b" / ".env").read_text() == "S=1\n"


async def test_a_walk_cut_by_its_bound_says_so(layout: Layout) -> None:
    for i in range(30):
        write(layout.workspace / f"d{i}" / "f.txt", "x")
    scan = DeniedScan(denials(layout, "Read(**/.env)"), Budget(entries=10))
    found = scan.find([layout.workspace], lambda _p: True)
    assert found.cut is not None
    # The bound is met between directories: the workspace's own listing (31 entries) is
    # whole, and the walk stops before the next directory.
    assert "stopped at its bound of 10 entries after 31 entries" in found.cut
    assert "Read deny rules" in found.cut


def test_git_objects_are_not_walked_and_unrelated_places_not_at_all(layout: Layout) -> None:
    objects = layout.workspace / ".git" / "objects" / "ab"
    write(objects / ".env", "not a name git keeps")
    write(layout.workspace / ".git" / "config", "[core]\n")
    write(layout.outside / "other" / ".env", "x")
    scan = DeniedScan(denials(layout, "Read(**/.env)", "Read(//nowhere/x)"))
    found = scan.find([layout.workspace, layout.outside], lambda _p: True)
    assert (found.paths, found.cut) == ((), None)
    assert os.path.exists(objects / ".env")


def test_the_name_test_never_skips_a_match(layout: Layout) -> None:
    """The walk's shortcut (a name no rule ends with is not matched in full) finds what the
    full match finds, over rules of every shape."""
    for name in ("a.key", "b.pem", ".env", "x.txt", "secrets", "keys", "notes"):
        for where in ("", "src/", "src/deep/", "keys/", "lib/secrets/"):
            write(layout.workspace / f"{where}{name}" / "inner.txt", "x")
            write(layout.workspace / where / f"f-{name}", "x")
    rules = (
        "Read(*.pem)",
        "Read(**/.env)",
        "Read(./src/*.key)",
        "Read(keys/*)",
        "Read(lib/secrets)",
        "Read(f-?otes)",
        f"Read(/{layout.workspace}/src/deep/**)",
    )
    for rule in rules:
        full = denials(layout, rule)
        assert full.names is not None or rule.endswith("**)")
        found = DeniedScan(full).find([layout.workspace], lambda _p: True)
        plain = ReadDenials(full.match, full.prefixes)  # no name test
        expected = DeniedScan(plain).find([layout.workspace], lambda _p: True)
        assert sorted(found.paths, key=str) == sorted(expected.paths, key=str), rule
        assert found.paths, rule
