"""What a command takes in besides the words it is given, judged as the words are: variables a
runner's option sets, files a program reads because its arguments say so in a form of their
own (`@FILE` response files, jq's module imports), and awk code that calls a function by a
name it holds."""

from __future__ import annotations

import pytest

from tether.permissions import Decision, PermissionContext, decide

from .conftest import ContextFactory

DENIES = ["Read(./.env)", "Read(./secrets/**)", "Read(~/.ssh/**)", "Edit(./.env)"]


def bash(command: str, ctx: PermissionContext) -> Decision:
    return decide("Bash", {"command": command}, ctx)


def behaviors(commands: list[str], ctx: PermissionContext) -> dict[str, str]:
    return {c: bash(c, ctx).behavior for c in commands}


# 1. A variable set by a runner's option is an assignment of it.

SLOT_VARIABLES = [
    "printf '1\\n2\\n' | xargs -P2 --process-slot-var=GIT_EXEC_PATH git log -1",
    "seq 3 | xargs -n1 --process-slot-var LD_PRELOAD ls",
    "echo t | xargs -I{} --process-slot-var=PYTHONSTARTUP python3 t.py",
    "find . -name '*.md' | xargs --process-slot-var=XDG_CONFIG_HOME git diff",
    "echo x | xargs --process-slot-var=ENV sh -c 'ls'",
    "echo x | xargs --process-slot-var=GIT_CONFIG_COUNT git status",
]


@pytest.mark.parametrize("mode", ["default", "plan", "dontAsk", "acceptEdits"])
def test_a_slot_variable_is_judged_as_an_assignment(mode: str, make_ctx: ContextFactory) -> None:
    allowing = {"allow": ["Bash(xargs *)", "Bash(git *)", "Bash(ls *)", "Bash(python3 *)"]}
    ctx = make_ctx({"permissions": allowing}, mode=mode)
    expected = "deny" if mode in ("plan", "dontAsk") else "ask"
    assert behaviors(SLOT_VARIABLES, ctx) == dict.fromkeys(SLOT_VARIABLES, expected)
    denying = make_ctx({"permissions": {**allowing, "deny": DENIES}}, mode=mode)
    assert behaviors(SLOT_VARIABLES, denying) == dict.fromkeys(SLOT_VARIABLES, "deny")


def test_a_harmless_slot_variable_changes_nothing(make_ctx: ContextFactory) -> None:
    ctx = make_ctx(mode="plan")
    assert bash("seq 4 | xargs -P4 --process-slot-var=SLOT echo", ctx) == Decision(
        "allow", None, "read-only command"
    )
    # A name that is not a literal may be any of them.
    assert bash('seq 4 | xargs --process-slot-var="$V" echo', ctx).behavior == "deny"
    assert bash('seq 4 | xargs --process-slot-var="$V" echo', make_ctx()).behavior == "ask"


# 3. jq's modules are files it reads.


@pytest.mark.parametrize(
    ("program", "read"),
    [
        ('import "secrets/db" as $db; $db', "secrets/db.json"),
        ('import "secrets/tools" as t; t::f', "secrets/tools.jq"),
        ('include "secrets/lib"; .', "secrets/lib.jq"),
        ('include "secrets"; .', "secrets/secrets.jq"),
        ('def f: 1; import "./secrets/x" as $x; [$x]', "secrets/x.json"),
        ('import "../ws/secrets/y" as $y; $y', "secrets/y.json"),
    ],
)
def test_jq_imports_are_reads(program: str, read: str, make_ctx: ContextFactory) -> None:
    ctx = make_ctx({"permissions": {"deny": DENIES, "allow": ["Bash(jq *)"]}})
    decision = bash(f"jq -n '{program}'", ctx)
    assert (decision.behavior, decision.rule) == ("deny", "Read(./secrets/**)"), decision
    assert read in decision.reason


