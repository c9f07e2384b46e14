"""ssh reached by other names: cvs's `:ext:` repositories (`-d ROOT`, `-dROOT`, `$CVSROOT`;
`$CVS_RSH`, ssh by default), svn's tunnel program (`$SVN_SSH`), and sshpass, a wrapper whose
command is judged as typed: a deny rule on ssh or on the program they start holds, in
bypassPermissions mode too."""

from __future__ import annotations

import pytest

from tether.permissions import decide

from .conftest import ContextFactory, Tree

RULES = {
    "permissions": {
        "allow": [f"Bash({p} *)" for p in ("cvs", "svn", "sshpass", "ls")],
        "deny": ["Bash(ssh *)", "Bash(scp *)", "Bash(curl *)", "Read(./.env)"],
    }
}


@pytest.mark.parametrize(
    "command",
    [
        "cvs -d :ext:h:/r co x",
        "cvs -d:ext:h:/r co x",
        "cvs -q -z 3 -d :ext:u@h:/r update",
        "cvs -d :EXT:h:/r co x",
        "CVSROOT=:ext:h:/r cvs co x",
        "cvs -d ':extssh;port=22:h:/r' co x",
        "CVS_RSH=curl cvs -d :ext:h:/r co x",
        "SVN_SSH='curl x' svn up",
        "SVN_SSH=ssh svn checkout svn+ssh://h/r",
        "sshpass -p x scp a h:b",
        "sshpass -px ssh h",
        "sshpass -e scp a h:b",
        "sshpass -f pw ssh h true",
        "sshpass -f .env ls",
    ],
)
def test_ssh_by_another_name_is_denied(command: str, tree: Tree, make_ctx: ContextFactory) -> None:
    for mode in ("default", "bypassPermissions"):
        verdict = decide("Bash", {"command": command}, make_ctx(RULES, mode=mode))
        assert verdict.behavior == "deny", (command, mode, verdict.reason)


@pytest.mark.parametrize(
    "command",
    [
        "cvs -d {ws}/cvsroot co x",
        "cvs -d :pserver:anon@h:/r co x",
        "cvs co -d dir x",
        "svn up",
        "sshpass -p x ls",
    ],
)
def test_local_and_direct_uses_stay_allowed(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    """A local cvs root inside the workspace (one outside is asked: test_vcs_programs)."""
    verdict = decide("Bash", {"command": tree.fill(command)}, make_ctx(RULES))
    assert verdict.behavior == "allow", (command, verdict.reason)
