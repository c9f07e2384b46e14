"""What JavaScript tools write by their options and expand themselves (js_tool_files):
prettier `--write` and eslint `--fix` rewrite their operands, `--cache-location`, `-o`, tsc's
`--outDir` write where they say (outside the workspace: asked), and a quoted glob prettier or
eslint expands itself is asked; plain checks of workspace files stay allowed."""

from __future__ import annotations

import pytest

from tether.permissions import Decision, decide

from .conftest import ContextFactory, Tree

ALLOW = ["Bash(npx prettier *)", "Bash(npx eslint *)", "Bash(npx tsc *)", "Bash(npx jest *)"]
RULES = {"permissions": {"allow": ALLOW, "deny": ["Read(./.env)"]}}


@pytest.mark.parametrize(
    ("command", "written"),
    [
        ("npx prettier --write {outside}/x.js", "{outside}/x.js"),
        ("npx prettier -w {outside}/x.js", "{outside}/x.js"),
        ("npx prettier --cache-location={outside}/c --cache --check .", "{outside}/c"),
        ("npx eslint --fix {outside}/x.js", "{outside}/x.js"),
        ("npx eslint -o {outside}/report.txt src", "{outside}/report.txt"),
        ("npx eslint --output-file={outside}/report.txt src", "{outside}/report.txt"),
        ("npx tsc --outDir {outside}/dist", "{outside}/dist"),
        ("npx tsc --tsBuildInfoFile {outside}/b.info", "{outside}/b.info"),
        ("npx jest --outputFile={outside}/r.json", "{outside}/r.json"),
    ],
)
def test_files_written_by_options_are_judged_as_writes(
    command: str, written: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    line = tree.fill(command)
    expected = Decision("ask", None, f"writes {tree.fill(written)}, outside the workspace")
    assert decide("Bash", {"command": line}, make_ctx(RULES)) == expected


@pytest.mark.parametrize(
    ("command", "pattern"),
    [
        ("npx prettier '.e*'", ".e*"),
        ("npx prettier '**/.env'", "**/.env"),
        ("npx prettier --parser yaml '.e[n]v'", ".e[n]v"),
        ("npx prettier --check 'src/{a,.env}'", "src/{a,.env}"),
        ("npx eslint '**/*.js'", "**/*.js"),
    ],
)
def test_patterns_the_tool_expands_itself_are_asked(
    command: str, pattern: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    tool = command.split()[1]
    why = f"{tool} expands the pattern {pattern} itself, into files not named"
    assert decide("Bash", {"command": command}, make_ctx(RULES)) == Decision("ask", None, why)


@pytest.mark.parametrize(
    "command",
    ["npx prettier --check src/app.py", "npx eslint src", "npx prettier --parser yaml README.md"],
)
def test_checks_of_named_workspace_files_stay_allowed(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    rule = f"Bash(npx {command.split()[1]} *)"
    expected = Decision("allow", rule, f"allowed by {rule}")
    assert decide("Bash", {"command": command}, make_ctx(RULES)) == expected
