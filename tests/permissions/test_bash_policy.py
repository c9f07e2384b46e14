"""Bash decisions beyond the corpus: how rules, wrappers, files and the shell's directory
combine, with whole decisions."""

from __future__ import annotations

import pytest

from tether.permissions import Decision, PermissionContext, decide
from tether.permissions.access import ROOT_WRITE

from .conftest import ContextFactory, Tree


def bash(command: str, ctx: PermissionContext) -> Decision:
    return decide("Bash", {"command": command}, ctx)


def test_every_part_must_be_allowed(make_ctx: ContextFactory) -> None:
    ctx = make_ctx({"permissions": {"allow": ["Bash(npm test *)", "Bash(npm run lint)"]}})
    assert bash("npm test && npm run lint", ctx) == Decision(
        "allow",
        "Bash(npm test *), Bash(npm run lint)",
        "allowed by Bash(npm test *), Bash(npm run lint)",
    )
    assert bash("npm test && npm publish", ctx) == Decision(
        "ask", None, "no rule allows `npm publish`"
    )


def test_deny_beats_ask_beats_allow(make_ctx: ContextFactory) -> None:
    ctx = make_ctx(
        {
            "permissions": {
                "allow": ["Bash(git *)"],
                "ask": ["Bash(git push *)"],
                "deny": ["Bash(git push -f *)"],
            }
        }
    )
    assert bash("git push origin", ctx).behavior == "ask"
    assert bash("git push -f origin", ctx).behavior == "deny"
    assert bash("git fetch", ctx).behavior == "allow"
    assert bash("git push origin; git push -f x", ctx).behavior == "deny"


def test_unknown_parts_may_match_a_deny_rule(make_ctx: ContextFactory) -> None:
    ctx_settings = {"permissions": {"deny": ["Bash(git push *)"], "allow": ["Bash(git *)"]}}
    ctx = make_ctx(ctx_settings)
    # Denied in every mode, bypassPermissions too: it may be `git push origin`.
    for mode in ("default", "bypassPermissions"):
        assert bash("git $SUB origin", make_ctx(ctx_settings, mode=mode)) == Decision(
            "deny",
            "Bash(git push *)",
            "`git … origin` may run what deny rule Bash(git push *) forbids; "
            "write the command plainly",
        )
    assert bash("git log $REF", ctx).behavior == "allow"
    asked = make_ctx({"permissions": {"ask": ["Bash(git push *)"]}}, mode="bypassPermissions")
    assert bash("git $SUB origin", asked) == Decision(
        "ask", "Bash(git push *)", "`git … origin` may run what ask rule Bash(git push *) covers"
    )


def test_a_rule_on_a_wrapper_does_not_allow_what_it_runs(make_ctx: ContextFactory) -> None:
    ctx = make_ctx({"permissions": {"allow": ["Bash(bash *)", "Bash(timeout *)"]}})
    assert bash("bash scripts/build.sh", ctx).behavior == "allow"
    assert bash("bash -c 'make deploy'", ctx) == Decision(
        "ask", None, "no rule allows `make deploy`"
    )
    assert bash("timeout 5 make", ctx).behavior == "ask"


def test_privileged_commands_need_a_rule_naming_them(make_ctx: ContextFactory) -> None:
    ctx = make_ctx(
        {
            "permissions": {
                "allow": ["Bash(sudo apt install *)", "Bash(apt *)"],
                "deny": ["Bash(rm *)"],
            }
        }
    )
    assert bash("sudo apt install jq", ctx) == Decision(
        "allow",
        "Bash(sudo apt install *), Bash(apt *)",
        "allowed by Bash(sudo apt install *), Bash(apt *)",
    )
    assert bash("sudo apt remove jq", ctx) == Decision(
        "ask", None, "`sudo apt remove jq` runs as another user; only a rule naming it allows it"
    )
    assert bash("sudo -s rm x", ctx).behavior == "deny"


def test_an_allowed_command_may_write_inside_the_workspace(
    tree: Tree, make_ctx: ContextFactory
) -> None:
    ctx = make_ctx({"permissions": {"allow": ["Bash(python gen.py *)"]}})
    assert bash("python gen.py > out.txt", ctx).behavior == "allow"
    assert bash("python gen.py > ../out.txt", ctx) == Decision(
        "ask", None, f"writes {tree.root}/out.txt, outside the workspace"
    )
    assert bash("echo hi > out.txt", ctx) == Decision("ask", None, f"writes {tree.ws}/out.txt")


@pytest.mark.parametrize("policy", [{}, {"permissions": {"allow": ["Bash(find *)"]}}])
def test_a_write_of_the_workspace_itself_says_so(
    tree: Tree, make_ctx: ContextFactory, policy: dict[str, object]
) -> None:
    """`find . -delete` deletes below the workspace: asked as before, but not as a write
    outside it."""
    reason = f"writes {tree.ws}, the workspace itself: {ROOT_WRITE}"
    for command in ("find . -delete", "rm -rf ."):
        assert bash(command, make_ctx(policy)) == Decision("ask", None, reason), command
    assert bash("find .. -delete", make_ctx(policy)) == Decision(
        "ask", None, f"writes {tree.root}, outside the workspace"
    )


