"""What `hg cat -o`/`hg export -o` write is named by their format (`%s`, `%d`, `%p`: the
files printed; a `{...}` template or a directory's files any name), the files `histedit
--commands` and `qimport` read, and the commands running what hg's configuration names (`hg
fix`, `hg config --edit`): asked."""

from __future__ import annotations

import pytest

from tether.permissions import Decision, decide

from .conftest import ContextFactory, Tree

RULES = {"permissions": {"allow": ["Bash(hg *)"], "deny": ["Read(.env)", "Bash(curl *)"]}}
_CLAUDE = (
    "writes {ws}/.claude/settings.json, which holds Claude Code's settings, hooks, skills,"
    " agents, commands: asked in every mode but bypassPermissions, whatever the rules allow"
)
_ANY = "may reach a file that asked in every mode but bypassPermissions, whatever the rules allow"
_FIX = "hg fix runs the fixer tools hg's configuration names ([fix])"
_EDIT = "hg config --edit rewrites hg's configuration (the user's, by default) in its editor"


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("hg cat -o %p .claude/settings.json", ("ask", None, _CLAUDE)),
        ("hg cat -r 0 --output=%p .claude/settings.json", ("ask", None, _CLAUDE)),
        ("hg cat -o '%d/%s' .claude/settings.json", ("ask", None, _CLAUDE)),
        ("hg cat -o '.claude/%s' conf/settings.json", ("ask", None, _CLAUDE)),
        ("hg cat -o '.git/hooks/%s' ci/pre-commit", ("ask", None, ".git/hooks/… " + _ANY)),
        (
            "hg cat -o '../%s' src/app.py",
            ("ask", None, "writes {root}/app.py, outside the workspace"),
        ),
        ("hg cat -o %p src", ("ask", None, "… " + _ANY)),
        ("hg cat -o '%s.orig' Makefile", ("ask", None, "….orig " + _ANY)),
        ("hg cat -o '{path}' README.md", ("ask", None, "… " + _ANY)),
        ("hg cat -o %p src/pkg", ("ask", None, "… " + _ANY)),
        ("hg fix --all", ("ask", None, _FIX)),
        ("hg fi -r .", ("ask", None, _FIX)),
        ("hg config --edit", ("ask", None, _EDIT)),
        ("hg config --local -e", ("ask", None, _EDIT)),
        ("hg showconfig --ed", ("ask", None, _EDIT)),
        (
            "hg histedit --commands .env",
            ("deny", "Read(.env)", "reading {ws}/.env is denied by Read(.env)"),
        ),
        (
            "hg histedit --comm=.env 0",
            ("deny", "Read(.env)", "reading {ws}/.env is denied by Read(.env)"),
        ),
        ("hg qimport .env", ("deny", "Read(.env)", "reading {ws}/.env is denied by Read(.env)")),
        (
            "hg qimport -n p fix.patch .env",
            ("deny", "Read(.env)", "reading {ws}/.env is denied by Read(.env)"),
        ),
    ],
)
def test_what_hg_writes_reads_or_runs_is_judged(
    command: str, expected: tuple[str, str | None, str], tree: Tree, make_ctx: ContextFactory
) -> None:
    behavior, rule, reason = expected
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict == Decision(behavior, rule, tree.fill(reason).replace("{root}", str(tree.root)))


@pytest.mark.parametrize(
    "command",
    [
        "hg cat -o %p README.md",
        "hg cat -o '%p.bak' src/app.py",
        "hg cat -o 'build/%R-%s' src/app.py",
        "hg cat -o 'x%%s' README.md",
        "hg cat -o - README.md",
        "hg config ui.username",
        "hg histedit --commands plan.txt",
        "hg qimport fix.patch",
    ],
)
def test_ordinary_uses_stay_allowed(command: str, make_ctx: ContextFactory) -> None:
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict == Decision("allow", "Bash(hg *)", "allowed by Bash(hg *)")


_PURGE = (
    "hg purge deletes the untracked files it finds (local settings among them), which may be"
    " files that change what later sessions run or allow (asked in every mode but"
    " bypassPermissions, whatever the rules allow; the sandbox is off)"
)


@pytest.mark.parametrize("command", ["hg purge", "hg purge --all", "hg clean", "hg purg"])
def test_deleting_untracked_files_is_asked_as_git_clean_is(
    command: str, make_ctx: ContextFactory
) -> None:
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict == Decision("ask", None, _PURGE)


@pytest.mark.parametrize("command", ["hg rm -f .env", "hg remove -A .env", "hg rm src/../.env"])
def test_what_hg_remove_deletes_meets_the_edit_deny_rules(
    command: str, make_ctx: ContextFactory
) -> None:
    rules = {"permissions": {"allow": ["Bash(hg *)"], "deny": ["Edit(.env)"]}}
    verdict = decide("Bash", {"command": command}, make_ctx(rules))
    assert verdict.behavior == "deny", verdict
