"""svnmucc, svnsync and svnrdump (vcs_programs.py): a URL known only as it runs (`$URL`) may be
a `file://` repository whose hooks run, asked as hg's `pull $X` and svnlook's `$R` are; a
`--config-dir` names a configuration whose tunnels (`svn+ssh://`) and helpers (the editor,
run when no `-m` is given) are programs, asked outside the workspace, and a `--config-option`
setting not known harmless."""

from __future__ import annotations

import pytest

from tether.permissions import decide

from .conftest import ContextFactory, Tree

PROGRAMS = ("svnmucc", "svnsync", "svnrdump")
RULES = {
    "permissions": {
        "allow": [f"Bash({p} *)" for p in PROGRAMS],
        "deny": ["Bash(curl *)"],
    }
}


@pytest.mark.parametrize(
    "command",
    [
        "svnsync sync $URL",
        'svnsync sync "$URL"',
        "svnsync init $A https://h/r",
        "svnsync copy-revprops ${U}",
        "svnrdump dump $U",
        'svnrdump load "$U" -F d',
        "svnmucc -U $U mkdir x",
        "svnmucc --root-url=$U mkdir x",
        'svnmucc -U"$U" mkdir x',
        "svnsync --config-option=config:helpers:editor-cmd=curl sync https://h/r",
    ],
)
def test_what_is_known_only_as_it_runs_meets_the_deny_rules(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    verdict = decide("Bash", {"command": tree.fill(command)}, make_ctx(RULES))
    assert verdict.behavior == "deny", (command, verdict.reason)


@pytest.mark.parametrize(
    "command",
    [
        "svnmucc --config-dir {outside}/cfg mkdir https://h/r/x",
        "svnmucc --config-dir {outside}/cfg -U svn+ssh://h/r mkdir x",
        "svnmucc --config-dir={outside}/cfg -U svn+ssh://h/r mkdir x",
        "svnsync --config-dir {outside}/cfg sync https://h/r",
        "svnrdump --config-dir {outside}/cfg dump https://h/r",
    ],
)
def test_a_configuration_directory_outside_is_asked(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    verdict = decide("Bash", {"command": tree.fill(command)}, make_ctx(RULES))
    assert verdict.behavior == "ask", (command, verdict.reason)


@pytest.mark.parametrize(
    "command",
    [
        "svnsync sync https://h/r",
        "svnrdump dump https://h/r -F d",
        'svnmucc -m "$MSG" -U https://h/r mkdir x',
        "svnmucc --config-option config:miscellany:log-encoding=utf-8 -m m mkdir https://h/r/x",
        "svnmucc --config-dir cfg -m m mkdir https://h/r/x",
        "svnmucc --config-option=config:helpers:diff-cmd=curl mkdir https://h/r/x",
    ],
)
def test_ordinary_uses_stay_allowed(command: str, tree: Tree, make_ctx: ContextFactory) -> None:
    verdict = decide("Bash", {"command": tree.fill(command)}, make_ctx(RULES))
    assert verdict.behavior == "allow", (command, verdict.reason)
