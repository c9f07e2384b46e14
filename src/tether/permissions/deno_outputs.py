"""What deno's subcommands write or fetch besides the code they run: the file an option names
(`compile -o`, `bundle -o`, `doc --output`, `coverage --output`, `install --root`, `test
--coverage=DIR`, `--junit-path`, `--lock=FILE`), judged by the Edit rules as any write is;
the files `deno fmt` rewrites (not with `--check`) and `deno lint --fix` fixes; and what
replaces or fetches code unseen: `deno upgrade` (the deno program, downloaded), `deno x`
(deno's npx: a package fetched and run) and `deno jupyter --install` (a kernel under the
home directory): asked."""

from __future__ import annotations

from tether.permissions.deno_options import deno_words
from tether.permissions.program_use import ProgramUse
from tether.permissions.shell_words import is_literal, program_name

_WRITTEN = frozenset({"-o", "--output", "--root", "--junit-path", "--lock", "--coverage"})
"""Options whose value is a file or directory deno writes."""
_SCRIPTED = frozenset({"", "run", "serve", "compile", "bundle", "install"})
"""Subcommands whose first word not an option is the script: the words after it are its."""
_ASKED = {
    "upgrade": "deno upgrade replaces the deno program with one it downloads: not seen",
    "x": "deno x fetches a package and runs it, as npx does: not seen",
}


def deno_outputs(argv: tuple[str, ...]) -> ProgramUse | None:
    """The files deno writes besides its code's, and what it fetches unseen; None for another
    program or when it writes none."""
    if not argv or not is_literal(argv[0]) or program_name(argv[0]) != "deno":
        return None
    args = argv[1:]
    command = args[0] if args and not args[0].startswith("-") else ""
    if command and command not in _SCRIPTED | {"fmt", "lint", "test", "doc", "coverage"}:
        command = command if command in _ASKED or command in ("jupyter", "cache") else "?"
    words = args[1:] if command and command != "?" else args
    asks = [_ASKED[command]] if command in _ASKED else []
    options, operands = deno_words(words, script_ends=command in _SCRIPTED or command == "?")
    given = {option for option, _value in options}
    writes = [value for option, value in options if option in _WRITTEN and value]
    if command == "jupyter" and "--install" in given:
        asks.append("deno jupyter --install writes a kernel under the home directory")
    if (command == "fmt" and "--check" not in given) or (command == "lint" and "--fix" in given):
        writes.extend(operands)
    if not writes and not asks:
        return None
    return ProgramUse(writes=tuple(writes), asks=tuple(asks), changes=True)
