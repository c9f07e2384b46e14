"""Programs whose options run a program or load code (compilers under any name, openssl,
ssh-keygen, ninja, run-parts), and what "always allow" saves for them. That a compiler's
`-wrapper` runs what it names is also judged by bash, in the differential test
(`sentinel_positions.py`: `gcc-wrapper`, `cc-wrapper-shell`)."""

from __future__ import annotations

import pytest

from tether.permissions import PermissionContext, decide, suggest_rule

from .conftest import ContextFactory

COMPILERS = [
    "gcc",
    "cc",
    "clang",
    "g++-13",
    "x86_64-linux-gnu-gcc-12",
    "clang-17",
    "arm-none-eabi-g++",
]
DENY = ["Bash(rm *)", "Read(./.env)"]


def decision(command: str, ctx: PermissionContext) -> str:
    return decide("Bash", {"command": command}, ctx).behavior


@pytest.mark.parametrize("compiler", COMPILERS)
@pytest.mark.parametrize(
    "options",
    [
        "-wrapper /bin/sh,-c,'rm -rf x'",
        "-wrapper rm,-rf,x",
        "-fplugin=./p.so",
        "-fpass-plugin=./p.so",
        "-B /tmp/tools",
        "-B/tmp/tools",
        "-specs=x.specs",
        "-Wl,-plugin,./lto.so",
        "-Wl,--plugin=./lto.so",
        "-Xlinker -plugin -Xlinker ./lto.so",
        "-Xclang -load -Xclang ./p.so",
        "-fuse-ld=./ld",
        "--ld-path=./ld",
    ],
)
@pytest.mark.parametrize("mode", ["default", "bypassPermissions"])
def test_a_compiler_option_that_runs_or_loads_code_is_not_allowed_past_a_deny_rule(
    compiler: str, options: str, mode: str, make_ctx: ContextFactory
) -> None:
    ctx = make_ctx({"permissions": {"allow": [f"Bash({compiler} *)"], "deny": DENY}}, mode=mode)
    assert decision(f"{compiler} {options} -c x.c", ctx) == "deny"
    assert decision(f"{compiler} -O2 -fuse-ld=lld -o app x.c", ctx) == "allow"


@pytest.mark.parametrize(
    "command",
    [
        "openssl engine dynamic -pre SO_PATH:/tmp/x.so -pre LOAD",
        "openssl req -new -engine pkcs11 -key k",
        "openssl s_client -provider legacy -connect h:443",
        "ssh-keygen -D ./pkcs11.so",
        "ssh-keygen -w ./fido.so -t ed25519-sk",
        "ssh-add -s ./pkcs11.so",
        "ninja -f /tmp/other.ninja",
        "run-parts /tmp/scripts",
        "COMPILER_PATH=/tmp/tools gcc -c x.c",
        "GCC_EXEC_PREFIX=/tmp/tools/ gcc -c x.c",
        "OPENSSL_CONF=./x.cnf openssl version",
        "RUSTFLAGS='-C linker=./x' cargo build",
        "RUSTFLAGS=-Clinker=./x cargo build",
        "go build -compiler gccgo -gccgoflags=-wrapper,./x .",
        "go build -compiler gccgo --gccgoflags '-wrapper ./x' .",
    ],
)
def test_other_tools_that_load_code_they_are_given(command: str, make_ctx: ContextFactory) -> None:
    allow = [
        f"Bash({p} *)"
        for p in ("openssl", "ssh-keygen", "ssh-add", "ninja", "run-parts", "gcc", "cargo", "go")
    ]
    ctx = make_ctx({"permissions": {"allow": allow, "deny": DENY}}, mode="bypassPermissions")
    assert decision(command, ctx) == "deny"
    plain = make_ctx({"permissions": {"allow": allow, "deny": DENY}})
    for harmless in (
        "openssl version",
        "ssh-keygen -lf k.pub",
        "ninja -C build",
        "run-parts --test d",
        "cargo build --release",
        "go build -compiler gccgo .",
    ):
        assert decision(harmless, plain) == "allow", harmless


@pytest.mark.parametrize(
    "command",
    [
        *(f"{compiler} -O2 -c x.c" for compiler in COMPILERS),
        "openssl version",
        "ninja -C build",
        "run-parts --test /etc/cron.daily",
        "hyperfine 'sleep 0.1'",
        "ifne echo changed",
        "pee cat wc",
        "chronic make",
        "dpkg -l",
        "ansible-playbook site.yml",
        "ssh-keygen -lf key.pub",
    ],
)
def test_always_allow_saves_only_the_exact_command_for_them(
    command: str, make_ctx: ContextFactory
) -> None:
    """A prefix (`Bash(gcc *)`) would allow the next `-wrapper`, plugin or command line."""
    rule = suggest_rule("Bash", {"command": command}, make_ctx())
    assert rule is None or "*" not in rule, rule
