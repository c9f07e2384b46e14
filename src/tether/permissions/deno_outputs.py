"""What deno's subcommands write or fetch besides the code they run: the file an option names
(`compile -o`, `bundle -o`/`--outdir`, `doc --output`, `coverage --output`, `install --root`,
`test --coverage=DIR`, `--junit-path`, `--lock=FILE`), judged by the Edit rules as any write
is; the files `deno fmt` rewrites (not with `--check`) and `deno lint --fix` fixes; and what
replaces, fetches or sends code unseen: `deno upgrade` (the deno program, downloaded), `deno
x` (deno's npx: a package fetched and run), `deno init --npm/--jsr` and `deno create` (a
template package fetched and run), `deno deploy` and `deno sandbox` (deno's own tools,
fetched and run), `deno publish` (the package sent to a registry), `deno approve-scripts`
(packages' lifecycle scripts allowed to run later) and `deno jupyter --install` (a kernel
under the home directory): asked."""

from __future__ import annotations

from tether.permissions.deno_options import deno_line
from tether.permissions.program_use import ProgramUse
from tether.permissions.shell_words import is_literal, program_name

_WRITTEN = frozenset({"--output", "--outdir", "--root", "--junit-path", "--lock", "--coverage"})
"""Options whose value is a file or directory deno writes."""
_ASKED = {
    "upgrade": "deno upgrade replaces the deno program with one it downloads: not seen",
    "x": "deno x fetches a package and runs it, as npx does: not seen",
    "create": "deno create fetches a template package and runs it: not seen",
    "deploy": "deno deploy fetches deno's deploy tool and runs it: not seen",
    "sandbox": "deno sandbox fetches deno's sandbox tool and runs it: not seen",
    "publish": "deno publish sends the package to a registry",
    "approve-scripts": "deno approve-scripts lets packages' lifecycle scripts run later",
}


def deno_outputs(argv: tuple[str, ...]) -> ProgramUse | None:
    """The files deno writes besides its code's, and what it fetches unseen; None for another
    program or when it writes none."""
    if not argv or not is_literal(argv[0]) or program_name(argv[0]) != "deno":
        return None
    line = deno_line(argv[1:])
    command = line.command
    asks = [_ASKED[command]] if command in _ASKED else []
    given = {option for option, _value in line.options}
    writes = [value for option, value in line.options if option in _WRITTEN and value]
    if command == "jupyter" and "--install" in given:
        asks.append("deno jupyter --install writes a kernel under the home directory")
    if command == "init" and given & {"--npm", "--jsr"}:
        asks.append("deno init --npm/--jsr fetches a template package and runs it: not seen")
    if (command == "fmt" and "--check" not in given) or (command == "lint" and "--fix" in given):
        writes.extend(line.operands)
    if not writes and not asks:
        return None
    return ProgramUse(writes=tuple(writes), asks=tuple(asks), changes=True)
