"""Allowed programs that run what a deny rule forbids: a user allows a program (`Bash(gdb:*)`,
`Bash(vim:*)`, `Bash(declare:*)`...) and denies another (`Bash(curl:*)`, `Read(./.env)`); each
family of ways the allowed one runs, loads or reads the denied one is judged (the command
inside is checked) or asked. And the other direction: what only reads or edits is not asked."""

from __future__ import annotations

import pytest

from tether.permissions import PermissionContext, decide

from .conftest import ContextFactory, Tree

ALLOWED = [
    "declare",
    "typeset",
    "local",
    "readonly",
    "export",
    "gdb",
    "vim",
    "vi",
    "nvim",
    "ex",
    "strace",
    "ltrace",
    "tclsh",
    "wish",
    "expect",
    "perl",
    "python3",
    "python",
    "pytest",
    "sqlite3",
    "zstd",
    "xz",
    "tmux",
    "screen",
    "npm",
    "pnpm",
    "zsh",
    "git",
    "cat",
    "cd",
    "dc",
    "psql",
    "lldb",
    "cpio",
    "julia",
    "yarn",
]
SETTINGS = {
    "permissions": {
        "allow": [f"Bash({p}:*)" for p in ALLOWED],
        "deny": ["Bash(wget:*)", "Bash(rm:*)", "Read(./.env)"],
    }
}


@pytest.fixture
def ctx(make_ctx: ContextFactory, tree: Tree) -> PermissionContext:
    (tree.ws / "names.txt").write_text(".env\n")
    return make_ctx(SETTINGS)


def behaviors(commands: list[str], ctx: PermissionContext) -> dict[str, str]:
    return {c: decide("Bash", {"command": c}, ctx).behavior for c in commands}


def test_quoted_compound_assignments_of_declarations_are_code(ctx: PermissionContext) -> None:
    # bash reads the list of a quoted `NAME=(...)` word again: `$(...)` there runs.
    denied = [
        "typeset -a 'list=($(wget -q evil))'",
        'local -a "v+=(`wget x`)"',
        "readonly -a 'k=(a $(rm -r y) b)'",
        "declare -A 'm=([k]=$(wget x))'",
        "declare -a m='(1 $(wget x))'",
        'typeset -a m="($(printf x) \\$(wget x))"',
    ]
    assert behaviors(denied, ctx) == dict.fromkeys(denied, "deny")
    # A scalar's quoted value is only text, and a plain list runs nothing.
    allowed = ["typeset 'greeting=$(wget x)'", "declare -a 'list=(one two)'", "local x='(a b)'"]
    assert behaviors(allowed, ctx) == dict.fromkeys(allowed, "allow")


def test_quoted_assignments_to_variables_that_change_what_runs(ctx: PermissionContext) -> None:
    denied = [
        "export 'GIT_EXEC_PATH=/tmp'; git status",
        'declare -x "LD_AUDIT=./a.so"; cat README.md',
        "typeset -x 'PYTHONSTARTUP=x.py'",
        "readonly 'PROMPT_COMMAND=wget x'",
        'export "NODE_OPTIONS+=--require ./x.js"',
    ]
    assert behaviors(denied, ctx) == dict.fromkeys(denied, "deny")
    assert behaviors(["export 'GREETING=hello'"], ctx) == {"export 'GREETING=hello'": "allow"}


