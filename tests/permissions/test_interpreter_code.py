"""Code an interpreter runs that is no file of the user's is one capability, however it is
given (inline, from its input, through a module, a makefile from the input): a deny rule on
`-c` covers them all, a denied file named in inline code is denied, and code from the input,
which the engine does not read, is code the parser cannot see."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tether.permissions import PermissionContext, decide, load_rules

from .conftest import ContextFactory, build_tree

ALLOW = ["Bash(python3 *)", "Bash(node *)", "Bash(perl *)", "Bash(ruby *)", "Bash(php *)"]
ALLOW += ["Bash(Rscript *)", "Bash(lua *)", "Bash(bun *)", "Bash(deno *)", "Bash(make *)"]
ALLOW += ["Bash(cmake *)"]
POLICY = {
    "permissions": {
        "deny": ["Read(./.env)", "Read(./secrets/**)", "Bash(python3 -c *)"],
        "allow": [*ALLOW, "Bash(printf *)", "Bash(cat *)"],
    }
}
INLINE = [
    ("node", "-pe"),
    ("node", "-ep"),
    ("bun", "-pe"),
    ("node", "-p"),
    ("node", "-e"),
    ("node", "--eval"),
    ("node", "--print"),
    ("perl", "-e"),
    ("perl", "-E"),
    ("ruby", "-e"),
    ("php", "-r"),
    ("Rscript", "-e"),
    ("lua", "-e"),
    ("bun", "-e"),
    ("deno", "eval"),
]
_FUZZ = settings(
    max_examples=150, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow]
)


@pytest.fixture(scope="module")
def ctx(tmp_path_factory: pytest.TempPathFactory) -> PermissionContext:
    tree = build_tree(tmp_path_factory.mktemp("code"))
    rules = load_rules([(tree.ws / ".claude" / "settings.json", POLICY)], seed_yaml=None)
    return PermissionContext(
        mode="default", rules=rules, workspace=tree.ws, cwd=tree.ws, home=tree.home
    )


@_FUZZ
@given(
    form=st.sampled_from(INLINE),
    name=st.sampled_from([".env", "./.env", "secrets/api.key", "secrets/key.pem"]),
    wrap=st.sampled_from(['read("{}")', "open('{}')", "x = `{}`", "f({}, 1)", "{}"]),
    attached=st.booleans(),
)
def test_a_denied_file_named_in_inline_code_is_denied(
    form: tuple[str, str], name: str, wrap: str, attached: bool, ctx: PermissionContext
) -> None:
    program, option = form
    code = wrap.format(name).replace("'", "")
    spelled = f"{option}='{code}'" if attached and option.startswith("--") else f"{option} '{code}'"
    command = f"{program} {spelled}"
    decision = decide("Bash", {"command": command}, ctx)
    assert decision.behavior == "deny", (command, decision)


STDIN_FORMS = [
    "python3 - <<'EOF'\nprint(1)\nEOF",
    "python3 <<< 'print(1)'",
    "printf 'print(1)' | python3",
    "printf 'print(1)' | python3 -",
    "python3 /dev/stdin <<< 'print(1)'",
    "python3 -u - < /dev/stdin",
    "python3 -m code <<< 'print(1)'",
    "python3 -m asyncio <<< 'print(1)'",
    "python3 -m _pyrepl <<< 'print(1)'",
    "python3 -m idlelib -c 'print(1)'",
    "python3 -m pdb /dev/stdin <<< 'print(1)'",
    "python3 -m cProfile -s cumtime /dev/stdin <<< 'print(1)'",
    "python3 -m trace --trace /dev/stdin <<< 'print(1)'",
    "python3 -m timeit 'print(1)'",
    "python3 <(printf 'print(1)')",
]


@pytest.mark.parametrize("command", STDIN_FORMS)
def test_code_from_the_input_is_the_same_capability_as_c(
    command: str, ctx: PermissionContext
) -> None:
    decision = decide("Bash", {"command": command}, ctx)
    assert decision.behavior == "deny", (command, decision)


MAKEFILES_FROM_INPUT = [
    "make -f - <<'EOF'\nall:\n\techo hi\nEOF",
    "make -f /dev/stdin <<< x",
    "make --file=- <<< x",
    "make --makefile=/dev/stdin <<< x",
    "make -f/dev/fd/0 <<< x",
    "make -f <(printf 'all:\\n\\techo hi\\n')",
    "printf 'all:\\n' | make -f -",
    "make -f /proc/self/fd/0 <<< x",
    "MAKEFILES=src/x.mk make",
    "make --mak=- <<< x",
    "printf 'all:\\n' | make -rf -",
    "make --makef=- <<< x",
    "make --mak - <<< x",
    "make --fil=/dev/stdin <<< x",
    "make --mak=/dev/fd/0 <<< x",
    "make -sf- <<< x",
    "make -ikf- <<< x",
    "make -rRf /dev/stdin <<< x",
    "make -Rf/proc/self/fd/0 <<< x",
    "make -C src -sf - <<< x",
    "make -Bf /dev/stdin <<< x",
    "make -nf - <<< x",
    "make -j 4 -Sf - <<< x",
    "cmake --build src/b -- -f /dev/stdin <<< x",
    "cmake --build src/b --target all -- -j4 -sf- <<< x",
    "node - <<< 'x'",
    "perl - <<< 'x'",
    "ruby <<< 'x'",
]


@pytest.mark.parametrize("command", MAKEFILES_FROM_INPUT)
def test_program_text_from_the_input_is_not_seen(command: str, make_ctx: ContextFactory) -> None:
    """Denied where a deny rule exists (whatever the allow rules), asked otherwise."""
    denying = make_ctx({"permissions": {"deny": ["Bash(rm *)"], "allow": ALLOW}})
    assert decide("Bash", {"command": command}, denying).behavior == "deny", command
    asking = make_ctx({"permissions": {"allow": ALLOW}})
    assert decide("Bash", {"command": command}, asking).behavior == "ask", command


def test_scripts_and_plain_code_stay_allowed(ctx: PermissionContext) -> None:
    for command in (
        "python3 src/app.py",
        "node -e 'console.log(1)'",
        "perl -e 'print 1'",
        "make",
        "make -f Makefile all",
        "make -sj4 -C src -f Makefile",
        "make -kf Makefile --mak=Makefile --directory=src -j4 all",
        "make -I src -rRf Makefile -- all",
        "cmake --build build -- -j4 all",
        "python3 -m pytest -q",
        "python3 -m cProfile src/app.py",
        "python3 -I src/app.py",
    ):
        assert decide("Bash", {"command": command}, ctx).behavior == "allow", command


EXITING = [
    "python3 --version",
    "python3 -V",
    "python3 -VV",
    "python3 --help",
    "python3 -h",
    "node --version",
    "node -v",
    "node --help",
    "node --test",
    "perl -v",
    "perl --version",
    "ruby --version",
    "ruby -v",
    "lua -v",
    "php -v",
    "bun --version",
]
_PYTHON_FLAGS = ["-B", "-u", "-q", "-E", "-s", "-I", "-O", "-X dev", "-W error", "-bb"]


@pytest.mark.parametrize("command", EXITING)
def test_an_option_that_exits_reads_no_code(command: str, ctx: PermissionContext) -> None:
    """Version, help and test-runner options end the interpreter before it reads its input."""
    decision = decide("Bash", {"command": command}, ctx)
    assert decision.behavior == "allow", (command, decision)


@_FUZZ
@given(
    before=st.lists(st.sampled_from(_PYTHON_FLAGS), max_size=3),
    after=st.lists(st.sampled_from(_PYTHON_FLAGS), max_size=3),
    exit_option=st.sampled_from(["-V", "-VV", "--version", "-h", "--help", "-BV", "-qVV", "-uh"]),
)
def test_python_flags_around_an_exiting_option_read_no_code(
    before: list[str], after: list[str], exit_option: str, ctx: PermissionContext
) -> None:
    command = " ".join(["python3", *before, exit_option, *after])
    decision = decide("Bash", {"command": command}, ctx)
    assert decision.behavior == "allow", (command, decision)


STILL_FROM_INPUT = [
    "python3 <<< x",
    "printf x | python3 -u",
    "python3 -W -V <<< x",
    "python3 --version - < src/app.py",
    "python3 -V /dev/stdin <<< x",
    "ruby -v -w <<< x",
    "node --version - <<< x",
    "cat src/app.py | perl -c",
]


@pytest.mark.parametrize("command", STILL_FROM_INPUT)
def test_without_an_exiting_option_the_input_is_still_code(
    command: str, ctx: PermissionContext
) -> None:
    """`-W` takes `-V` as its value; a `-` or `/dev/stdin` script is the input whatever else
    is given; `ruby -v` with another switch goes on to read."""
    decision = decide("Bash", {"command": command}, ctx)
    assert decision.behavior == "deny", (command, decision)


BARE = ["python3", "python3 -u", "node", "perl", "ruby -w", "python3 -", "make -f -"]
INPUTS = [
    "cat src/app.py | {}",
    "{} < src/app.py",
    "{} <<< x",
    "{} <<'EOF'\nx\nEOF",
    "exec < src/app.py; {}",
    "coproc {}",
    "bash -c $'cat src/app.py \\x7c {}'",
    "{{ {}; }} < src/app.py",
    "while read l; do {}; done < src/app.py",
]


@_FUZZ
@given(program=st.sampled_from(BARE), joined=st.sampled_from(["{}", "{} && true", "true; {}"]))
def test_a_bare_interpreter_reads_the_tools_empty_input(
    program: str, joined: str, ctx: PermissionContext
) -> None:
    """The Bash tool's input is `/dev/null`: with nothing in the command that gives a
    command input (a pipe, a redirection, a heredoc, a coprocess, `exec`), no code is read,
    and the user's `Bash(python3 -c *)` deny has nothing to stop."""
    decision = decide("Bash", {"command": joined.format(program)}, ctx)
    assert decision.behavior == "allow", decision


@_FUZZ
@given(program=st.sampled_from(BARE), given_input=st.sampled_from(INPUTS))
def test_given_input_it_reads_code(program: str, given_input: str, ctx: PermissionContext) -> None:
    command = given_input.format(program)
    decision = decide("Bash", {"command": command}, ctx)
    assert decision.behavior == "deny", (command, decision)


@pytest.mark.parametrize(
    "command",
    [
        "python3 -m idlelib -c 'import os'",
        "python3 -m IPython -c 'import os'",
        "python3 -m code -q && python3 -m asyncio x",
        "make -f $X",
        "make --file=$(echo f)",
    ],
)
def test_code_in_words_not_read_is_not_the_empty_input(
    command: str, ctx: PermissionContext
) -> None:
    """Without input the prompts still take code in their options, and a makefile named by a
    word that is not a literal may be any file."""
    decision = decide("Bash", {"command": command}, ctx)
    assert decision.behavior == "deny", (command, decision)
