"""cargo's `--config` (any TOML spelling, or a file) and go's `-toolexec`, `-exec`,
`-vettool`, `-ldflags` naming an external linker: programs run that the command does not
show. Code not seen: denied where a deny rule exists, asked otherwise, whatever a rule on
cargo or go allows; their ordinary forms stay as the rule says."""

from __future__ import annotations

import pytest

from tether.permissions import decide

from .conftest import ContextFactory

UNSEEN = [
    "cargo build --config 'build.rustc-wrapper=\"x\"'",
    "cargo build --config \"build.rustc='x'\"",
    "cargo test --config 'target.x86_64-unknown-linux-gnu.runner=\"x\"'",
    "cargo run --config \"target.'cfg(all())'.runner='x'\"",
    "cargo build --config 'build={rustc-wrapper=\"x\"}'",
    'cargo build --config="target.\\"cfg(unix)\\".linker=\'x\'"',
    "cargo build --config src/evil.toml",
    "cargo --config 'build.rustc=\"x\"' build",
    "cargo +nightly build --config build.rustc=x",
    "go build -ldflags=all=-extld=x .",
    "go build -ldflags '-linkmode external -extld x' .",
    "go build --ldflags=-extldflags=-fuse-ld=./x .",
    "go build -toolexec=x .",
    "go build -toolexec 'x -y' .",
    "go test -exec x ./...",
    "go run -exec=x main.go",
    "go vet -vettool=x ./...",
]
PLAIN = [
    "cargo build --release",
    "cargo test -p core",
    "go build -ldflags='-s -w' .",
    "go test -run TestX ./...",
    "go vet ./...",
]
ALLOW = ["Bash(cargo *)", "Bash(go *)"]


@pytest.mark.parametrize("command", UNSEEN)
@pytest.mark.parametrize(("deny", "expected"), [([], "ask"), (["Bash(x *)"], "deny")])
def test_a_build_tool_option_that_names_a_program_is_code_not_seen(
    command: str, deny: list[str], expected: str, make_ctx: ContextFactory
) -> None:
    ctx = make_ctx({"permissions": {"allow": ALLOW, "deny": deny}})
    assert decide("Bash", {"command": command}, ctx).behavior == expected


@pytest.mark.parametrize("command", PLAIN)
def test_ordinary_builds_stay_as_the_rule_says(command: str, make_ctx: ContextFactory) -> None:
    ctx = make_ctx({"permissions": {"allow": ALLOW, "deny": ["Bash(x *)"]}})
    assert decide("Bash", {"command": command}, ctx).behavior == "allow"
