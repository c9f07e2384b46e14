"""What JavaScript tools write by their options and expand themselves (js_tool_files):
prettier `--write` and eslint `--fix` rewrite their operands, `--cache-location`, `-o`, tsc's
`--outDir` write where they say (outside the workspace: asked), and a quoted glob prettier or
eslint expands itself is judged by what it matches (tool_globs); plain checks of workspace
files and routine patterns stay allowed."""

from __future__ import annotations

import pytest

from tether.permissions import Decision, decide

from .conftest import ContextFactory, Tree

ALLOW = [
    *("Bash(npx prettier *)", "Bash(npx eslint *)", "Bash(npx tsc *)", "Bash(npx jest *)"),
    "Bash(npx stylelint *)",
]
DENY = ["Read(./.env)", "Read(~/.ssh/**)"]
RULES = {"permissions": {"allow": ALLOW, "deny": DENY}}


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


_PROTECTED = "asked in every mode but bypassPermissions, whatever the rules allow"
_DENIED = "{pattern} matches {ws}/{file}: reading {ws}/{file} is denied by Read(./.env)"


def _denied(pattern: str, file: str = ".env") -> tuple[str, str, str]:
    return ("deny", "Read(./.env)", _DENIED.format(pattern=pattern, file=file, ws="{ws}"))


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        # Dot names match (the tools' `dot: true`), a class is one character, braces make
        # words, `**` any depth, each match judged as the path it is.
        ("npx prettier '.e*'", _denied(".e*")),
        ("npx prettier --parser yaml '.e[n]v'", _denied(".e?v")),
        ("npx prettier '**/.env'", _denied("**/.env")),
        (
            "npx prettier --check '.{e,x}nv'",
            ("deny", "Read(./.env)", _DENIED.format(pattern=".env", file=".env", ws="{ws}")),
        ),
        ("npx eslint '.en?'", _denied(".en?")),
        # An escape is the character itself; an extglob any text.
        ("npx prettier --check '\\.env'", _denied(".env")),
        (
            "npx prettier --check '.@(env|x)'",
            ("ask", "Read(./.env)", ".… may reach files deny rule Read(./.env) covers"),
        ),
        ("npx eslint --fix '[.]env'", _denied("?env")),
        ("npx stylelint --fix '.e*'", _denied(".e*")),
        (
            "npx prettier --check 'src/*_env'",
            (
                "deny",
                "Read(./.env)",
                "src/*_env matches {ws}/src/link_env: reading {ws}/src/link_env"
                " (that is {ws}/.env) is denied by Read(./.env)",
            ),
        ),
        (
            "npx prettier --check 'se[c]rets/key.*'",
            (
                "deny",
                "Read(./secrets/**)",
                "se?rets/key.* matches {ws}/secrets/key.pem: reading {ws}/secrets/key.pem"
                " is denied by Read(./secrets/**)",
            ),
        ),
        # Leaving the workspace: by `..`, an absolute start, or a symlink among the matches.
        (
            "npx prettier --check '../*'",
            ("ask", None, "../* is listed in {ws}/..: reads {root}, outside the workspace"),
        ),
        (
            "npx prettier --write '{outside}/*.txt'",
            (
                "ask",
                None,
                "{outside}/*.txt is listed in {outside}: writes {outside}, outside the workspace",
            ),
        ),
        (
            "npx prettier --check 'src/*_ssh'",
            (
                "deny",
                "Read(~/.ssh/**)",
                "src/*_ssh matches {ws}/src/link_ssh: reading {ws}/src/link_ssh"
                " (that is {home}/.ssh/id_rsa) is denied by Read(~/.ssh/**)",
            ),
        ),
        (
            "npx prettier --check 'config/*/*.txt'",
            (
                "ask",
                None,
                "config/*/*.txt matches {ws}/config/private/token.txt: reads"
                " {ws}/config/private/token.txt (that is {outside}/data.txt),"
                " outside the workspace",
            ),
        ),
        # Rewritten: a file that changes what runs later is asked.
        (
            "npx prettier --write '.github/**/*.yml'",
            (
                "ask",
                None,
                ".github/**/*.yml matches {ws}/.github/workflows/ci.yml: writes"
                " {ws}/.github/workflows/ci.yml, which holds CI workflows, run with the"
                " repository's secrets: " + _PROTECTED,
            ),
        ),
    ],
)
def test_patterns_the_tool_expands_itself_are_judged_by_what_they_match(
    command: str, expected: tuple[str, str | None, str], tree: Tree, make_ctx: ContextFactory
) -> None:
    behavior, rule, why = expected
    (tree.ws / "config" / "private" / "token.txt").unlink()
    (tree.ws / "config" / "private" / "token.txt").symlink_to(tree.outside / "data.txt")
    rules = {"permissions": {"allow": ALLOW, "deny": [*DENY, "Read(./secrets/**)"]}}
    verdict = decide("Bash", {"command": tree.fill(command)}, make_ctx(rules))
    assert verdict == Decision(behavior, rule, tree.fill(why).replace("{root}", str(tree.root)))


