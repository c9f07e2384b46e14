"""Code allowed runners load from files their options name: makefiles (`make -f FILE`, `-C DIR`,
`-I DIR`), node's preloaded modules (`-r`/`--require`, `--import`, `--loader`), npm's script
shell, package directory and node options (`npm run --script-shell=X`, `--prefix DIR`,
`--node-options='--require X'`), jq's module directories (`-L DIR`, when the program
imports or includes), ruby's and perl's include directories and required files (`-I DIR`,
`-r FILE`). bash_policy judges each as
code a program imports (`_loads`): outside the workspace it is code no rule has seen, asked.
A bare module name (`-r ts-node/register`) is found in the workspace's own packages."""

from __future__ import annotations

import re
import shlex

from tether.permissions.make_options import make_places
from tether.permissions.shell_words import is_literal, program_name

_NODE = frozenset({"node", "nodejs", "bun", "deno", "ts-node", "tsx"})
_NODE_VALUED = ("-r", "--require", "--import", "--loader", "--experimental-loader")
_NPM = frozenset({"npm", "pnpm", "yarn", "npx", "corepack"})
_NPM_VALUED = ("--script-shell", "--prefix", "-C", "--dir", "--cwd", "--node-options")
_JQ = frozenset({"jq", "gojq", "jaq"})
_JQ_IMPORT = re.compile(r"\b(import|include)\b")
_INCLUDES = {"ruby": ("-I", "-r", "--require"), "perl": ("-I",)}
_VERSIONED = re.compile(r"(ruby|perl)[0-9.]*")


def loaded_code(argv: tuple[str, ...]) -> tuple[str, ...]:
    """Paths `argv`'s options load code from (the words as written)."""
    if not argv or not is_literal(argv[0]):
        return ()
    name = program_name(argv[0])
    args = argv[1:]
    if name in ("make", "gmake", "bmake"):
        return tuple(value for _, value in make_places(args) if value not in ("-", ""))
    if name in _NODE:
        return _paths(_values(args, _NODE_VALUED))
    if name in _NPM:
        found: list[str] = []
        for option, value in _pairs(args, _NPM_VALUED):
            if option == "--node-options":
                words = _split(value)
                found += _paths(_values(tuple(words), _NODE_VALUED)) if words else [value]
            else:
                found.append(value)
        return tuple(found)
    if name in _JQ and any(_JQ_IMPORT.search(a) for a in args):
        # Only a program that imports or includes reads code from `-L` (jq_program.py).
        return tuple(_values(args, ("-L", "--library-path")))
    versioned = _VERSIONED.fullmatch(name)
    family = versioned.group(1) if versioned else name
    if family in _INCLUDES:
        return tuple(_values(args, _INCLUDES[family]))
    return ()


def _split(text: str) -> list[str] | None:
    try:
        return shlex.split(text)
    except ValueError:
        return None


def _paths(values: list[str]) -> tuple[str, ...]:
    """Module specifiers that are paths (`./x.js`, `/tmp/x.js`, `file:`); a bare name is a
    package of the workspace's."""
    return tuple(
        v.removeprefix("file://") for v in values if v.startswith(("/", ".", "~", "file:"))
    )


def _values(args: tuple[str, ...], options: tuple[str, ...]) -> list[str]:
    return [value for _, value in _pairs(args, options)]


def _pairs(args: tuple[str, ...], options: tuple[str, ...]) -> list[tuple[str, str]]:
    """(option, value) for each of `options` in `args`: `-r X`, `-rX`, `--opt X`, `--opt=X`,
    until `--` or, for short options, a word that is no option."""
    found: list[tuple[str, str]] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            break
        for option in options:
            if arg == option and i + 1 < len(args):
                found.append((option, args[i + 1]))
                i += 1
                break
            if option.startswith("--") and arg.startswith(option + "="):
                found.append((option, arg[len(option) + 1 :]))
                break
            if not option.startswith("--") and arg.startswith(option) and len(arg) > 2:
                found.append((option, arg[len(option) :]))
                break
        i += 1
    return found
