"""cargo runs more than the workspace's code: the package another option names (its build
script runs: `--manifest-path`, `-C DIR`, `install --path`; asked outside the workspace),
and the rustc options given after `--` to `cargo rustc`/`rustdoc`: `-C linker=PROG` runs
PROG (a command of its own: deny and ask rules, and an allow rule of its own), linker
arguments, codegen backends and response files are code not seen."""

from __future__ import annotations

import pytest

from tether.permissions import decide

from .conftest import ContextFactory, Tree, assert_denied_in_every_mode

RULES = {
    "permissions": {
        "allow": ["Bash(cargo:*)"],
        "deny": ["Bash(wget:*)", "Read(**/.env)"],
    }
}


@pytest.mark.parametrize(
    "command",
    [
        "cargo rustc -- -C linker=wget",
        "cargo rustc --release -- -Clinker=wget",
        "cargo rustc -- --codegen linker=wget",
        "cargo rustc -- --codegen=linker=wget",
        "cargo rustdoc -- -C linker=wget",
        "cargo rustc --lib -- -C link-arg=-fuse-ld=/opt/ld",
        "cargo rustc -- -C link-args=-B/opt/bin",
        "cargo rustc -- -Zcodegen-backend=/opt/cg.so",
        "cargo rustc -- @{outside}/args",
        "cargo rustc -- -C linker=$(printf wget)",
    ],
)
def test_rustc_options_meet_the_deny_rules(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    assert_denied_in_every_mode(tree.fill(command), make_ctx, RULES)


@pytest.mark.parametrize(
    "command",
    [
        "cargo build --manifest-path {outside}/Cargo.toml",
        "cargo test --manifest-path={outside}/pkg/Cargo.toml",
        "cargo run --manifest-path {home}/x/Cargo.toml",
        "cargo -C {outside} build",
        "cargo -C{outside} check",
        "cargo install --path {outside}",
        "cargo rustc -- -C linker={outside}/ld",
        "cargo rustc -- -C linker=mold",
    ],
)
def test_code_from_elsewhere_is_asked(command: str, tree: Tree, make_ctx: ContextFactory) -> None:
    decision = decide("Bash", {"command": tree.fill(command)}, make_ctx(RULES))
    assert decision.behavior == "ask", decision


@pytest.mark.parametrize(
    "command",
    [
        "cargo build",
        "cargo test --release -- --nocapture",
        "cargo rustc -- -C opt-level=3",
        "cargo build --manifest-path src/Cargo.toml",
        "cargo install --path .",
    ],
)
def test_the_workspace_builds_stay_allowed(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    decision = decide("Bash", {"command": command}, make_ctx(RULES))
    assert decision.behavior == "allow", decision
