"""Commands that cannot reach a denied file are allowed, and the same shapes that can stay
denied or asked: with only a `Read(**/.env)`-style deny rule, a loop over `*.py`, a `*` glob
(no dotfiles without dotglob), print-only programs (awk printing, column, xxd, env, printenv)
and an archive written with tar are judged by what they can reach."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tether.permissions import PermissionContext, decide, load_rules
from tether.permissions.bash_files import program_use
from tether.permissions.paths import STAR, compile_path_pattern


@pytest.fixture
def ctx(tmp_path: Path) -> PermissionContext:
    ws = tmp_path / "ws"
    for name, text in {
        ".env": "KEY=1\n",
        "app.py": "print(1)  # TODO\n",
        "data.csv": "a,b\n1,2\n",
        "docs/guide.md": "# guide\n",
        "src/lib.py": "x = 1\n",
    }.items():
        (ws / name).parent.mkdir(parents=True, exist_ok=True)
        (ws / name).write_text(text)
    rules = {"permissions": {"deny": ["Read(**/.env)"]}}
    return PermissionContext(
        mode="default",
        rules=load_rules([(ws / ".claude" / "settings.json", rules)], seed_yaml=None),
        workspace=ws,
        cwd=ws,
        home=tmp_path / "home",
    )


ALLOWED = [
    "find . -iname '*.py' -exec cat {} +",  # the names on the disk, case ignored
    'for f in *.py; do wc -l "$f"; done',
    'for page in docs/*.md; do head -n 3 "${page}"; done',
    'for f in src/*.py; do grep -n TODO "$f" && echo "$f done"; done',
    "cat *",
    "head -n 2 * docs/*",
    "awk '{print $1}' data.csv",
    "awk -F, 'NR > 1 { print $2 }' data.csv",
    "column -t -s, data.csv",
    "xxd app.py",
    "xxd -ps -l 16 app.py",
    "env",
    "printenv HOME",
    "env -u LANG",
    # find's `{}` is each path below its start whose name matches, as the disk holds them.
    "find . -name '*.py' -exec grep -n TODO {} +",
    "find src -type f -name '*.py' -exec wc -l {} \\;",
    "find . -maxdepth 2 -name '*.md' -a -type f -exec head -n 1 {} +",
    # xargs' added words are the names ls prints (bare, no dotfile).
    "ls | xargs wc -l",
    "ls docs | xargs -n 1 echo",
    "ls -1 src | xargs -r grep -n TODO",
    # An interpreter asked only its version or usage runs no code.
    "python3 --version",
    "python3.12 -V",
    "node --version",
    "node -v",
    "ruby --help",
    "perl --version",
    # Each interpreter's own spellings, repeated or mixed: still no code.
    "python3 -VV",
    "python3 -V -V",
    "python3 --version --version",
    "pypy3 -VV",
    "node -v -v",
    "node --version --version",
    "ruby -v",
    "ruby -v -v",
    "perl -v",
    "perl -V",
    "php -v",
    "lua -v",
    "deno -V",
    # Process listings print what runs, as env prints the environment.
    "ps aux",
    "ps -ef",
    "ps -p 1 -o pid,cmd",
    "pgrep -f pytest",
    "pstree -p",
    # Builtins that only set variables from their input or arguments.
    "read -r first < app.py",
    'while read -r line; do echo "$line"; done < data.csv',
    'while getopts ab opt; do echo "$opt"; done',
    # Recursive searches whose filters leave out every file the deny rule names.
    "rg TODO",
    "rg -n TODO src .",
    "rg -u TODO",
    "rg --hidden --glob '!.env' TODO",
    "grep -rn TODO --exclude=.env .",
    "grep -rn TODO --exclude-dir=.git --exclude='.env*' .",
]


@pytest.mark.parametrize("command", ALLOWED)
def test_what_cannot_reach_a_denied_file_is_allowed(command: str, ctx: PermissionContext) -> None:
    decision = decide("Bash", {"command": command}, ctx)
    assert decision.behavior == "allow", decision.reason


STOPPED = [
    # The loop's word may be `.env`, or the variable may hold something else by the time it
    # is read: it stays unknown.
    ('for f in .*; do cat "$f"; done', "deny"),
    ('for f in .e*; do wc -l "$f"; done', "deny"),
    ('for f in *.py .env; do cat "$f"; done', "ask"),
    ('for f in *.py; do f=.env; cat "$f"; done', "ask"),
    ('for f in *.py; do read -r f; cat "$f"; done', "ask"),
    ('for f in *.py; do cat "${f:-.env}"; done', "ask"),
    ('for f in *.py; do source ./setup.sh; cat "$f"; done', "ask"),
    ("for f in *.py; do eval 'echo hi'; cat \"$f\"; done", "ask"),
    ("for f in *; do cat $f; done", "ask"),  # unquoted: a name `a .env` splits into `.env`
    ("for f in *.py; do bash -c 'cat \"$f\"'; done", "ask"),  # another shell's $f
    ('for f in $(ls -a); do cat "$f"; done', "ask"),
    ('for f in {a,.env}; do cat "$f"; done', "ask"),
    ('for f in *.py; do for f in .*; do cat "$f"; done; done', "ask"),
    ('select f in *.py; do cat "$f"; done', "ask"),
    ("cat .e*", "deny"),
    ("read -r key < .env", "deny"),
    # rg searches hidden files with --hidden, `-.` or `-uu`; an exclusion must cover `.env`.
    ("rg --hidden TODO", "ask"),
    ("rg -. TODO", "ask"),
    ("rg -uu TODO", "ask"),
    ("rg -g '!*.py' --hidden TODO", "ask"),
    ("rg TODO .env", "deny"),
    ("grep -rn TODO --exclude='*.py' .", "ask"),
    ("grep -rn TODO --exclude='.e' .", "ask"),
    ("read -r PATH < data.csv", "deny"),
    ("cat * .env", "deny"),
    # Print-only programs that do more than print, or read the denied file.
    ("awk '{ system(\"cat .env\") }' data.csv", "deny"),
    ("awk '{ print | \"sh\" }' data.csv", "deny"),
    ("awk '{ print > \"out.txt\" }' data.csv", "deny"),
    ("awk 'BEGIN { while ((getline line < \".env\") > 0) print line }'", "deny"),
    ("awk '{print}' .env", "deny"),
    ("column -t .env", "deny"),
    ("xxd .env", "deny"),
    ("xxd -pl .env", "deny"),  # xxd reads `-pl` as `-p` (its options are words), not `-p -l`
    ("xxd -s0 -ps .env", "deny"),
    ("xxd app.py out.hex", "ask"),  # xxd's second file is its output
    ("env cat .env", "deny"),  # env PROG is PROG
    ("env -S 'cat .env'", "deny"),
    # A version query with anything more runs code; a pid file is read.
    ("python3 --version app.py", "ask"),
    ("python3 -m pip --version", "ask"),
    ("node -v app.js", "ask"),
    ("python3 -V -c 'import os'", "ask"),
    ("python3 -VV app.py", "ask"),
    ("ruby -v app.rb", "ask"),
    ("ruby -w", "ask"),  # verbose mode, then code from the input
    ("./python3 --version", "ask"),
    ("NODE_OPTIONS='--require ./x.js' node --version", "deny"),
    ("pgrep -F .env x", "deny"),
    ("ps aux > out.txt", "ask"),
    # find: a name pattern that matches `.env`, or an expression that picks more than it.
    ("find . -name '.e*' -exec cat {} +", "deny"),
    ("find . -name '*' -exec cat {} +", "deny"),
    ("find . -name '*.py' -o -name x -exec cat {} +", "ask"),
    ("find . -name '*.py' -exec true {} \\; -o -exec cat {} \\;", "ask"),
    ("find . -iname '*.ENV' -exec cat {} +", "deny"),
    ("find . src -name '*.py' -exec cat {} +", "ask"),
    ("find . -name '*.py' -exec sh -c 'cat \"$1\"' _ {} \\;", "ask"),
    ("find . -name '*.py' -exec rm {} +", "ask"),  # the paths are known; rm is no reader
    # xargs: dotfiles listed, output that is not bare names, input split otherwise.
    ("ls -A | xargs cat", "deny"),
    ("ls -a | xargs cat", "ask"),
    ("ls -l | xargs cat", "ask"),
    ("ls | xargs -0 cat", "ask"),
    ("ls | sort | xargs cat", "ask"),
    ("ls .env | xargs cat", "deny"),
    ("git ls-files | xargs grep foo", "ask"),  # what git tracks is not read from the disk
]


@pytest.mark.parametrize(("command", "behavior"), STOPPED)
def test_what_may_reach_a_denied_file_is_not_allowed(
    command: str, behavior: str, ctx: PermissionContext
) -> None:
    decision = decide("Bash", {"command": command}, ctx)
    assert decision.behavior == behavior, decision.reason


def test_find_reaches_what_a_directory_named_like_the_rule_holds(
    ctx: PermissionContext,
) -> None:
    """A `.env` directory is covered with all below it: `*.py` files there are denied."""
    (ctx.workspace / "pkg" / ".env").mkdir(parents=True)
    (ctx.workspace / "pkg" / ".env" / "keys.py").write_text("K = 1\n")
    command = "find . -name '*.py' -exec grep -n K {} +"
    assert decide("Bash", {"command": command}, ctx).behavior == "deny"


def test_names_xargs_would_split_are_not_known(ctx: PermissionContext) -> None:
    """xargs splits its input at blanks: a file named `a .env` gives it `.env`."""
    (ctx.workspace / "a .env").write_text("x\n")
    decision = decide("Bash", {"command": "ls | xargs cat"}, ctx)
    assert decision.behavior == "ask", decision.reason
    (ctx.workspace / "a .env").unlink()
    (ctx.workspace / "-n").write_text("x\n")  # an option to the command, not a file
    assert decide("Bash", {"command": "ls | xargs cat"}, ctx).behavior == "ask"


def test_tar_reads_the_archive_it_lists_and_writes_the_one_it_creates(
    ctx: PermissionContext,
) -> None:
    """`tar czf out.tgz docs/` writes out.tgz: asked for that write (tar is no read-only
    program), not as a search of out.tgz. A listed or extracted archive is read as a file."""
    created = decide("Bash", {"command": "tar czf out.tgz docs/"}, ctx)
    assert created.behavior == "ask"
    assert "out.tgz" in created.reason
    assert "search" not in created.reason
    assert decide("Bash", {"command": "tar tzf .env"}, ctx).behavior == "deny"
    assert decide("Bash", {"command": "tar -c -f x.tar -X .env docs"}, ctx).behavior == "deny"
    assert decide("Bash", {"command": "tar -cf x.tar -T .env"}, ctx).behavior == "deny"
    assert decide("Bash", {"command": "tar -rf .env docs"}, ctx).behavior == "deny"


@pytest.mark.parametrize(
    ("rule", "candidate", "overlaps"),
    [
        ("**/.env", "x*", False),  # `**/` ends a directory: `x.env` is not `.env`
        ("**/.env", "*/.env", True),
        ("**/.env", ".env", True),
        ("a/**/b", "a/b", True),
        ("a/**/b", "a/x/y/b", True),
        ("a/**/b", "a/xb", False),
        ("**/secrets/**", "x/secrets/k", True),
    ],
)
def test_a_rule_with_globstar_overlaps_only_paths_below_a_directory(
    rule: str, candidate: str, overlaps: bool
) -> None:
    pattern = compile_path_pattern(rule, project_root=None)
    tokens = tuple("/ws/" + candidate.replace("*", "\0"))
    tokens = tuple(STAR if t == "\0" else t for t in tokens)
    assert pattern.overlaps(tokens, "/ws", anywhere=True) is overlaps


@pytest.mark.skipif(shutil.which("xxd") is None, reason="needs xxd")
def test_xxd_reads_its_options_as_words(tmp_path: Path) -> None:
    """What the table's `word_options` says, shown by xxd itself: `-pl FILE` is `-p` and
    then FILE read (a getopt reading, `-p -l FILE`, would take FILE for `-l`'s value)."""
    (tmp_path / "f").write_text("hi\n")
    run = subprocess.run(
        ["xxd", "-pl", "f"], cwd=tmp_path, capture_output=True, text=True, check=True
    )
    assert run.stdout.strip() == "68690a"
    assert program_use(("xxd", "-pl", "f")) == program_use(("xxd", "-p", "f"))
    assert program_use(("xxd", "-pl", "f")).reads == ("f",)


def test_rg_with_a_configuration_file_may_search_hidden_files(
    ctx: PermissionContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    """rg reads its options from the file RIPGREP_CONFIG_PATH names, which may say --hidden."""
    monkeypatch.setenv("RIPGREP_CONFIG_PATH", "/nonexistent/ripgreprc")
    assert decide("Bash", {"command": "rg TODO"}, ctx).behavior != "allow"


def test_grep_excludes_files_only(tmp_path: Path) -> None:
    """`grep -r --exclude=.env` still reads a directory named `.env` (that is
    --exclude-dir); rg's `-g '!.env'` leaves out both."""
    ws = tmp_path / "ws"
    (ws / ".env").mkdir(parents=True)
    (ws / ".env" / "keys.py").write_text("KEY = 1  # TODO\n")
    rules = {"permissions": {"deny": ["Read(**/.env)"]}}
    ctx = PermissionContext(
        mode="default",
        rules=load_rules([(ws / ".claude" / "settings.json", rules)], seed_yaml=None),
        workspace=ws,
        cwd=ws,
        home=tmp_path / "home",
    )
    grep = decide("Bash", {"command": "grep -rn TODO --exclude=.env ."}, ctx)
    assert grep.behavior != "allow", grep
    rg = decide("Bash", {"command": "rg --hidden -g '!.env' TODO"}, ctx)
    assert rg.behavior == "allow", rg
