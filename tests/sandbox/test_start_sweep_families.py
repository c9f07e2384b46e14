"""Start files named by a rule tools share rather than listed by tool (`tether.tool_start_files`):
a tool's configuration module (`<tool>.config.<ext>`), its rc file (`.<tool>rc*`), pytest's
`conftest.py`, a tool's plugin or provider cache, an environment's profile. Made by a command,
they are moved aside when it ends, wherever they are; what a package manager installs
(`node_modules/.bin`, a pixi environment) is the engine's to ask about, and stays."""

from __future__ import annotations

import shlex
from pathlib import Path

from tether.sandbox.git_sweep import DISABLED

from .conftest import Layout, bash_runner, end_session, needs_bwrap, sandboxed_context

pytestmark = needs_bwrap

CODE = "require('child_process').execSync('id > /tmp/pwned')\n"

FAMILIES = (
    "eslint.config.mjs",
    "prettier.config.js",
    "vitest.config.ts",
    "storybook.config.cts",
    "karma.conf.js",
    ".eslintrc.cjs",
    ".prettierrc",
    ".mocharc.yml",
    "conftest.py",
    ".sqlfluff",
    ".flake8",
    "pixi.toml",
    ".terraform/providers/registry.terraform.io/hashicorp/null/3.2.0/linux_amd64/tf-null",
    "terraform.d/plugins/example.com/x/y/1.0.0/linux_amd64/terraform-provider-y",
    ".tflint.d/plugins/tflint-ruleset-x",
    ".ruby-lsp/Gemfile",
    ".devenv/profile",
    ".direnv/flake-profile-a5d5b61a.rc",
)
"""Relative to each directory tried; none of them named in the table by itself."""

INSTALLED = (
    "node_modules/.bin/eslint",
    ".pixi/envs/default/bin/python",
    "vendor/bin/phpunit",
    "envs/dev/etc/conda/activate.d/env_vars.sh",
)
"""What package managers write as they install: kept (the permission engine asks)."""

ORDINARY = ("src/app.ts", "src/config.ts", "tests/test_app.py", "docs/rc.md", "app.config.json")


def writes(paths: list[Path]) -> str:
    return "".join(
        f"mkdir -p {shlex.quote(str(p.parent))}; printf '%s' {shlex.quote(CODE)} > "
        f"{shlex.quote(str(p))}; "
        for p in paths
    )


async def test_start_files_by_naming_rule_are_moved_aside(boundary: Layout) -> None:
    ws = boundary.workspace
    boundary.hand_over()
    dirs = [ws, ws / "web" / "app", ws / "a" / "b" / "c" / "d" / "e"]
    targets = [d / name for d in dirs for name in FAMILIES]
    kept = [d / name for d in dirs for name in (*INSTALLED, *ORDINARY)]
    ctx = sandboxed_context(boundary)
    run = bash_runner(ctx)
    outcome = await run(command=writes(targets + kept) + "echo end")
    assert outcome.content.startswith("end"), outcome.content
    assert [str(p) for p in targets if p.exists()] == []
    for target in targets:
        assert target.with_name(target.name + DISABLED).read_text() == CODE
    assert all(p.read_text() == CODE for p in kept)
    await end_session(ctx)


async def test_a_changed_conftest_is_moved_aside_an_unchanged_one_stays(
    boundary: Layout,
) -> None:
    """A project's own `conftest.py`, there before the session: a command that appends to it
    has its version moved aside; one it only reads stays."""
    ws = boundary.workspace
    (ws / "tests").mkdir()
    changed = ws / "tests" / "conftest.py"
    changed.write_text("import pytest\n")
    read = ws / "conftest.py"
    read.write_text("pytest_plugins = []\n")
    boundary.hand_over()
    ctx = sandboxed_context(boundary)
    run = bash_runner(ctx)
    outcome = await run(command=f"cat {read} >/dev/null; echo 'import os' >> {changed}; echo end")
    assert outcome.content.startswith("end"), outcome.content
    assert not changed.exists()
    assert (ws / "tests" / f"conftest.py{DISABLED}").read_text() == "import pytest\nimport os\n"
    assert read.read_text() == "pytest_plugins = []\n"
    await end_session(ctx)