@pytest.mark.parametrize(
    "command",
    [
        "npx prettier --check 'src/**/*.py'",
        "npx prettier --write 'src/*.{py,ts}'",
        "npx prettier --check '*.md' 'config/*.toml'",
        "npx eslint 'src/**/*.js' '!**/.env'",
        "npx eslint --fix 'config/*.toml'",
        "npx stylelint --fix 'src/**/*.css' -o build/report.txt",
        "npx prettier --check 'src/{1..3}.py'",
    ],
)
def test_routine_patterns_in_the_workspace_stay_allowed(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    rule = f"Bash(npx {command.split()[1]} *)"
    expected = Decision("allow", rule, f"allowed by {rule}")
    assert decide("Bash", {"command": command}, make_ctx(RULES)) == expected


def test_a_pattern_not_a_literal_is_asked(tree: Tree, make_ctx: ContextFactory) -> None:
    why = "prettier expands the pattern src/… itself, into files not named"
    verdict = decide("Bash", {"command": 'npx prettier --check "src/$P"'}, make_ctx(RULES))
    assert verdict == Decision("ask", None, why)


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


def test_node_modules_and_git_are_left_out_unless_named(
    tree: Tree, make_ctx: ContextFactory
) -> None:
    # Both tools skip them when they expand a pattern.
    tree.write({"docs/a.md": "# a\n", "docs/node_modules/pkg/.env": "K=1\n"})
    tree.write({"docs/.git/.env": "K=1\n"})
    rules = {"permissions": {"allow": ALLOW, "deny": ["Read(**/.env)"]}}
    rule = "Bash(npx prettier *)"
    allowed = decide("Bash", {"command": "npx prettier --check 'docs/**/*'"}, make_ctx(rules))
    assert allowed == Decision("allow", rule, f"allowed by {rule}")
    named = "npx prettier --check 'docs/node_modules/**'"
    why = tree.fill(
        "docs/node_modules/** matches {ws}/docs/node_modules/pkg/.env: reading"
        " {ws}/docs/node_modules/pkg/.env is denied by Read(**/.env)"
    )
    verdict = decide("Bash", {"command": named}, make_ctx(rules))
    assert verdict == Decision("deny", "Read(**/.env)", why)


def test_a_tree_too_large_to_list_is_judged_by_the_pattern(
    tree: Tree, make_ctx: ContextFactory
) -> None:
    tree.write({f"big/f{n}.md": "x\n" for n in range(2_001)})
    tree.write({"big/.env": "K=1\n"})
    rules = {"permissions": {"allow": ALLOW, "deny": ["Read(**/.env)"]}}
    command = "npx prettier --check 'big/**/.e*'"
    why = "big/**/.e* may reach files deny rule Read(**/.env) covers"
    verdict = decide("Bash", {"command": command}, make_ctx(rules))
    assert verdict == Decision("ask", "Read(**/.env)", why)


@pytest.mark.parametrize("command", ["npx prettier .e*", "shopt -s dotglob; npx prettier .e*"])
def test_a_pattern_in_a_reason_is_shown_as_written(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    """A reason names a pattern by the word the command holds, not the engine's object for
    it (`GlobPath(word='.e*', tokens=...)` was shown)."""
    ws = tree.ws
    assert decide("Bash", {"command": command}, make_ctx(RULES)) == Decision(
        "deny",
        "Read(./.env)",
        f"runs code from .e*: .e* matches {ws}/.env: reading {ws}/.env is denied by Read(./.env)",
    )
