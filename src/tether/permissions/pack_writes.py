"""Where package managers write the tarball they pack: `npm pack --pack-destination DIR` (nopt
takes any unambiguous prefix), `pnpm pack --pack-destination DIR` / `--out FILE`, `yarn pack
--filename FILE` / `-o FILE`, `bun pm pack --destination DIR` / `--filename FILE`. Each is a
write there (a place outside the workspace is asked as any write is); the option means
nothing to their other commands, so it is taken wherever it stands."""

from __future__ import annotations

from collections.abc import Mapping

from tether.permissions.option_names import OptionGrammar, option_values
from tether.permissions.shell_words import is_literal, program_name

_ANY: Mapping[str, OptionGrammar] = {
    "npm": OptionGrammar(("--pack-destination",), prefixes=True),
    "pnpm": OptionGrammar(("--pack-destination",)),
    "yarn": OptionGrammar(("--filename",)),
    "bun": OptionGrammar(("--destination", "--filename")),
}
"""Options that only `pack` takes: a write wherever they stand."""
_PACK: Mapping[str, OptionGrammar] = {
    "pnpm": OptionGrammar(("--out",)),
    "yarn": OptionGrammar(("-o", "--out")),
}
"""Options `pack` takes that other commands may take too: a write with `pack`."""


def pack_writes(argv: tuple[str, ...]) -> tuple[str, ...]:
    """The places, as written, where the command writes a packed tarball."""
    if not argv or not is_literal(argv[0]):
        return ()
    name = program_name(argv[0])
    name = "yarn" if name == "yarnpkg" else name
    grammar = _ANY.get(name)
    if grammar is None:
        return ()
    args = argv[1:]
    found = option_values(args, grammar)
    if name in _PACK and "pack" in (a for a in args if not a.startswith("-")):
        found += option_values(args, _PACK[name])
    return tuple(found)
