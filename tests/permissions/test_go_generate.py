"""`go generate` runs the `//go:generate` lines of the Go files it is given: judged as bash,
in each file's directory, with go generate's variables given; a `-command` alias is code not
read."""

from __future__ import annotations

import pytest

from tether.permissions import decide

from .conftest import ContextFactory, Tree

RULES = {"permissions": {"allow": ["Bash(go *)", "Bash(stringer *)"], "deny": ["Bash(curl *)"]}}


@pytest.fixture
def module(tree: Tree) -> Tree:
    (tree.ws / "gen.go").write_text("package main\n\n//go:generate curl -sS http://h/x\n")
    (tree.ws / "ok.go").write_text("package main\n\n//go:generate stringer -type=Pill\n")
    deep = tree.ws / "pkg" / "deep"
    deep.mkdir(parents=True)
    (deep / "d.go").write_text("package deep\n//go:generate sh -c 'curl x'\n")
    (tree.ws / "alias").mkdir()
    (tree.ws / "alias" / "a.go").write_text("//go:generate -command c curl\n//go:generate c x\n")
    (tree.ws / "vendor").mkdir()
    (tree.ws / "vendor" / "v.go").write_text("//go:generate curl x\n")
    return tree


@pytest.mark.parametrize(
    "command",
    [
        "go generate",
        "go generate .",
        "go generate gen.go",
        "go generate ./...",
        "go generate -x ./pkg/...",
        "go generate -run stringer ./pkg/deep",
        "cd pkg && go generate ./...",
    ],
)
def test_go_generate_lines_are_judged(command: str, module: Tree, make_ctx: ContextFactory) -> None:
    for mode in ("default", "bypassPermissions"):
        verdict = decide("Bash", {"command": command}, make_ctx(RULES, mode=mode))
        assert verdict.behavior == "deny", (command, mode, verdict.reason)


@pytest.mark.parametrize(
    "command", ["go generate ok.go", "go generate -n ./...", "go build ./...", "go vet ./..."]
)
def test_harmless_generation_stays_allowed(
    command: str, module: Tree, make_ctx: ContextFactory
) -> None:
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict.behavior == "allow", (command, verdict.reason)


def test_an_alias_is_code_not_read(module: Tree, make_ctx: ContextFactory) -> None:
    verdict = decide("Bash", {"command": "go generate ./alias"}, make_ctx(RULES))
    assert verdict.behavior == "ask", verdict.reason


@pytest.mark.parametrize(
    "command",
    [
        "go -C . generate ./...",
        "go -C=. generate ./...",
        "go -C ./ generate ./...",
        "go --C . generate",
        "go --C=pkg generate ./...",
        "go -C pkg/deep generate",
        "cd pkg && go -C deep generate",
    ],
)
def test_go_global_directory_is_where_generate_runs(
    command: str, module: Tree, make_ctx: ContextFactory
) -> None:
    # go's global `-C DIR` (before any subcommand) changes to DIR as `cd` does.
    for mode in ("default", "bypassPermissions"):
        verdict = decide("Bash", {"command": command}, make_ctx(RULES, mode=mode))
        assert verdict.behavior == "deny", (command, mode, verdict.reason)


def test_go_global_directory_elsewhere_is_its_own_code(
    module: Tree, make_ctx: ContextFactory
) -> None:
    ctx = make_ctx(RULES)
    assert decide("Bash", {"command": "go -C vendor generate"}, ctx).behavior == "deny"
    assert decide("Bash", {"command": 'go -C "$D" generate'}, ctx).behavior == "ask"
    assert decide("Bash", {"command": "go -C . generate ok.go"}, ctx).behavior == "allow"
    # Other subcommands read past the global option too.
    outside = decide("Bash", {"command": "go -C . run /elsewhere/main.go"}, ctx)
    assert outside.behavior == "ask", outside.reason
    written = decide("Bash", {"command": "go -C . env -w GOFLAGS=-x"}, ctx)
    assert written.behavior == "ask", written.reason
