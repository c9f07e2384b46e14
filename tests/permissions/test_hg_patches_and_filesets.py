"""hg applying patches to the working copy (`import`, `patch`, from a file, the input or a
heredoc; `qpush`, `qgoto`) is asked as `git apply` is: a patch may write
`.claude/settings.local.json`. A fileset reading what files hold (`'set:grep(KEY=a)'`, in
`files`, `status`, `locate`, `debugwalk` or a revset's `file()`) is a read of every file it
can match: asked where a Read deny exists, as printing history is. Allowed before under
`Bash(hg *)`."""

from __future__ import annotations

import pytest

from tether.permissions import Decision

from .conftest import ContextFactory, Tree, bash

RULES = {"permissions": {"allow": ["Bash(hg *)"], "deny": ["Read(./.env)"]}}
PATCH = "--- /dev/null\n+++ b/.claude/settings.local.json\n@@ -0,0 +1 @@\n+{}\n"
_LATER = (
    ", which may be files that change what later sessions run or allow (asked in every mode "
    "but bypassPermissions, whatever the rules allow; the sandbox is off)"
)


def _writes(name: str, does: str) -> Decision:
    return Decision("ask", None, f"hg {name} {does}{_LATER}")


IMPORTS = "writes the files its patches name, which are not read here"


@pytest.mark.parametrize(
    ("command", "name", "does"),
    [
        ("hg import p.diff", "import", IMPORTS),
        ("hg patch p.diff", "patch", IMPORTS),
        ("hg -q import p.diff", "import", IMPORTS),
        ("hg import --no-commit - < p.diff", "import", IMPORTS),
        (f"hg import --no-commit - <<'E'\n{PATCH}E", "import", IMPORTS),
        ("cat p.diff | hg imp -", "import", IMPORTS),
        ("hg qpush", "qpush", "writes the files the queue's patches name"),
        ("hg qgoto top", "qgoto", "writes the files the queue's patches name"),
    ],
)
def test_applying_a_patch_is_asked(
    command: str, name: str, does: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    tree.write({"p.diff": PATCH})
    assert bash(command, make_ctx(RULES)) == _writes(name, does)


def test_a_patch_applied_to_history_alone_stays_allowed(
    tree: Tree, make_ctx: ContextFactory
) -> None:
    tree.write({"p.diff": PATCH})
    found = bash("hg import --bypass p.diff", make_ctx(RULES))
    assert found == Decision("allow", "Bash(hg *)", "allowed by Bash(hg *)")


HISTORY = Decision(
    "ask",
    "Read(./.env)",
    "prints what hg's history holds, which may hold a file Read(./.env) covers",
)


@pytest.mark.parametrize(
    "command",
    [
        "hg files 'set:grep(\"KEY=1\")'",
        "hg status 'set:grep(KEY)'",
        "hg st 'set:grep(KEY)'",
        "hg locate 'set:grep(KEY)'",
        "hg debugwalk 'set:grep(KEY)'",
        "hg log -r 'file(\"set:grep(KEY)\")'",
        "hg files -I 'set:grep(KEY)'",
        "hg files 'set:size(\">1k\")'",
        "hg files 'set:encoding(ascii)'",
    ],
)
def test_a_fileset_reading_contents_is_asked_where_a_read_is_denied(
    command: str, make_ctx: ContextFactory
) -> None:
    assert bash(command, make_ctx(RULES)) == HISTORY


@pytest.mark.parametrize(
    "command", ["hg files", "hg status", "hg files 'set:added()'", "hg log -r tip"]
)
def test_names_alone_stay_allowed(command: str, make_ctx: ContextFactory) -> None:
    assert bash(command, make_ctx(RULES)) == Decision(
        "allow", "Bash(hg *)", "allowed by Bash(hg *)"
    )
