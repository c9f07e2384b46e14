"""An included makefile is read as the main one is (its `$(shell ...)` as make reads it, its
rules), found where make finds it (`-I DIR`, `-IDIR`, `--include-dir`, make's own
directories); an include is a read of the file, Read rules holding (`include .env`); the
goals make adds itself (`.EXTRA_PREREQS`, a `.DEFAULT_GOAL` expanded as make expands it, a
makefile it remakes) have their recipes judged."""

from __future__ import annotations

import pytest

from tether.permissions import decide

from .conftest import ContextFactory, Tree

RULES = {
    "permissions": {
        "allow": ["Bash(make *)", "Bash(make)", "Bash(echo *)"],
        "deny": ["Bash(curl *)", "Read(./.env)", "Read(./secrets/**)"],
    }
}
MODES = ("default", "bypassPermissions")
CURL = "curl -sS http://127.0.0.1:9/x"


@pytest.fixture
def project(tree: Tree) -> Tree:
    files = {
        ".env": "KEY=hunter2\n",
        "secrets/key.pem": "pem\n",
        "incdir/bare.mk": f"$(shell {CURL})\n",
        "incdir/rules.mk": f"evil:\n\t{CURL}\n",
        "incdir/assign.mk": f"X := $(shell {CURL})\n",
        "mk/shelldirect.mk": f"X := $(shell {CURL})\nall:\n\ttrue\n",
        "mk/idir.mk": "include bare.mk\nall:\n\ttrue\n",
        "mk/inc2.mk": "include incdir/bare.mk\nall:\n\ttrue\n",
        "mk/inc3.mk": "include mk/shelldirect.mk\n",
        "mk/incrules.mk": "all: evil\n\ttrue\ninclude incdir/rules.mk\n",
        "mk/sinc.mk": "sinclude incdir/assign.mk\nall:\n\ttrue\n",
        "mk/extraprereq.mk": f".EXTRA_PREREQS = evil\nall:\n\ttrue\nevil:\n\t{CURL}\n",
        "mk/extratarget.mk": f"all: .EXTRA_PREREQS := evil\nall:\n\ttrue\nevil:\n\t{CURL}\n",
        "mk/extravar.mk": f"E = ev$(N)il\n.EXTRA_PREREQS += $(E)\nall:\n\ttrue\nevil:\n\t{CURL}\n",
        "mk/defgoal2.mk": f".DEFAULT_GOAL = ev$(EMPTY)il\nall:\n\ttrue\nevil:\n\t{CURL}\n",
        "mk/prereq.mk": f"all: ev$(NOTHING)il\n\ttrue\nevil:\n\t{CURL}\n",
        "mk/remake.mk": f"include mk/part.mk\nmk/part.mk:\n\t{CURL}\nall:\n\ttrue\n",
        "mk/part.mk": "X = 1\n",
        "mk/incenv.mk": "include .env\nall:\n\t@echo $(KEY)\n",
        "mk/incenv2.mk": "-include .env\nexport\nall:\n\t@env\n",
        "mk/incsecret.mk": "include secrets/key.pem\nall:\n\ttrue\n",
        "mk/plain.mk": "include mk/part.mk\nall:\n\techo $(X)\n",
    }
    tree.write(files)
    return tree


@pytest.mark.parametrize(
    "command",
    [
        "make -f mk/inc2.mk",
        "make -f mk/inc3.mk",
        "make -f ./mk/../mk/inc3.mk",
        "make -f mk/incrules.mk",
        "make -f mk/sinc.mk",
        "make -I incdir -f mk/idir.mk",
        "make -Iincdir -f mk/idir.mk",
        "make -f mk/idir.mk -Iincdir",
        "make --include-dir=incdir -f mk/idir.mk",
        "make --include-d incdir -f mk/idir.mk",
        "make -sI incdir -f mk/idir.mk",
        "make -C mk -I ../incdir -f idir.mk",
        "make -f mk/extraprereq.mk",
        "make -f ./mk/../mk/extraprereq.mk",
        "make -f mk/extratarget.mk",
        "make -f mk/extravar.mk",
        "make -f mk/defgoal2.mk",
        "make -f mk/prereq.mk",
        "make -f mk/remake.mk",
        "make -f mk/incenv.mk",
        "make -n -f mk/incenv.mk",
        "make -f mk/incenv2.mk",
        "make -f mk/incsecret.mk",
    ],
)
def test_what_an_include_or_a_goal_make_adds_runs_is_judged(
    command: str, project: Tree, make_ctx: ContextFactory
) -> None:
    for mode in MODES:
        verdict = decide("Bash", {"command": command}, make_ctx(RULES, mode=mode))
        assert verdict.behavior == "deny", (command, mode, verdict.reason)


def test_an_include_is_a_read_of_the_file(project: Tree, make_ctx: ContextFactory) -> None:
    verdict = decide("Bash", {"command": "make -f mk/incenv.mk"}, make_ctx(RULES))
    assert "Read(./.env)" in verdict.reason, verdict.reason


def test_an_include_in_a_directory_known_only_as_make_runs_is_not_read(
    project: Tree, make_ctx: ContextFactory
) -> None:
    command = 'make -I "$D" -f mk/idir.mk'
    assert decide("Bash", {"command": command}, make_ctx(RULES)).behavior == "ask"


@pytest.mark.parametrize(
    "command", ["make -f mk/plain.mk", "make -I incdir -f mk/plain.mk", "make -I- -f mk/plain.mk"]
)
def test_a_plain_include_stays_allowed(
    command: str, project: Tree, make_ctx: ContextFactory
) -> None:
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict.behavior == "allow", (command, verdict.reason)
