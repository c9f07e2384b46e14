"""Where pip, uv and pipx write what they install, download or build: their options' places
(`--target`/`-t`, `--prefix`, `--root`, `--user`: `~/.local`, `download -d`, `wheel -w`,
`compile -o`, `--cache-dir`), `uv build -o`, the directory `uv venv` makes, and the user's
PATH that `uv tool install|upgrade|uninstall` and `update-shell` change. Their words are
read as pip_sources reads them."""

from __future__ import annotations

from tether.permissions.option_names import OptionGrammar, option_values, plain_operands
from tether.permissions.pip_sources import (
    ADDERS,
    GLOBAL_VALUED,
    PIP_FETCHES,
    PIP_FLAGS,
    pip_values,
    pip_words,
)
from tether.permissions.shell_words import HOME, program_name

_PIP_WRITES = (
    *("-t", "--target", "--prefix", "--root", "--src", "--report", "--log"),
    *("-d", "--dest", "-w", "--wheel-dir", "-o", "--output-file", "--cache-dir"),
)
"""pip's and uv's options naming where an install, download, wheel build or compile writes
(`pip install --target DIR`, `pip download -d DIR`, `uv pip compile -o FILE`)."""


_UV_TOOL_PLACES = (HOME + "/.local/bin", HOME + "/.local/share/uv/tools")
"""Where `uv tool install` puts a tool's environment and its programs, on the user's PATH."""
_UV_TOOL_SUBCOMMANDS = frozenset(
    {"run", "install", "upgrade", "uninstall", "list", "dir", "update-shell", "ensurepath"}
)
_UV_TOOL_VARIABLES = frozenset({"UV_TOOL_DIR", "UV_TOOL_BIN_DIR", "XDG_BIN_HOME", "XDG_DATA_HOME"})


def pip_writes(
    argv: tuple[str, ...], assignments: tuple[tuple[str, str], ...] = ()
) -> tuple[str, ...]:
    """Where `argv` (pip, uv, `python3 -m pip`) writes what it installs, downloads or builds,
    as written: its options' places and, for `--user`, the user's site (`~/.local`). The
    project managers' `add` (`pdm add -d`: a dev dependency) writes where the project is.
    `uv tool install|upgrade|uninstall` writes programs onto the user's PATH (`~/.local/bin`,
    or where `assignments` put it: `UV_TOOL_BIN_DIR`), as `pip install --user` does."""
    if not argv or program_name(argv[0]) in ADDERS:
        return ()
    words = pip_words(argv)
    operands = tuple(w for w in words if not w.startswith("-"))  # `uv --quiet tool ...`
    if "tool" in operands[:2] and program_name(argv[0]) == "uv":  # `uv --directory d tool`
        return _uv_tool_places(operands[operands.index("tool") + 1 :], assignments)
    words = words[1:] if words[:1] == ("pip",) else words
    if words[:1] == ("build",) and program_name(argv[0]) == "uv":
        return tuple(pip_values(words, ("-o", "--out-dir")))  # `uv build -o DIR`
    if words[:1] == ("venv",) and program_name(argv[0]) == "uv":
        return uv_venv_places(words[1:])  # `uv venv DIR`
    if not words or words[0] not in PIP_FETCHES:
        return ()
    found = pip_values(words, _PIP_WRITES)
    user = OptionGrammar(("--user",), flags=("--user",), prefixes=True, known=PIP_FLAGS)
    if option_values(words, user):
        found.append(HOME + "/.local")
    return tuple(found)


def _uv_tool_places(
    words: tuple[str, ...], assignments: tuple[tuple[str, str], ...]
) -> tuple[str, ...]:
    """The directories `uv tool SUB` writes: its tools' and their programs' (none for `list`,
    `dir`, `run`, which the launchers judge), and the shell's files `update-shell` edits."""
    # an option's value may come first (`uv --directory d tool install`: optparse_words)
    sub = next((w for w in words if w in _UV_TOOL_SUBCOMMANDS), "")
    if sub in ("install", "upgrade", "uninstall"):
        found = [value for name, value in assignments if name in _UV_TOOL_VARIABLES]
        return (*_UV_TOOL_PLACES, *found)
    if sub in ("update-shell", "ensurepath"):
        return (HOME + "/.profile", HOME + "/.bashrc", HOME + "/.zshrc")
    return ()


_UV_VENV_VALUED = frozenset(
    {
        *("-p", "--python", "--prompt", "-i", "--index-url", "--extra-index-url", "-f"),
        *GLOBAL_VALUED,
    }
    | {*("--find-links", "--index", "--default-index", "--index-strategy", "--link-mode")}
    | {*("--keyring-provider", "--exclude-newer", "-c", "--constraints")}
)
"""`uv venv`'s options that take a value (what is left is the directory it makes)."""


def uv_venv_places(words: tuple[str, ...]) -> tuple[str, ...]:
    """The directory `uv venv [OPTIONS] [DIR]` makes, with `--cache-dir`'s; a word after an
    option no table knows is taken as a place too (more is judged, not less)."""
    found = list(pip_values(words, ("--cache-dir",)))
    return (*found, *plain_operands(words, _UV_VENV_VALUED))
