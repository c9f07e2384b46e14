"""Every reader of a program's own language or argument grammar (awk, sed, jq, the option
tables, compilers, URL clients, response files) takes any text without raising: an exception
there used to end in the engine's last net (`awk é`). The engine's answer to any text for
these programs is a decision of its own, not the net's."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tether.permissions.awk_program import awk_problem
from tether.permissions.bash_files import program_use
from tether.permissions.command_options import option_form
from tether.permissions.commands import COMMANDS
from tether.permissions.jq_program import jq_modules, search_directories
from tether.permissions.makefile_reader import read_makefile
from tether.permissions.makefile_run import MakeRun
from tether.permissions.mentioned_files import named_paths
from tether.permissions.package_configs import config_unread
from tether.permissions.project_scripts import project_code, project_text
from tether.permissions.response_files import response_files
from tether.permissions.sed_script import sed_effects
from tether.permissions.toolchains import toolchain_use
from tether.permissions.url_clients import client_use, file_url_path

_PIECES = [
    *("é", "ü", "λ", "中", "\U0001f600", "\x00", "\r", "\n", "\t", "\\", '"', "'", "/", "@"),
    *("|", ">", "<", "#", "{", "}", "(", ")", "[", "]", "$", "=", ":", ";", ",", "-", "--"),
    *("print", "system", "getline", "import", "include", "as", "s/a/b/", "e", "w", "r"),
    *("-f", "-e", "-L", "-o", "-i", "--", "@f", "file:", "%2e", "~/", "$ORIGIN/", " ", "x"),
]
_text = st.one_of(
    st.text(max_size=80),
    st.lists(st.sampled_from(_PIECES), max_size=30).map("".join),
)
_words = st.lists(_text, max_size=6)
_FUZZ = settings(
    max_examples=400, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow]
)
_PROGRAMS = [*sorted(COMMANDS), "gcc", "clang", "curl", "wget", "objdump", "javac"]


@_FUZZ
@given(text=_text)
def test_program_languages_take_any_text(text: str) -> None:
    awk_problem(text)
    sed_effects(text)
    jq_modules(text)
    jq_modules(text, search_directories([text]))
    named_paths(text)
    file_url_path(text)
    option_form(text.split())


@_FUZZ
@given(program=st.sampled_from(_PROGRAMS), words=_words)
def test_argument_grammars_take_any_words(program: str, words: list[str]) -> None:
    argv = (program, *words)
    program_use(argv)
    toolchain_use(argv)
    client_use(argv)
    response_files(argv)


_MAKE_PIECES = [
    *("\n", "\t", "\\\n", ":", "::", "=", ":=", "!=", "+=", "?=", "%", ";", "|", "#", "$$"),
    *("$(", "${", ")", "}", "$(shell ", "$(eval ", "define ", "endef", "include ", "-include "),
    *("export ", "override ", ".PHONY", ".DEFAULT", ".SUFFIXES", ".c.o", "SHELL", "MAKEFLAGS"),
    *(".SHELLFLAGS", ".RECIPEPREFIX", "all", "x", " ", "@", "-", "+", "curl", "é", "\x00"),
]
_makefile = st.one_of(
    st.text(max_size=200), st.lists(st.sampled_from(_MAKE_PIECES), max_size=60).map("".join)
)


@_FUZZ
@given(text=_makefile, goals=st.lists(_text, max_size=3))
def test_makefiles_and_project_configs_take_any_text(text: str, goals: list[str]) -> None:
    run = MakeRun(tuple(goals), (("CC", text[:20]),), (("MAKEFLAGS", text[:10]),))
    read_makefile(text, run, lambda _: text[:50], lambda _: True)
    for name in (".npmrc", ".yarnrc", ".yarnrc.yml", "bunfig.toml", ".pnpmfile.cjs"):
        config_unread(name, text)


@_FUZZ
@given(
    program=st.sampled_from(["make", "gmake", "bmake", "npm", "pnpm", "yarn", "bun", "deno"]),
    words=_words,
)
def test_project_runners_take_any_words(program: str, words: list[str]) -> None:
    code = project_code((program, *words), (("npm_config_script_shell", "x"),))
    if code is not None:
        project_text(code, ['{"scripts": {"a": "b"}}', *words], lambda _: None, lambda _: False)
