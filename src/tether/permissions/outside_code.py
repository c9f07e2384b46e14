"""Code allowed runners load from files their options name: makefiles (`make -f FILE`, `-C DIR`,
`-I DIR`), node's preloaded modules (`-r`/`--require`, `--import`, `--loader`), npm's script
shell, package directory and node options (`npm run --script-shell=X`, `--prefix DIR`,
`--node-options='--require X'`), jq's module directories (`-L DIR`, when the program
imports or includes), ruby's and perl's include directories and required files (`-I DIR`,
`-r FILE`), npm's workspaces (`-w DIR`, `--workspace=DIR`), a program make's recipes run
named by a command-line variable (`make CC=/tmp/x`, `CROSS_COMPILE=`, `PYTHON=`), conda's,
mamba's and micromamba's environment files (`env create -f FILE`, `--file`), `run --cwd
DIR` and local channels and packages (conda_environments.conda_sources), the packages `npm
pack DIR` packs, meson's machine files (`--native-file`, `--cross-file`: the compilers and
tools the build runs), and the script an interpreter runs (interpreter_scripts.py). bash_policy
judges each as code a program imports (`_loads`): outside the workspace it is code no rule
has seen, asked. A bare module name (`-r ts-node/register`) is found in the workspace's own
packages."""

from __future__ import annotations

import re
import shlex

from tether.permissions.build_generators import machine_files
from tether.permissions.commands import SYSTEM_BIN_DIRS
from tether.permissions.conda_environments import conda_sources
from tether.permissions.interpreter_scripts import interpreter_scripts
from tether.permissions.js_tool_files import js_tool_run
from tether.permissions.make_eval import eval_text
from tether.permissions.make_options import make_places
from tether.permissions.module_urls import module_specifier
from tether.permissions.node_options import takes_node_value
from tether.permissions.node_runners import NODE_RUNNERS, node_words
from tether.permissions.option_names import (
    OptionGrammar,
    dashed_options,
    option_pairs,
    option_values,
    plain_operands,
)
from tether.permissions.pack_writes import pack_sources
from tether.permissions.package_sources import installed_specs, installs
from tether.permissions.pip_sources import ADDERS, PIP_PROGRAMS, pip_loads, pip_module
from tether.permissions.python_imports import pycache_dirs
from tether.permissions.python_tool_code import tool_loads
from tether.permissions.runtime_files import implied_files
from tether.permissions.shell_words import DYN, PATH_STARTS, is_literal, program_name

