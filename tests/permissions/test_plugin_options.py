"""Options that load a shared object into binutils and linkers (`nm --plugin`, `ld -plugin`),
and response files (`@FILE`) of programs whose options load code, given to the program or
passed on by a compiler (`gcc -Wl,@FILE`): code the engine cannot see, asked whatever a rule
on the program allows (denied where a deny rule exists)."""

from __future__ import annotations

import pytest

from tether.permissions import PermissionContext, decide

from .conftest import ContextFactory

PROGRAMS = ["nm", "ar", "ranlib", "objdump", "ld", "ld.gold", "gcc", "clang", "javac"]
PROGRAMS += ["x86_64-linux-gnu-ld", "aarch64-linux-gnu-nm", "gcc-ar", "llvm-nm", "g++-13"]
UNSEEN = [
    "nm --plugin ./p.so m.o",
    "nm --plugin=./p.so m.o",
    "aarch64-linux-gnu-nm --plugin ./p.so m.o",
    "llvm-nm --plugin ./p.so m.o",
    "gcc-ar --plugin ./p.so rcs x.a m.o",
    "ar --plugin ./p.so t x.a",
    "ranlib --plugin ./p.so x.a",
    "objdump --plugin ./p.so -d m.o",
    "ld -plugin ./p.so -o out m.o",
    "ld --plugin=./p.so -o out m.o",
    "ld.gold -plugin ./p.so m.o",
    "x86_64-linux-gnu-ld -plugin ./p.so m.o",
    "ld @resp",
    "nm @resp",
    "gcc @resp m.o",
    "gcc -Wl,@resp m.o",
    "gcc -Wl,-O1,@resp m.o",
    "g++-13 -Wa,@resp -c m.cc",
    "clang -Wp,@resp -c m.c",
    "gcc -Xlinker @resp m.o",
    "javac @options Main.java",
]
PLAIN = ["nm -C m.o", "ld -o out m.o", "gcc -Wl,-O1 -o app m.o", "ar rcs x.a m.o", "objdump -d m.o"]


def _ctx(make_ctx: ContextFactory, deny: list[str], mode: str = "default") -> PermissionContext:
    allow = [f"Bash({p} *)" for p in PROGRAMS]
    return make_ctx({"permissions": {"allow": allow, "deny": deny}}, mode=mode)


@pytest.mark.parametrize("command", UNSEEN)
def test_code_loaded_by_an_option_or_a_response_file_is_asked(
    command: str, make_ctx: ContextFactory
) -> None:
    assert decide("Bash", {"command": command}, _ctx(make_ctx, [])).behavior == "ask"


@pytest.mark.parametrize("command", UNSEEN)
@pytest.mark.parametrize("mode", ["default", "bypassPermissions"])
def test_it_is_denied_where_a_deny_rule_exists(
    command: str, mode: str, make_ctx: ContextFactory
) -> None:
    ctx = _ctx(make_ctx, ["Bash(rm *)"], mode)
    assert decide("Bash", {"command": command}, ctx).behavior == "deny"


@pytest.mark.parametrize("command", PLAIN)
def test_the_same_programs_without_them_stay_as_the_rule_says(
    command: str, make_ctx: ContextFactory
) -> None:
    ctx = _ctx(make_ctx, ["Bash(rm *)"])
    assert decide("Bash", {"command": command}, ctx).behavior == "allow"


def test_a_list_of_names_for_7zip_is_read_not_code(make_ctx: ContextFactory) -> None:
    ctx = make_ctx({"permissions": {"allow": ["Bash(7z *)"]}})
    assert decide("Bash", {"command": "7z a out.7z @list"}, ctx).behavior == "allow"
