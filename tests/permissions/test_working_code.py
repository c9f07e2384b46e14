"""Programs whose code comes from the directory they start in (make's Makefile, npm's
package.json, Python's sys.path[0] for -c and -m, pytest's conftest.py, cargo's build.rs) are
judged where the shell is when they start: after a `cd` out of the workspace, or to a
directory not known before the command runs, that code is unseen and asked."""

from __future__ import annotations

import os

import pytest

from tether.permissions import decide

from .conftest import ContextFactory, Tree

ALLOW = ["Bash(make *)", "Bash(npm run *)", "Bash(npx *)", "Bash(python3 *)", "Bash(pytest *)"]
ALLOW += ["Bash(cargo *)", "Bash(node *)", "Bash(yarn *)", "Bash(true)", "Bash(popd)"]
RULES = {"permissions": {"allow": ALLOW}}


@pytest.mark.parametrize(
    "command",
    [
        "cd {outside} && make",
        "cd {outside}; make -n all",
        "cd {outside} || true; make",
        "pushd {outside} && make && popd",
        "(cd {outside} && make)",
        "if cd {outside}; then make; fi",
        "cd {outside}/../outside && npm run test",
        "cd ../outside && yarn test",
        "cd ~/../outside && make",
        "cd -L homelink/../../outside && make",
        "cd / && cd {outside_rel} && make",
        "cd {outside} && python3 -c 'import json'",
        "cd {outside} && python3 -m x",
        "cd {outside} && python3 -W ignore -m json.tool f",
        "cd {outside} && python3 -Bc 'print(1)'",
        "cd {outside} && npx jest",
        "cd {outside} && pytest -q",
        "cd {outside} && cargo build",
        "cd {outside} && node -e 1",
    ],
)
def test_code_from_a_working_directory_outside_asks(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    text = tree.fill(command).replace("{outside_rel}", str(tree.outside).lstrip("/"))
    verdict = decide("Bash", {"command": text}, make_ctx(RULES))
    assert verdict.behavior == "ask", (text, verdict.reason)
    assert "working directory" in verdict.reason, verdict.reason


@pytest.mark.parametrize(
    "command",
    [
        "for d in $(cat dirs); do cd $d; make; done",
        'cd "$TARGET" && npm run build',
    ],
)
def test_a_working_directory_not_known_before_it_runs_asks(
    command: str, make_ctx: ContextFactory
) -> None:
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict.behavior == "ask", (command, verdict.reason)
    assert "working directory" in verdict.reason, verdict.reason


@pytest.mark.parametrize(
    "command",
    [
        "make",
        "cd src && make all",
        "cd src && python3 -c 'import json'",
        "cd src/.. && npm run test",
        "cd {outside} && python3 -I -c 'import json'",
        "cd {outside} && python3 -P -m json.tool {ws}/README.md",
        "cd {outside} && python3 {ws}/src/app.py",
        "cd {outside} && make -C {ws}",
        "cd {outside} && npm run test --prefix {ws}",
    ],
)
def test_code_from_the_workspace_stays_allowed(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    text = tree.fill(command)
    verdict = decide("Bash", {"command": text}, make_ctx(RULES))
    assert verdict.behavior == "allow", (text, verdict.reason)


def test_a_symlinked_working_directory_is_judged_where_it_leads(
    tree: Tree, make_ctx: ContextFactory
) -> None:
    os.symlink(tree.outside, tree.ws / "build")
    verdict = decide("Bash", {"command": "cd build && make"}, make_ctx(RULES))
    assert verdict.behavior == "ask", verdict.reason
    assert str(tree.outside) in verdict.reason
