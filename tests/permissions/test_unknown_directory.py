"""A command whose directory is not known before it runs (shell_places): `cd -` after the
command may have given OLDPWD (or PWD, which cd copies to it) a value of its own, and find's
`-execdir`/`-okdir` command, run in each found file's directory. Its relative paths may then
start anywhere, and hg, git and make find their repository or makefile there: asked as `cd
$X && hg status` is, not judged as if it ran in the workspace. A `cd -` the Bash tool's
OLDPWD makes known (where the command started, or a directory an earlier `cd` left) stays
known, and find's `{}` is still named from where find runs."""

from __future__ import annotations

import pytest

from tether.permissions import decide

from .conftest import ContextFactory, Tree

PROGRAMS = ("hg", "git", "make", "find", "ls", "timeout", "bash")
RULES = {
    "permissions": {
        "allow": [f"Bash({p} *)" for p in PROGRAMS] + [f"Bash({p})" for p in PROGRAMS],
        "deny": ["Bash(curl *)", "Read(**/.env)"],
    }
}


@pytest.mark.parametrize(
    "command",
    [
        "OLDPWD={outside}; cd - && hg status",
        "export OLDPWD={outside}; cd - && hg status",
        "declare OLDPWD={outside}; cd - && hg status",
        "read OLDPWD <<< {outside}; cd - && hg status",
        "printf -v OLDPWD {outside}; cd - && hg status",
        "for OLDPWD in {outside}; do cd - && hg status; done",
        "cd src; OLDPWD={outside}; cd - && hg status",
        "OLDPWD={outside} bash -c 'cd - && hg status'",
        "find {outside} -maxdepth 0 -execdir hg status \\;",
        "find {outside} -execdir hg status +",
        "find {outside} -maxdepth 0 -okdir hg status \\;",
        "find {outside} -maxdepth 0 -execdir git status \\;",
        "find {outside} -execdir bash -c 'hg status' \\;",
        "timeout 5 find {outside} -maxdepth 0 -execdir hg status \\;",
        "find . -execdir hg status \\;",
    ],
)
def test_a_repository_tool_run_where_it_is_not_known_is_not_the_workspace(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    verdict = decide("Bash", {"command": tree.fill(command)}, make_ctx(RULES))
    assert verdict.behavior == "deny", (command, verdict.reason)


def test_make_run_where_it_is_not_known_is_asked(tree: Tree, make_ctx: ContextFactory) -> None:
    command = tree.fill("find {outside} -maxdepth 0 -execdir make \\;")
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict.behavior == "ask", verdict.reason


@pytest.mark.parametrize(
    "command",
    [
        "cd - && hg status",
        "cd - && ls",
        "cd src; cd -; ls",
        "cd src && ls; cd - && hg status",
        "cd src && hg status",
        "echo $PWD; cd - && hg status",
        "find . -name '*.py' -execdir ls {} \\;",
        "find . -name '*.py' -exec ls {} \\;",
        "find src -name '*.py' -execdir ls {} +",
    ],
)
def test_a_known_directory_stays_known(command: str, tree: Tree, make_ctx: ContextFactory) -> None:
    verdict = decide("Bash", {"command": tree.fill(command)}, make_ctx(RULES))
    assert verdict.behavior == "allow", (command, verdict.reason)