_NODE = frozenset({"node", "nodejs", "bun", "deno", *NODE_RUNNERS})
_NODE_VALUED = ("-r", "--require", "--import", "--loader", "--experimental-loader", "--preload")
"""The options of node, bun and deno that load a module before the script (`--preload`: bun's
and deno's); its value may be a path, a package, or code itself (`data:`) or from afar
(`https:`), code tether does not see."""
_NODE_MODULES = (*_NODE_VALUED, "--test-reporter", "--test-global-setup")
"""With the modules node's test runner loads (a reporter, a global setup): a path or a package."""
_NODE_FILES: dict[str, tuple[str, ...]] = {
    "node": (
        *("--experimental-config-file", "--env-file", "--env-file-if-exists"),
        *("--openssl-config", "--snapshot-blob"),
    ),
    "bun": ("-c", "--config", "--env-file", "--tsconfig-override"),
    "deno": ("-c", "--config", "--import-map"),  # `--env-file[=F]`: runtime_files
}
"""Files whose text chooses the code that loads, by runtime: node's configuration and env files
(they may set `--import` or `NODE_OPTIONS`), its OpenSSL configuration (an engine or provider:
a shared object) and a startup snapshot (code); bunfig (`preload`); deno's configuration and
import map (what each import names). A bare name is a file where the runtime runs."""
URL_CODE = re.compile(r"(data|https?|ftp):", re.I)
"""A module given as code itself or fetched: no file of the workspace's."""
_NPM = frozenset({"npm", "pnpm", "yarn", "npx", "corepack"})
_NPM_VALUED = ("--script-shell", "--shell", "--prefix", "-C", "--dir", "--cwd", "--node-options")
_NPM_WORKSPACE = ("-w", "--workspace")
"""npm's workspace options: the directory whose package.json's scripts run (a name is a
package the workspace's own package.json declares)."""
_MAKE_PROGRAMS = frozenset(
    {"CC", "CXX", "CPP", "LD", "AR", "AS", "FC", "F77", "RANLIB", "STRIP", "NM", "OBJCOPY"}
    | {"OBJDUMP", "INSTALL", "PYTHON", "PYTHON3", "PERL", "RUBY", "NODE", "SH", "BASH", "M4"}
    | {"YACC", "BISON", "LEX", "FLEX", "MAKEINFO", "RM", "MV", "CP", "LN", "MKDIR", "SED"}
    | {"AWK", "GREP", "TAR", "CHMOD", "TOUCH", "PKG_CONFIG", "CMAKE", "CARGO", "GO", "JAVA"}
    | {"JAVAC", "HOSTCC", "HOSTCXX", "HOSTLD", "CROSS_COMPILE", "CCLD", "LINK", "GIT", "ECHO"}
)
_MAKE_PROGRAM_ENDS = ("CC", "CXX", "LD", "_CMD", "_PROG", "_BIN", "_TOOL", "_EXE", "COMMAND")
_MAKE_VARIABLE = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*(?::{0,3}=|\+=|\?=)(.*)", re.S)
_JS_TOOL_CODE: dict[str, tuple[str, ...]] = {
    "jest": (
        *("-c", "--config", "--rootDir", "--root-dir", "--roots", "--setupFiles"),
        *("--setup-files", "--setupFilesAfterEnv", "--globalSetup", "--globalTeardown"),
        *("--testRunner", "--transform", "--preset", "--resolver", "--testEnvironment"),
    ),
    "vitest": ("-c", "--config", "-r", "--root", "--dir", "--globalSetup", "--setupFiles"),
    "mocha": ("-r", "--require", "--config", "--file", "--package", "--ui", "--reporter", "--spec"),
    "eslint": (
        *("-c", "--config", "--rulesdir", "--resolve-plugins-relative-to", "--plugin"),
        *("-f", "--format"),
    ),
    "prettier": ("--config", "--plugin", "--plugin-search-dir"),
    "stylelint": ("-c", "--config", "--config-basedir", "--custom-syntax", "--custom-formatter"),
    "webpack": ("-c", "--config"),
    "rollup": ("-c", "--config", "-p", "--plugin"),
    "vite": ("-c", "--config", "--configLoader"),
    "babel": ("--config-file",),
    "tsc": ("-p", "--project"),
}
"""Options of JavaScript tools (run as themselves or through `npx`) that load code or a
configuration file (which is code: `jest.config.js`) or choose the directory it comes from."""
_MOCHA_VALUED = (
    *_JS_TOOL_CODE["mocha"],
    *("-u", "-R", "-O", "--reporter-option", "--reporter-options", "-g", "--grep", "-f"),
    *("--fgrep", "-t", "--timeout", "-s", "--slow", "--retries", "-j", "--jobs"),
    *("--extension", "--ignore", "--exclude", "--watch-files", "--watch-ignore", "-n"),
    "--node-option",
)
"""mocha's options taking a value: its other words are the spec files it loads (run), and
`-n`/`--node-option` options given to node without their dashes (`-n require=./x.js`)."""
_JQ = frozenset({"jq", "gojq", "jaq"})
_JQ_IMPORT = re.compile(r"\b(import|include)\b")
_INCLUDES = {"ruby": ("-I", "-r", "--require"), "perl": ("-I",)}
_VERSIONED = re.compile(r"(ruby|perl)[0-9.]*")


