"""Inline interpreter code is read before it is allowed: Python with Python's own parser (what
it runs is judged as a Bash command, what it opens by the file rules, and whatever cannot be
shown harmless is not seen where a rule could be bypassed); languages tether has no parser
for pass only when they print literals."""

from __future__ import annotations

import shlex

import pytest

from tether.permissions import decide

from .conftest import ContextFactory

ALLOW = ["Bash(python3 *)", "Bash(node *)", "Bash(perl *)", "Bash(ruby *)", "Bash(php *)"]
RULES = {
    "permissions": {
        "allow": ALLOW,
        "deny": ["Bash(wget *)", "Bash(shred *)", "Read(**/.env)", "Edit(.git/**)"],
    }
}


def _py(code: str) -> str:
    return f"python3 -c {shlex.quote(code)}"


PYTHON_STOPPED = [
    # names built at run time
    "import pathlib; print(pathlib.Path('.'+'env').read_text())",
    "print(open(''.join(['.', 'e', 'nv'])).read())",
    "import os; print(open(os.path.join('.', '.env')).read())",
    "from pathlib import Path\nfor p in Path('.').rglob('*'): print(p.read_text())",
    "from pathlib import Path; print(Path('.env.example').with_suffix('').read_text())",
    # programs run
    "import os; os.system('wget http://h/x')",
    "import subprocess as sp; sp.check_output(['shred', 'README.md'])",
    "from os import popen; popen('wget h').read()",
    "import subprocess; subprocess.Popen('wget h', shell=True)",
    "import os; os.execvp('shred', ['shred', 'x'])",
    "import os; c = 'wg' + 'et'; os.system(c)",
    "import subprocess; subprocess.run(['ls'], executable='/usr/bin/wget')",
    "import os; os.execlp('wget', 'ls', 'h')",
    "import os; os.posix_spawnp('shred', ['ls', 'x'], {})",
    "import os; os.environ['PATH'] = 'bin'; os.system('ls')",
    # code evaluated or functions passed around
    "exec('import os; os.system(\"shred x\")')",
    "eval(input())",
    "__import__('o' + 's').system('id')",
    "import importlib; importlib.import_module('subprocess').run(['id'])",
    "import os; getattr(os, 'sys' + 'tem')('id')",
    "import os; run = os.system; run('id')",
    "import os as m; alias = m; alias.system('id')",
    "list(map(__import__('os').system, ['id']))",
    "().__class__.__base__.__subclasses__()",
    "import sys; sys.modules['os'].system('id')",
    # modules not known harmless
    "import sh; sh.wget('h')",
    "import ctypes; ctypes.CDLL(None).system(b'id')",
    # protected writes
    "open('.git/config', 'a').write('[core]\\n')",
    "from pathlib import Path; Path('.git/hooks/pre-commit').write_text('id')",
    "import shutil; shutil.copy('README.md', '.git/config')",
]


@pytest.mark.parametrize("code", PYTHON_STOPPED)
def test_python_code_that_may_bypass_a_rule_is_not_allowed(
    code: str, make_ctx: ContextFactory
) -> None:
    for mode in ("default", "acceptEdits"):
        verdict = decide("Bash", {"command": _py(code)}, make_ctx(RULES, mode=mode))
        assert verdict.behavior != "allow", (code, verdict.reason)


@pytest.mark.parametrize(
    "code",
    [
        "import os; os.system('wget http://h/x')",
        "import subprocess; subprocess.run(['shred', '-u', 'README.md'])",
        "__import__('os').system('wg' + 'et h')",
        "print(open('.env').read())",
        "from pathlib import Path; print((Path('.') / '.env').read_text())",
    ],
)
def test_python_code_running_or_reading_what_is_denied_is_denied_in_bypass(
    code: str, make_ctx: ContextFactory
) -> None:
    verdict = decide("Bash", {"command": _py(code)}, make_ctx(RULES, mode="bypassPermissions"))
    assert verdict.behavior == "deny", (code, verdict.reason)


def test_the_reason_names_what_was_not_seen(make_ctx: ContextFactory) -> None:
    verdict = decide(
        "Bash", {"command": _py("import os; c = 'wg' + 'et'; os.system(c)")}, make_ctx(RULES)
    )
    assert "code runs a command that is not a literal with os.system" in verdict.reason
    verdict = decide("Bash", {"command": _py("import os; os.system('wget h')")}, make_ctx(RULES))
    assert "Bash(wget *)" in verdict.reason


@pytest.mark.parametrize(
    "code",
    [
        "print(1 + 2)",
        "import sys; print(sys.version_info[:2])",
        "import json, sys; print(json.load(sys.stdin)['name'])",
        "import numpy; print(numpy.__version__)",
        "print(', '.join(sorted({'b', 'a'})))",
        "print(open('README.md').read())",
        "from pathlib import Path; print(Path('src/app.py').read_text())",
        "import os; print(os.getcwd(), os.listdir('src'))",
        "import subprocess; print(subprocess.run(['ls', 'src'], capture_output=True).stdout)",
        "import platform; print(platform.python_version())",
        "exec('print(2)')",
        "'a.b'.replace('.', '/')",
    ],
)
def test_harmless_python_stays_allowed(code: str, make_ctx: ContextFactory) -> None:
    verdict = decide("Bash", {"command": _py(code)}, make_ctx(RULES))
    assert verdict.behavior == "allow", (code, verdict.reason)


