"""`.claude/rules/*.md` files whose front matter names `paths`: as Claude Code, such a rule is
not in the system prompt; it reaches the model with the result of the first read or edit of a
file one of its globs matches, once, and InstructionsLoaded hooks hear of it as
`path_glob_match` with its globs and that file."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.hooks.helpers import command_hook, on
from tests.hooks.wire import dump_command, dumped, write_settings
from tether.config.rule_paths import globs_of
from tether.testing import FakeModelServer, reply, text, tool_use
from tether.testing.cli_runner import CliResult

Run = Callable[..., CliResult]

API_RULE = """\
---
paths:
  - "src/api/**/*.py"
  - tests/**/test_*.py
---
# API rules
Version every route.
"""

WEB_RULE = """\
---
paths: web/**/*.{ts, tsx}, *.css
---
Components are functions.
"""


@pytest.mark.usefixtures("trusted_workspace")
def test_a_rule_with_paths_is_told_on_the_first_read_of_a_file_it_matches_once(
    fake_model: FakeModelServer, tether: Run, workspace: Path, tmp_path: Path
) -> None:
    dumps = tmp_path / "dumps"
    write_settings(workspace, {"InstructionsLoaded": on("", command_hook(dump_command(dumps)))})
    rules = workspace / ".claude" / "rules"
    (rules / "frontend").mkdir(parents=True)
    (rules / "api.md").write_text(API_RULE)
    (rules / "frontend" / "web.md").write_text(WEB_RULE)
    (rules / "always.md").write_text("Always: be brief.\n")
    (workspace / "src" / "api" / "v1").mkdir(parents=True)
    (workspace / "src" / "api" / "v1" / "routes.py").write_text("r = 1\n")
    (workspace / "src" / "api" / "v1" / "more.py").write_text("m = 1\n")
    (workspace / "README.md").write_text("readme\n")
    fake_model.script(
        reply(tool_use("Read", file_path="README.md")),
        reply(tool_use("Read", file_path="src/api/v1/routes.py")),
        reply(tool_use("Read", file_path="src/api/v1/more.py")),
        reply(tool_use("Write", file_path="web/app/page.tsx", content="export {}\n")),
        reply(text("done")),
    )
    result = tether("-p", "go", "--permission-mode", "acceptEdits")
    assert result.exit_code == 0, result.stderr

    first, after_readme, after_routes, after_more, after_write = fake_model.requests
    assert "Always: be brief." in str(first.body["system"])
    assert "Version every route" not in str(first.body)
    assert "Components are functions" not in str(first.body)
    assert "Version every route" not in str(after_readme.messages()[-1])
    told = str(after_routes.messages()[-1]["content"])
    assert "Contents of .claude/rules/api.md" in told
    assert "# API rules\\nVersion every route." in told
    assert "paths:" not in told  # the front matter is not the rule
    assert str(after_more.body).count("Version every route") == 1  # once
    # A Write of a file the rule matches brings it too (a string of globs, braces and all).
    assert "Components are functions" in str(after_write.messages()[-1]["content"])

    loaded = [d for d in dumped(dumps, "InstructionsLoaded") if d["load_reason"] != "session_start"]
    assert [
        {
            k: d.get(k)
            for k in ("file_path", "memory_type", "load_reason", "globs", "trigger_file_path")
        }
        for d in loaded
    ] == [
        {
            "file_path": str(rules / "api.md"),
            "memory_type": "Project",
            "load_reason": "path_glob_match",
            "globs": ["src/api/**/*.py", "tests/**/test_*.py"],
            "trigger_file_path": str(workspace / "src" / "api" / "v1" / "routes.py"),
        },
        {
            "file_path": str(rules / "frontend" / "web.md"),
            "memory_type": "Project",
            "load_reason": "path_glob_match",
            # Expanded, as Claude Code tells its hooks: braces, and `/**` taken off.
            "globs": ["web/**/*.ts", "web/**/*.tsx", "*.css"],
            "trigger_file_path": str(workspace / "web" / "app" / "page.tsx"),
        },
    ]


def test_paths_are_read_as_leniently_as_claude_code_reads_them() -> None:
    assert globs_of("---\npaths:\n  - **/*.ts\n  - 'lib/**'  \ndescription: x\n---\n") == (
        "**/*.ts",
        "lib/**",
    )
    assert globs_of('---\npaths: ["a/**", "b/*.{c,h}"]\n---\n') == ("a/**", "b/*.{c,h}")
    assert globs_of("---\npaths: src/**/*.{ts,tsx}, docs/*.md # comment\n---\n") == (
        "src/**/*.{ts,tsx}",
        "docs/*.md",
    )
    assert globs_of("---\ndescription: none\n---\npaths: not front matter\n") is None
    assert globs_of("---\npaths:\n---\nbody\n") is None  # none named: for every prompt
    assert globs_of("no front matter\n") is None


GITIGNORE_RULES = {
    "build": "paths: build/",
    "js": 'paths:\n  - "**/*.js"\n  - "!**/*.test.js"',
    "sql": "paths: >\n  sql/**",
    "md": "paths: '*.md'",
    "lists": "paths: |\n  cfg/*.yml\n  /top.txt",
    "flow": "paths: [docs/**/*.{rst,txt}]",
}
READS = [
    "web/a.test.js",  # nothing: the negation takes it back out
    "build/out/bin.txt",  # build: everything under the directory
    "docs/guide/a.md",  # md (any depth: no slash), and not flow (.md is not rst/txt)
    "web/a.js",  # js
    "sql/q.sql",  # sql: a folded block scalar, the trailing /** taken off
    "deep/top.txt",  # nothing: /top.txt is anchored at the top
    "cfg/app.yml",  # lists: a literal block scalar, one glob a line
    "docs/x/notes.rst",  # flow: braces expanded
]


@pytest.mark.usefixtures("trusted_workspace")
def test_rule_paths_match_as_gitignore_patterns_in_any_yaml_form(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    """As Claude Code matches them (its `ignore` package): directory patterns, negation,
    a glob without a slash at any depth, a trailing `/**`; `paths` written in any YAML form."""
    rules = workspace / ".claude" / "rules"
    rules.mkdir(parents=True)
    for name, front in GITIGNORE_RULES.items():
        (rules / f"{name}.md").write_text(f"---\n{front}\n---\nRULE-{name.upper()}-BODY\n")
    for read in READS:
        (workspace / read).parent.mkdir(parents=True, exist_ok=True)
        (workspace / read).write_text("x\n")
    fake_model.script(
        *(reply(tool_use("Read", file_path=read)) for read in READS), reply(text("done"))
    )
    result = tether("-p", "go")
    assert result.exit_code == 0, result.stderr
    assert "RULE-" not in str(fake_model.requests[0].body)
    told = [
        sorted(set(re.findall(r"RULE-(\w+)-BODY", str(request.messages()[-1]["content"]))))
        for request in fake_model.requests[1:]
    ]
    assert dict(zip(READS, told, strict=True)) == {
        "web/a.test.js": [],
        "build/out/bin.txt": ["BUILD"],
        "docs/guide/a.md": ["MD"],
        "web/a.js": ["JS"],
        "sql/q.sql": ["SQL"],
        "deep/top.txt": [],
        "cfg/app.yml": ["LISTS"],
        "docs/x/notes.rst": ["FLOW"],
    }


@pytest.mark.usefixtures("trusted_workspace")
def test_a_rule_whose_paths_cannot_be_read_applies_everywhere_and_is_warned_about(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    rules = workspace / ".claude" / "rules"
    rules.mkdir(parents=True)
    (rules / "mapping.md").write_text("---\npaths:\n  src: '**'\n---\nMAPPING-BODY\n")
    (rules / "bad.md").write_text("---\npaths: 'src\\'\n---\nBAD-GLOB-BODY\n")
    fake_model.script(reply(text("done")))
    result = tether("-p", "go")
    assert result.exit_code == 0, result.stderr
    system = str(fake_model.requests[0].body["system"])
    assert "MAPPING-BODY" in system
    assert "BAD-GLOB-BODY" in system
    assert f"{rules / 'mapping.md'}: `paths` is a dict, not globs" in result.stderr
    assert f"{rules / 'bad.md'}: `paths` glob not valid" in result.stderr


def test_paths_in_every_yaml_form() -> None:
    assert globs_of("---\npaths: >-\n  src/**,\n  lib/*.py\n---\n") == ("src/**", "lib/*.py")
    assert globs_of("---\npaths: |\n  a/**\n  b/*.c\n---\n") == ("a/**", "b/*.c")
    assert globs_of('---\npaths: "x/**, y/*.{c,h}"\n---\n') == ("x/**", "y/*.{c,h}")
    assert globs_of("---\npaths: ['**', '**/**']\n---\n") is None  # all of them: everywhere
    # Not valid YAML (an alias-looking `*`, a colon in a description): read line by line.
    assert globs_of("---\ndescription: a: b\npaths: >\n  sql/**\n---\n") == ("sql/**",)
    assert globs_of("---\npaths: *.md\n---\n") == ("*.md",)
