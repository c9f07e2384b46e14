"""An "always allow" rule is never broader than what the user saw: generated extensions of an
approved command (more words after it: options that run programs, write, delete or load
code, other files) are allowed by the saved rule only where they are the approved command
itself, or only read (what plan mode runs). A prefix is offered only for the programs that
only read (suggest_tables.PREFIX_PROGRAMS), whose unknown options they refuse."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tether.permissions import PermissionContext, decide, load_rules, suggest_rule
from tether.permissions.commands import COMMANDS
from tether.permissions.suggest_tables import PREFIX_PROGRAMS

from .conftest import build_tree

APPROVED = [
    "npm test",
    "npm run build",
    "yarn test",
    "bun test",
    "pnpm run lint",
    "ld -o x x.o",
    "prettier --check .",
    "eslint src",
    "vitest run",
    "pre-commit run",
    "aws s3 ls",
    "gh api repos/x/y",
    "npm pkg get name",
    "journalctl -u x",
    "rm -f x.txt",
    "chmod +x run.sh",
    "chown me x.txt",
    "dd if=a of=b",
    "git push origin main",
    "git reset --soft HEAD~1",
    "go generate ./...",
    "cargo test",
    "pytest tests",
    "touch first.txt",
    "docker ps",
    "kubectl get pods",
    "python3 -m http.server 8000",
    "make test",
    "curl https://example.com",
    *(f"{program} README.md" for program in sorted(PREFIX_PROGRAMS)),
]
EXTRA_WORDS = [
    "--script-shell=./x.sh",
    "--plugin=./x.js",
    "--config",
    "./x.ts",
    "--preload",
    "-plugin",
    "./p.so",
    "try-repo",
    "rm",
    "--recursive",
    "-X",
    "DELETE",
    "set",
    "scripts.test=./x",
    "--vacuum-size=1",
    "--directory",
    "/",
    "-rf",
    "--force",
    "--hard",
    "-o",
    "out.txt",
    "src/app.py",
    ".git/hooks/pre-commit",
    "-exec",
    "-c",
    "id",
    "777",
    "of=README.md",
    "-i",
    "--output=x",
    "-delete",
    "~/.ssh/id_rsa",
]


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> PermissionContext:
    tree = build_tree(tmp_path_factory.mktemp("breadth"))
    rules = load_rules([], seed_yaml=None)
    return PermissionContext(
        mode="default", rules=rules, workspace=tree.ws, cwd=tree.ws, home=tree.home
    )


def _with(ctx: PermissionContext, rule: str, mode: str = "default") -> PermissionContext:
    rules = load_rules([], seed_yaml=None, extra_allow=[rule])
    return replace(ctx, rules=rules, mode=mode)  # type: ignore[arg-type]


@settings(max_examples=300, deadline=None, database=None)
@given(
    approved=st.sampled_from(APPROVED),
    extra=st.lists(st.sampled_from(EXTRA_WORDS), min_size=1, max_size=3),
)
def test_a_saved_rule_allows_no_extension_that_does_more_than_read(
    approved: str, extra: list[str], base: PermissionContext
) -> None:
    rule = suggest_rule("Bash", {"command": approved}, base)
    if rule is None:
        return
    extension = " ".join([approved, *extra])
    if decide("Bash", {"command": extension}, _with(base, rule)).behavior != "allow":
        return
    if approved.split()[0] in PREFIX_PROGRAMS:
        # An option such a program does not know is refused by it (getopt), and makes the
        # engine take it for not read-only: what remains must only read.
        extension = " ".join([approved, *(w for w in extra if not w.startswith("-"))])
    plan = decide("Bash", {"command": extension}, _with(base, rule, "plan"))
    assert plan.behavior == "allow", (approved, rule, extension, plan.reason)


@pytest.mark.parametrize("approved", [a for a in APPROVED if a.split()[0] not in PREFIX_PROGRAMS])
def test_programs_outside_the_table_get_the_exact_command(
    approved: str, base: PermissionContext
) -> None:
    rule = suggest_rule("Bash", {"command": approved}, base)
    assert rule is None or "*" not in rule, rule


def test_the_prefix_table_holds_only_programs_the_engine_knows_to_only_read() -> None:
    assert all(COMMANDS[p].read_only for p in PREFIX_PROGRAMS if p in COMMANDS)
    assert COMMANDS.keys() >= PREFIX_PROGRAMS