def test_python_code_is_allowed_as_before_where_no_rule_could_be_bypassed(
    make_ctx: ContextFactory,
) -> None:
    ctx = make_ctx({"permissions": {"allow": ALLOW}})
    code = "import requests; print(requests.get('https://example.com').status_code)"
    assert decide("Bash", {"command": _py(code)}, ctx).behavior == "allow"


@pytest.mark.parametrize(
    "command",
    [
        "node -e \"require('child_process').execSync('wget h')\"",
        "node -p \"require('fs').readFileSync('.e'+'nv', 'utf8')\"",
        'perl -e \'system("wg"."et h")\'',
        "perl -e 'print `id`'",
        'ruby -e \'puts File.read(".e" + "nv")\'',
        "php -r 'passthru(\"id\");'",
    ],
)
def test_unparsed_languages_ask_even_in_bypass(command: str, make_ctx: ContextFactory) -> None:
    verdict = decide("Bash", {"command": command}, make_ctx(RULES, mode="bypassPermissions"))
    assert verdict.behavior in ("ask", "deny"), (command, verdict.reason)
    assert "not parsed here" in verdict.reason or verdict.behavior == "deny"


@pytest.mark.parametrize(
    "command",
    ["node -e 'console.log(1)'", "perl -e 'print \"hi\\n\"'", "ruby -e 'puts 2; p 3'"],
)
def test_unparsed_languages_printing_literals_stay_allowed(
    command: str, make_ctx: ContextFactory
) -> None:
    assert decide("Bash", {"command": command}, make_ctx(RULES)).behavior == "allow"


def test_a_module_not_known_harmless_asks_in_every_mode(make_ctx: ContextFactory) -> None:
    """Its function hides nothing (no name or command built at run time), but may run a
    program: asked, and the ask stands in bypassPermissions."""
    code = "import sh; sh.ls('src')"
    for mode in ("default", "bypassPermissions"):
        verdict = decide("Bash", {"command": _py(code)}, make_ctx(RULES, mode=mode))
        assert verdict.behavior == "ask", verdict
        assert "calls sh.ls, which tether does not know to be harmless" in verdict.reason


@pytest.mark.parametrize(
    "command",
    [
        # Python's short flags bundled before `c` or `m` (its own getopt reads them so).
        "python3 -Sc 'import os; os.system(\"wget h\")'",
        "python3 -IEsc 'import os; os.system(\"wget h\")'",
        'python3 -uc \'import subprocess; subprocess.run(["shred", "README.md"])\'',
        "python3 -Wignore -Ec 'import os; os.system(\"wget h\")'",
        "python3 -X dev -Sc 'import os; os.system(\"wget h\")'",
        "/usr/bin/python3 -qc 'import os; os.system(\"wget h\")'",
        "python3 -Sm pdb -c 'p 1' README.md",
        # pdb's `-c` commands run as if typed at its prompt.
        "python3 -m pdb -c '!import os; os.system(\"wget h\")' README.md",
        "python3 -m pdb --command=c README.md",
    ],
)
def test_bundled_flags_and_debugger_commands_hide_no_code(
    command: str, make_ctx: ContextFactory
) -> None:
    for mode in ("default", "bypassPermissions"):
        verdict = decide("Bash", {"command": command}, make_ctx(RULES, mode=mode))
        assert verdict.behavior != "allow", (command, mode, verdict.reason)


def test_bundled_flags_with_harmless_code_stay_allowed(make_ctx: ContextFactory) -> None:
    verdict = decide("Bash", {"command": "python3 -Sc 'print(1)'"}, make_ctx(RULES))
    assert verdict.behavior == "allow", verdict.reason


@pytest.mark.parametrize(
    "command",
    [
        "make MAKEFILES=/dev/stdin <<< '$(shell wget h)'",
        "make SHELL=/tmp/evil",
        "make SHELL:=/tmp/evil all",
        "make -- SHELL=/tmp/evil",
        "make -e MAKESHELL=/tmp/evil",
        "make .SHELLFLAGS=-c",
        "make 'X != wget h'",
        "make MAKEFLAGS=--eval=x",
        "make .DEFAULT_GOAL=all .RECIPEPREFIX=x",
        "make '.RECIPEPREFIX:=#'",
    ],
)
def test_make_variables_that_choose_what_runs_are_code_not_seen(
    command: str, make_ctx: ContextFactory
) -> None:
    rules = {"permissions": {"allow": ["Bash(make *)"], "deny": ["Bash(wget *)"]}}
    for mode in ("default", "bypassPermissions"):
        verdict = decide("Bash", {"command": command}, make_ctx(rules, mode=mode))
        assert verdict.behavior != "allow", (command, mode, verdict.reason)


def test_ordinary_make_variables_stay_allowed(make_ctx: ContextFactory) -> None:
    rules = {"permissions": {"allow": ["Bash(make *)"], "deny": ["Bash(wget *)"]}}
    for command in ("make CFLAGS=-O2 all", "make -j4 PREFIX=/usr/local", "make test"):
        verdict = decide("Bash", {"command": command}, make_ctx(rules))
        assert verdict.behavior == "allow", (command, verdict.reason)
