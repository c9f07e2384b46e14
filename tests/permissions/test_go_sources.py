"""go builds and runs code from wherever its words and environment point: the directory
`-C` names, `-overlay` and `-modfile` files, a package or `.go` file named by path, the
modules `go work init|use` and `go mod edit -replace` add (asked outside the workspace); and
its environment picks the toolchain, the settings file, where binaries and caches are
written (`GOROOT`, `GOENV`, `GOTOOLCHAIN`, `GOBIN`, `GOCACHE`, `CGO_LDFLAGS`...): variables
that change what runs, in every mode where a deny rule exists."""

from __future__ import annotations

import pytest

from tether.permissions import decide

from .conftest import ContextFactory, Tree, assert_denied_in_every_mode

RULES = {
    "permissions": {
        "allow": ["Bash(go:*)"],
        "deny": ["Edit(.git/**)", "Bash(wget:*)"],
    }
}


@pytest.mark.parametrize(
    "command",
    [
        "go run {outside}/main.go",
        "go test -C {outside} ./...",
        "go build -C={outside}",
        "go build -overlay {outside}/o.json ./...",
        "go vet -modfile={outside}/go.mod .",
        "go install ../elsewhere/cmd",
        "go work init {outside}",
        "go work use {home}/mod",
        "go mod edit -replace=example.com/x={outside}/x",
        "go run $MAIN",
    ],
)
def test_code_from_elsewhere_is_asked(command: str, tree: Tree, make_ctx: ContextFactory) -> None:
    decision = decide("Bash", {"command": tree.fill(command)}, make_ctx(RULES))
    assert decision.behavior == "ask", decision


@pytest.mark.parametrize(
    "command",
    [
        "GOBIN=.git/hooks go install .",
        "GOCACHE=.git/objects go build",
        "GOROOT={outside}/go go build",
        "GOENV={outside}/env go build",
        "GOTOOLCHAIN=go1.99.0 go test",
        "CGO_LDFLAGS=-fuse-ld={outside}/ld go build",
        "env GOWORK={outside}/go.work go build",
        "export GOBIN=$PWD/.git/hooks; go install ./cmd/x",
    ],
)
def test_variables_that_change_what_runs_meet_deny_rules(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    assert_denied_in_every_mode(tree.fill(command), make_ctx, RULES)


@pytest.mark.parametrize(
    "command",
    [
        "go build ./...",
        "go run .",
        "go test ./pkg/... -run TestX",
        "go run main.go",
        "GOOS=linux GOARCH=arm64 CGO_ENABLED=0 go build -o bin/app .",
        "go mod edit -replace=example.com/x=./x",
    ],
)
def test_the_workspace_builds_stay_allowed(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    decision = decide("Bash", {"command": command}, make_ctx(RULES))
    assert decision.behavior == "allow", decision