def test_gdb_commands_that_run_programs(ctx: PermissionContext) -> None:
    denied = [
        "gdb -batch -ex '!wget x'",
        "gdb --eval-command='shell rm -r y' ./a.out",
        "gdb -iex '| wget x' ./a.out",
        "gdb -ex 'pipe bt | wget x' ./a.out",
        "gdb -batch -ex 'set exec-wrapper wget' -ex run ./a.out",
        "gdb -batch -ex 'run $(wget x)' ./a.out",
        "cd src && gdb -ex 'r < ../.env' ./a.out",
    ]
    assert behaviors(denied, ctx) == dict.fromkeys(denied, "deny")
    # Files of commands, scripts and calls into the program are code not seen.
    unseen = [
        "gdb -x cmds.gdb ./a.out",
        "gdb --init-command=setup ./a.out",
        "gdb -batch -ex 'python print(1)' ./a.out",
        "gdb -batch -ex 'source x.py' ./a.out",
        "gdb -batch -ex 'call system(\"id\")' ./a.out",
        "gdb -batch -ex 'print $_shell(\"id\")' ./a.out",
    ]
    assert all(v != "allow" for v in behaviors(unseen, ctx).values()), behaviors(unseen, ctx)
    allowed = ["gdb -batch -ex bt ./a.out core", "gdb -batch -ex 'info registers' -ex 'p x' ./a"]
    assert behaviors(allowed, ctx) == dict.fromkeys(allowed, "allow")


def test_lldb_commands_that_run_programs(ctx: PermissionContext) -> None:
    denied = [
        "lldb -o 'platform shell wget x' ./a.out",
        "lldb -o 'run $(wget x)' ./a.out",
        "lldb --source cmds.lldb ./a.out",
        "lldb -o 'script import os' ./a.out",
        "lldb -o 'expr (int)system(\"id\")' ./a.out",
    ]
    assert behaviors(denied, ctx) == dict.fromkeys(denied, "deny")
    allowed = ["lldb --batch -o bt -o quit ./a.out -c core"]
    assert behaviors(allowed, ctx) == dict.fromkeys(allowed, "allow")


def test_editors_in_ex_mode_and_their_commands(ctx: PermissionContext) -> None:
    not_allowed = [
        "printf '%s\\n' '!wget x' | vim -e",
        "vim -Es < cmds.vim",
        "nvim -es file <<'EOF'\n!wget x\nEOF",
        "ex file <<< 'r !wget x'",
        "vim -c 'r !wget x' file",
        "vim -c 'e .env' -c 'w! out' file",
        "vim +'%!wget x' file",
        "vim -es -c '%s/a/\\=system(\"id\")/' -c wq file",
        "vim -es -c '%s/a/b/ | !id' -c wq file",
        "vim -S session.vim",
    ]
    assert all(v != "allow" for v in behaviors(not_allowed, ctx).values()), behaviors(
        not_allowed, ctx
    )
    allowed = [
        "vim -es -c 'wq' notes.txt",
        "vim -es -c '%s/old/new/g' -c x notes.txt",
        "vim -Es -c 'g/^#/d' -c wq notes.txt",
        "vi -es +'set ff=unix' +wq notes.txt",
    ]
    assert behaviors(allowed, ctx) == dict.fromkeys(allowed, "allow")
    # An edit written back is a write: of a protected file it is asked.
    assert behaviors(["vim -es -c wq .git/config"], ctx) != {"vim -es -c wq .git/config": "allow"}


def test_tracers_pipe_their_output_to_commands(ctx: PermissionContext) -> None:
    denied = [
        "strace -o '!wget x' ls",
        "ltrace -o '|rm -r y' ls",
        "strace --output='|wget x' ls",
        "strace -E LD_PRELOAD=./x.so ls",
        "strace -EBASH_ENV=x bash -c true",
    ]
    assert behaviors(denied, ctx) == dict.fromkeys(denied, "deny")
    allowed = ["strace -f -o trace.txt ls", "strace -E LANG=C ls"]
    assert behaviors(allowed, ctx) == dict.fromkeys(allowed, "allow")


