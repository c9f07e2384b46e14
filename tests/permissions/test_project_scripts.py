"""The recipes `make` runs from the makefile and the scripts `npm run X` runs from
package.json are judged as bash with the same rules; a makefile or package.json the command
writes is code not read (asked; denied in bypassPermissions mode where a Bash deny rule
exists)."""

from __future__ import annotations

import json

import pytest

from tether.permissions import decide

from .conftest import ContextFactory, Tree

RULES = {
    "permissions": {
        "allow": [
            *("Bash(make *)", "Bash(make)", "Bash(npm run *)", "Bash(npm test)"),
            *("Bash(node *)", "Bash(yarn *)", "Bash(printf *)", "Bash(echo *)", "Bash(sed *)"),
        ],
        "deny": ["Bash(curl *)", "Bash(nc *)"],
    }
}
MODES = ("default", "bypassPermissions")


@pytest.fixture
def project(tree: Tree) -> Tree:
    (tree.ws / "Makefile").write_text(
        "FETCH = cu$(EMPTY)rl\nEMPTY =\nall: build\n\t@echo done\n"
        "build:\n\t-ls\nfetch: helper\n\techo fetching\nhelper:\n\t@$(FETCH) -sS x\n"
        "listen: ; nc -l 1\nshelled:\n\techo $$(curl x)\n"
    )
    scripts = {"test": "true", "fetch": "echo a && curl x", "prelisten": "nc -l 1"}
    scripts["listen"] = "true"
    (tree.ws / "package.json").write_text(json.dumps({"scripts": scripts}))
    (tree.ws / "other.mk").write_text("x:\n\tcurl x\n")
    return tree


@pytest.mark.parametrize(
    "command",
    [
        "make fetch",  # a prerequisite's recipe, through a variable
        "make listen",  # a recipe on the rule's line
        "make shelled",
        "make -s -j4 fetch",
        "make -f other.mk",  # its first target
        "npm run fetch",
        "npm run listen",  # its pre script
        "yarn fetch",
        "node --run fetch",
    ],
)
def test_a_recipe_or_script_that_runs_a_denied_program_is_denied(
    command: str, project: Tree, make_ctx: ContextFactory
) -> None:
    for mode in MODES:
        verdict = decide("Bash", {"command": command}, make_ctx(RULES, mode=mode))
        assert verdict.behavior == "deny", (command, mode, verdict.reason)
        assert "is denied by" in verdict.reason


@pytest.mark.parametrize("command", ["make", "make build", "npm run test", "npm test"])
def test_harmless_recipes_and_scripts_stay_allowed(
    command: str, project: Tree, make_ctx: ContextFactory
) -> None:
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict.behavior == "allow", (command, verdict.reason)


@pytest.mark.parametrize(
    "command",
    [
        "printf 'all:\\n\\tcurl x\\n' > Makefile; make",
        "echo 'x:' > makefile && make x",
        'echo \'{"scripts":{"test":"curl x"}}\' > package.json; npm run test',
        "sed -i s/true/curl/ package.json && npm test",
        "make; printf 'all:\\n\\tcurl x\\n' > Makefile",
    ],
)
def test_a_project_file_the_command_writes_is_not_read(
    command: str, project: Tree, make_ctx: ContextFactory
) -> None:
    default = decide("Bash", {"command": command}, make_ctx(RULES))
    assert default.behavior == "ask", (command, default.reason)
    bypass = decide("Bash", {"command": command}, make_ctx(RULES, mode="bypassPermissions"))
    assert bypass.behavior == "deny", (command, bypass.reason)