def loaded_code(
    argv: tuple[str, ...],
    *,
    listed: bool = False,
    assignments: tuple[tuple[str, str], ...] = (),
) -> tuple[str, ...]:
    """Paths `argv`'s options load code from (the words as written). With `listed`, its
    unknown words are names `ls` or `find` lists (script.Produced), not options;
    `assignments`, the environment the command sets (`GUNICORN_CMD_ARGS`)."""
    if not argv or not is_literal(argv[0]):
        return ()
    name = program_name(argv[0])
    args = argv[1:]
    scripts = interpreter_scripts(argv)
    if name in ("make", "gmake", "bmake"):
        places = _make_paths(make_places(args))
        text = eval_text(args)
        assigned = tuple(f"{name}={value}" for name, value in text.assignments)
        return (*places, *text.includes, *_make_programs((*args, *assigned)))
    if name == "bun" and installs(argv):
        return installed_specs(argv)
    if name in _NODE:
        if name not in ("bun", "deno"):
            args = dashed_options(args)  # node takes `--env_file` for `--env-file`
        files = option_values(args, _NODE_FILES.get(name, _NODE_FILES["node"]))
        files += implied_files(name, args)
        files += _runner_configs(name, args, assignments)
        return (*_node_modules(option_pairs(args, _NODE_MODULES)), *files, *scripts)
    tool = js_tool_run(name, args, _JS_TOOL_CODE)
    tools = _tool_files(option_values(tool[1], _JS_TOOL_CODE[tool[0]])) if tool is not None else ()
    if tool is not None and tool[0] == "mocha":
        # mocha loads a file when one is there before it tries a module (`-r out/p.js`)
        named = option_values(tool[1], (*_JS_TOOL_CODE["mocha"], "-u", "-R"))
        tools += tuple(_as_path(v) for v in named if not URL_CODE.match(v))
        tools += tuple(plain_operands(tool[1], _MOCHA_VALUED))
        node = tuple("--" + v for v in option_values(tool[1], ("-n", "--node-option")))
        tools += _node_modules(option_pairs(node, _NODE_VALUED))
    if name in _JS_TOOL_CODE:
        return tools
    if name in _NPM:
        # nopt takes any unambiguous prefix of a setting (`--script-she=X`), and a word known
        # only as it runs may be any setting (`npm run "$X"`).
        found = [
            a
            for a in _before_end(args)
            if not is_literal(a.partition("=")[0]) and not (listed and a == DYN)
        ]
        for option, value in option_pairs(args, OptionGrammar(_NPM_VALUED, prefixes=True)):
            if option == "--node-options":
                words = _split(value)
                found += (
                    _node_modules(option_pairs(tuple(words), _NODE_VALUED)) if words else [value]
                )
            else:
                found.append(value)
        found += [*installed_specs(argv), *pack_sources(argv)]
        return (*found, *_workspaces(args), *_runner_package(name, args), *tools)
    if name in PIP_PROGRAMS | ADDERS or (scripts == () and pip_module(argv) is not None):
        return pip_loads(argv)
    if name in _CONDA:
        return (*option_values(args, _CONDA_PLACES), *conda_sources(args))
    if name == "meson":
        return machine_files(argv)
    if name in _JQ and any(_JQ_IMPORT.search(a) for a in args):
        # Only a program that imports or includes reads code from `-L` (jq_program.py).
        return tuple(option_values(args, ("-L", "--library-path")))
    versioned = _VERSIONED.fullmatch(name)
    family = versioned.group(1) if versioned else name
    if family in _INCLUDES:
        return (*option_values(args, _INCLUDES[family]), *scripts)
    return (*scripts, *pycache_dirs(argv), *tool_loads(argv, assignments))


def js_tool_values(argv: tuple[str, ...]) -> tuple[str, ...]:
    """The values, as written, of a JavaScript tool's options that load code or configuration
    (`jest --config jest.config.js`: `jest.config.js`), run as itself or through npx: files
    the tool reads, whatever else its options may do."""
    if not argv or not is_literal(argv[0]):
        return ()
    tool = js_tool_run(program_name(argv[0]), argv[1:], _JS_TOOL_CODE)
    return tuple(option_values(tool[1], _JS_TOOL_CODE[tool[0]])) if tool is not None else ()


def _runner_package(name: str, args: tuple[str, ...]) -> list[str]:
    """The package `npx` runs when given as a directory (`npx /x/pkg`, `-p ../pkg`): its bin
    script runs; a package name is fetched or found in the workspace's own packages."""
    if name != "npx":
        return []
    named = option_values(args, ("-p", "--package"))
    first = next((a for a in args if not a.startswith("-") and a not in named), None)
    words = [*named, *([first] if first is not None else [])]
    return [w for w in words if w.startswith(PATH_STARTS) or not is_literal(w)]


def _workspaces(args: tuple[str, ...]) -> list[str]:
    """Directories `-w`/`--workspace` name; a bare package name is one the workspace's own
    package.json declares (`--workspaces` runs those: the workspace's own code)."""
    values = option_values(args, OptionGrammar(_NPM_WORKSPACE, prefixes=True))
    return [v for v in values if v.startswith(PATH_STARTS) or not is_literal(v)]