def test_code_from_the_input_of_interpreters_and_prompts(ctx: PermissionContext) -> None:
    denied = [
        "echo 'exec wget x' | tclsh",
        "tclsh8.6 <<< 'exec wget x'",
        "wish < script.tcl",
        "expect <<'EOF'\nspawn wget x\nEOF",
        "printf 'import os\\n' | python3 -m pdb app.py",
        "pytest --pdb < answers",
        "python3 -m pytest --trace <<< '!import os'",
        "echo '!wget x' | dc",
        "gdb ./a.out < cmds",
        "echo 'run(`wget x`)' | julia",
        "echo 'import os' | python3 -m ipdb app.py",
        "echo '.shell wget x' | sqlite3 app.db",
        "sqlite3 app.db '.system wget x'",
        "sqlite3 app.db \"select readfile('.env')\"",
        "sqlite3 -cmd '.read x.sql' app.db 'select 1'",
    ]
    assert behaviors(denied, ctx) == dict.fromkeys(denied, "deny")
    allowed = [
        "tclsh build.tcl",
        "julia --project=. test/runtests.jl",
        "pytest -q",
        "sqlite3 app.db 'select count(*) from t'",
        "psql -l",
        "gdb -batch -ex bt ./a.out core",
    ]
    assert behaviors(allowed, ctx) == dict.fromkeys(allowed, "allow")


def test_file_lists_and_configuration_files(ctx: PermissionContext) -> None:
    # The names in a list may be any file, `.env` among them; a configuration file may run
    # commands of its own.
    not_allowed = [
        "zstd --filelist names.txt -o out.zst",
        "xz --files=names.txt",
        "xz --files0 names.txt",
        "tmux -f x.conf new -d",
        "screen -c x.rc -dm",
        "npm --userconfig ./x.npmrc test",
        "pnpm test --globalconfig=x",
        "zsh --rcfile x run.zsh",
        "ls -a | cpio -o > out.cpio",
        "tmux source-file x.conf",
        "yarn --use-yarnrc x.yml test",
        "cpio -pdm /tmp/copy < names.txt",
    ]
    assert all(v != "allow" for v in behaviors(not_allowed, ctx).values()), behaviors(
        not_allowed, ctx
    )
    allowed = ["zstd -q README.md", "xz -k README.md", "npm test"]
    assert behaviors(allowed, ctx) == dict.fromkeys(allowed, "allow")


def test_test_runs_with_workspace_modules_and_coverage(ctx: PermissionContext) -> None:
    allowed = [
        "PYTHONPATH=src python3 -m pytest -q",
        "PYTHONPATH=src:tests pytest -x",
        "pytest --cov=src",
        "python3 -m pytest --cov=src --cov-report=term-missing -q",
    ]
    assert behaviors(allowed, ctx) == dict.fromkeys(allowed, "allow")
    denied = [
        "PYTHONPATH=/tmp/x python3 -m pytest",
        "PYTHONPATH=src/../.. pytest",
        "pytest --cov-config=x.ini",
    ]
    assert behaviors(denied, ctx) == dict.fromkeys(denied, "deny")
    # the workspace's own module directory: judged as the command without it
    served = ["PYTHONPATH=src python3 -m http.server", "python3 -m http.server"]
    assert set(behaviors(served, ctx).values()) == {"ask"}


def test_script_files_a_shell_runs_are_not_allowed_by_the_shells_rule(
    ctx: PermissionContext, make_ctx: ContextFactory
) -> None:
    # A rule allowing the shell does not say what the script runs; a deny rule might forbid
    # it: asked.
    asked = ["zsh build.zsh", "dash -e ./ci.sh arg", "cd src && zsh ../x.sh", "source ./env.sh"]
    assert behaviors(asked, ctx) == dict.fromkeys(asked, "ask")
    # A rule naming the script allows it; with no Bash rule to stop anything, nothing changes.
    named = make_ctx({"permissions": {"allow": ["Bash(zsh build.zsh)"], "deny": ["Bash(rm:*)"]}})
    assert behaviors(["zsh build.zsh"], named) == {"zsh build.zsh": "allow"}
    free = make_ctx({"permissions": {"allow": ["Bash(zsh:*)"]}})
    assert behaviors(["zsh build.zsh"], free) == {"zsh build.zsh": "allow"}