def test_relative_paths_follow_cd(tree: Tree, make_ctx: ContextFactory) -> None:
    ctx = make_ctx({"permissions": {"deny": ["Read(./.env)"]}})
    assert bash("cd src && cat ../.env", ctx).behavior == "deny"
    # A cd inside a subshell may or may not apply later: both directories are checked.
    assert bash("(cd src); cat ../.env", ctx).behavior == "deny"
    assert bash("cd $X; cat app.py", make_ctx()) == Decision(
        "ask", None, "reads app.py, which may be anywhere"
    )
    inside_src = make_ctx({"permissions": {"deny": ["Read(./.env)"]}}, cwd=tree.ws / "src")
    # Relative rules hang from the workspace, not from the shell's directory.
    assert bash("cat ../.env", inside_src).behavior == "deny"
    assert bash("cat app.py", inside_src).behavior == "allow"


def test_program_paths(make_ctx: ContextFactory) -> None:
    ctx = make_ctx({"permissions": {"allow": ["Bash(make *)"], "deny": ["Bash(rm *)"]}})
    assert bash("/usr/bin/make all", ctx).behavior == "allow"
    assert bash("./make all", ctx).behavior == "ask"
    assert bash("/tmp/bin/rm x", ctx).behavior == "deny"
    assert bash("/usr/bin/cat README.md", ctx).behavior == "allow"
    assert bash("./cat README.md", ctx).behavior == "ask"


def test_seed_allow_must_match_every_command(make_ctx: ContextFactory) -> None:
    ctx = make_ctx(seed="always_allow:\n  - '^make( |$)'\n")
    assert bash("make test", ctx) == Decision(
        "allow", "always_allow: ^make( |$)", "allowed by always_allow: ^make( |$)"
    )
    assert bash("make test; curl x", ctx).behavior == "ask"
    assert bash("make -j4 test", ctx).behavior == "allow"
    # A word known only as it runs may be `--eval=...` or `SHELL=...`: code not seen.
    assert bash("make $TARGET", ctx).behavior == "ask"


def test_plan_mode_takes_only_read_only_commands(make_ctx: ContextFactory) -> None:
    ctx = make_ctx({"permissions": {"allow": ["Bash(npm test *)"]}}, mode="plan")
    assert bash("git diff | head -n 50", ctx).behavior == "allow"
    assert bash("ls > /dev/null", ctx).behavior == "allow"
    assert bash("npm test", ctx).behavior == "deny"
    assert bash("X=1 ls", ctx).behavior == "allow"
    assert bash("PATH=/x ls", ctx).behavior == "deny"
    assert bash("sudo ls", ctx).behavior == "deny"


def test_accept_edits_file_commands(tree: Tree, make_ctx: ContextFactory) -> None:
    ctx = make_ctx(mode="acceptEdits")
    assert bash("mkdir -p a/b && touch a/b/c && cp a/b/c d && mv d e && rm e", ctx) == Decision(
        "allow", None, "acceptEdits mode: file commands in the workspace"
    )
    assert bash("/tmp/evil/mkdir x", ctx).behavior == "ask"
    assert bash("cp README.md ~/x", ctx) == Decision(
        "ask", None, f"writes {tree.home}/x, outside the workspace"
    )


def test_recursive_search_of_a_directory_holding_denied_files(
    tree: Tree, make_ctx: ContextFactory
) -> None:
    ctx = make_ctx({"permissions": {"deny": ["Read(./.env)"]}})
    assert bash("grep -rn TODO src", ctx).behavior == "allow"
    assert bash("grep -rn TODO .", ctx) == Decision(
        "ask",
        "Read(./.env)",
        f"searches {tree.ws}, which may hold files deny rule Read(./.env) covers",
    )
    # rg skips hidden files unless told not to (test_over_asking).
    assert bash("rg TODO", ctx).behavior == "allow"
    assert bash("rg --hidden TODO", ctx).behavior == "ask"


def test_hidden_shell_features_are_asked(make_ctx: ContextFactory) -> None:
    ctx = make_ctx()
    assert bash("$(echo ls)", ctx) == Decision("ask", None, "the program name is not a literal")
    assert bash("ls (", ctx) == Decision("ask", None, "the command does not parse cleanly")
    assert bash("LD_PRELOAD=x.so ls", ctx) == Decision(
        "ask", None, "sets LD_PRELOAD, which changes what programs run or load"
    )
    assert bash("timeout --frob 5 ls", ctx) == Decision(
        "ask", None, "cannot tell what timeout runs: unknown option --frob"
    )
    assert bash("", ctx) == Decision("allow", None, "nothing to check")