def _make_programs(args: tuple[str, ...]) -> list[str]:
    """Programs make's recipes run that a command-line variable names by path (`CC=/tmp/x`,
    `CROSS_COMPILE=/opt/x-`, `LINT_CMD=../x`); a bare name, or a program of the system's
    bin directories, is an installed program, judged against the Bash rules as a command
    (tail_rules)."""
    found: list[str] = []
    for arg in args:
        assigned = _MAKE_VARIABLE.fullmatch(arg)
        if assigned is None or arg.startswith("-"):
            continue
        name, value = assigned.group(1), assigned.group(2)
        if name not in _MAKE_PROGRAMS and not name.endswith(_MAKE_PROGRAM_ENDS):
            continue
        words = _split(value) if is_literal(value) else [value]
        program = words[0] if words else ""
        installed = program.rpartition("/")[0] in SYSTEM_BIN_DIRS  # `CC=/usr/bin/gcc-12`
        if ("/" in program and not installed) or program.startswith("~") or not is_literal(program):
            found.append(program)
    return found


def _split(text: str) -> list[str] | None:
    try:
        return shlex.split(text)
    except ValueError:
        return None


def _paths(values: list[str]) -> tuple[str, ...]:
    """Module specifiers that are paths (`./x.js`, `/tmp/x.js`, `file:`) or code given inline
    or fetched (`data:`, `https:`), read as node reads them (module_urls.py); a bare name is a
    package of the workspace's."""
    return _node_modules([("--import", value) for value in values])


def _runner_configs(
    name: str, args: tuple[str, ...], assignments: tuple[tuple[str, str], ...]
) -> list[str]:
    """The TypeScript configuration a runner reads, by its option in either form
    (`--tsconfig PATH`, `--tsconfig=PATH`) or its variable (`TSX_TSCONFIG_PATH`): a bare
    name is a file where it runs."""
    table = NODE_RUNNERS.get(name)
    if table is None:
        return []
    named = [*node_words(name, args, takes_node_value).configs]
    named += [value for variable, value in assignments if variable in table.config_variables]
    return [_as_path(v) for v in named if v]


def _tool_files(values: list[str]) -> tuple[str, ...]:
    """What a JavaScript tool's code-loading options load: each value is first a file from
    where it runs (prettier loads `--plugin out/p.js` from `./out/p.js` before any package
    of that name; eslint's, stylelint's, jest's `--config` and tsc's `-p` name files), so a
    bare word is judged as the path it is; a URL as node reads it (`file:`, `data:`)."""
    return _paths([_as_path(v) for v in values])


def _as_path(word: str) -> str:
    """`word` written as a path from where the program runs (`out/p.js` as `./out/p.js`);
    a word known only as it runs, a path already, or a URL as it is."""
    bare = is_literal(word) and not word.startswith(PATH_STARTS) and ":" not in word
    return "./" + word if bare else word


def _node_modules(pairs: list[tuple[str, str]]) -> tuple[str, ...]:
    """The modules node's options load, read as node reads them (module_urls.py: an ES
    module's specifier as a URL, `--require`'s a URL or a path): paths, and code given inline
    or fetched (`data:`, `https:`); a bare name is a package of the workspace's."""
    found: list[str] = []
    for option, value in pairs:
        v = (
            module_specifier(value, esm=option not in ("-r", "--require"))
            if is_literal(value)
            else value
        )
        if v.startswith(PATH_STARTS) or not is_literal(v) or URL_CODE.match(v):
            found.append(v)
    return tuple(found)


_CONDA = frozenset({"conda", "mamba", "micromamba"})
_CONDA_PLACES = OptionGrammar(("-f", "--file", "--cwd"), prefixes=True)
"""conda's (and mamba's, micromamba's) environment and requirement files (`env create -f
FILE`, `install --file FILE`: the packages built and installed, pip's section too) and the
directory `run --cwd DIR` runs its command in. conda's parser is argparse's: any unambiguous
prefix is the option (`--fi`, `--cw`); micromamba refuses one, so reading it so asks nothing
that runs."""


def _before_end(args: tuple[str, ...]) -> tuple[str, ...]:
    return args[: args.index("--")] if "--" in args else args


def _make_paths(places: list[tuple[str, str]]) -> list[str]:
    """make's places as paths from where it starts: a relative makefile or include directory
    is read from the directory `-C` moved to (`make -C src -f ../../x.mk` reads ../x.mk)."""
    directory = next((v for letter, v in places if letter == "C" and is_literal(v)), None)
    paths: list[str] = []
    for letter, value in places:
        if value in ("-", ""):
            continue
        relative = letter != "C" and is_literal(value) and not value.startswith(("/", "~"))
        paths.append(f"{directory}/{value}" if directory is not None and relative else value)
    return paths