def test_jq_imports_from_the_home_and_search_paths(make_ctx: ContextFactory) -> None:
    ctx = make_ctx({"permissions": {"deny": DENIES, "allow": ["Bash(jq *)"]}})
    # `$ORIGIN/../lib/jq` and `~/.jq` are searched for a relative module too.
    decision = bash("""jq -n 'import "../home/.ssh/id_rsa" as $k; $k'""", ctx)
    assert (decision.behavior, decision.rule) == ("deny", "Read(~/.ssh/**)"), decision
    # A search directory of one's own (`-L`) reads modules from there.
    for command in (
        "jq -L ../home/.ssh -n 'import \"id_rsa\" as $k; $k'",
        "jq --library-path=../home/.ssh -n 'include \"x\"; .'",
    ):
        assert bash(command, ctx).behavior == "deny", command
    # A program from a file may import anything: asked where a deny rule could match.
    assert bash("jq -f prog.jq data.json", ctx).behavior == "ask"
    assert bash("jq -f prog.jq data.json", make_ctx(mode="plan")).behavior == "ask"
    # Data modules with metadata may look anywhere.
    assert bash("""jq -n 'import "m" as $m {search: "/"}; $m'""", ctx).behavior == "deny"


def test_jq_without_modules_stays_read_only(make_ctx: ContextFactory) -> None:
    ctx = make_ctx({"permissions": {"deny": DENIES}}, mode="plan")
    commands = [
        "jq '.import' package.json",
        "jq '{include: .a}' package.json",
        "jq -n '\"import\"'",
        "jq -r '.name' package.json",
        "jq -n 'import \"lib/config\" as $c; $c'",
        "jq -L lib -n 'include \"m\"; f'",
        "jq -Llib -n 'import \"m\" as $m; $m'",
    ]
    assert behaviors(commands, ctx) == dict.fromkeys(commands, "allow")


# 4. `@FILE` arguments of programs that read response files.

RESPONSE_FILES = [
    "readelf -a @secrets/api.key",
    "c++filt @.env",
    "addr2line -e a.out @.env",
    "aarch64-linux-gnu-objcopy @.env out",
    "gcc-13 @.env -o /dev/null",
    "clang++ -c x.cc @secrets/flags",
    "llvm-nm @.env",
    "javac @.env",
    "ld.lld @.env",
]


def test_response_files_are_reads(make_ctx: ContextFactory) -> None:
    allowing = ["Bash(readelf *)", "Bash(gcc-13 *)", "Bash(clang++ *)", "Bash(javac *)"]
    ctx = make_ctx({"permissions": {"deny": DENIES, "allow": allowing}}, mode="bypassPermissions")
    assert behaviors(RESPONSE_FILES, ctx) == dict.fromkeys(RESPONSE_FILES, "deny")


def test_a_response_file_is_more_arguments(make_ctx: ContextFactory) -> None:
    """Its lines are options too (`-o`, a plugin), so the command is not read-only."""
    plan = make_ctx(mode="plan")
    assert bash("strings -a app.bin", plan).behavior == "allow"
    assert bash("strings @args.txt", plan).behavior == "deny"
    # `@` elsewhere in a word is no response file; other programs take `@` as text.
    assert bash("echo @.env", make_ctx({"permissions": {"deny": DENIES}})).behavior == "allow"


# 7. awk calling a function by a name it holds (gawk's indirect calls).


@pytest.mark.parametrize(
    "program",
    [
        'BEGIN { fn = "sys" "tem"; @fn("id") }',
        "{ name = $1; @name($2) }",
        'function run(c) { return 0 } BEGIN { f = "run"; x = @f("ls") }',
        'BEGIN { f = "sys"; f = f "tem"; @f ("id") }',
        'BEGIN { SYMTAB["AR" "GV"][1] = ".env" } { print }',
    ],
)
def test_awk_indirect_calls_are_unseen_code(program: str, make_ctx: ContextFactory) -> None:
    ctx = make_ctx({"permissions": {"deny": ["Bash(id *)"], "allow": ["Bash(awk *)"]}})
    assert bash(f"awk '{program}' notes.txt", ctx).behavior == "deny"
    assert bash(f"gawk '{program}' notes.txt", make_ctx(mode="plan")).behavior == "deny"


def test_awk_without_at_signs_is_judged_as_before(make_ctx: ContextFactory) -> None:
    ctx = make_ctx({"permissions": {"deny": ["Bash(id *)"], "allow": ["Bash(awk *)"]}})
    commands = [
        "awk '{ print $1 }' notes.txt",
        "awk '/a@b/ { n++ } END { print n }' notes.txt",
        "awk '{ print \"user@host\" }' notes.txt",
    ]
    assert behaviors(commands, ctx) == dict.fromkeys(commands, "allow")
