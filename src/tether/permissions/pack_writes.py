"""Where package managers write the tarball they pack: `npm pack --pack-destination DIR` (nopt
takes any unambiguous prefix), `pnpm pack --pack-destination DIR` / `--out FILE`, `yarn pack
--filename FILE` / `-o FILE`, `bun pm pack --destination DIR` / `--filename FILE`. Each is a
write there (a place outside the workspace is asked as any write is); the option means
nothing to their other commands, so it is taken wherever it stands. The local packages `npm pack
DIR` packs (`file:DIR`, a tarball) run their `prepack`/`prepare` scripts: code loaded from
there (`pack_sources`), as an install's local packages are."""

from __future__ import annotations

from collections.abc import Mapping

from tether.permissions.option_names import OptionGrammar, option_values
from tether.permissions.package_sources import local_spec
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


_PACKERS = frozenset({"npm", "pnpm"})


def pack_sources(argv: tuple[str, ...]) -> tuple[str, ...]:
    """The local packages, as written, that `npm pack` (or pnpm's) packs from its operands
    (`npm pack ../x`, `file:../x`, `x.tgz`); a word known only as it runs may be any."""
    if not argv or not is_literal(argv[0]) or program_name(argv[0]) not in _PACKERS:
        return ()
    words: list[str] = []
    valued = False  # the word after `--pack-destination` (any prefix) is its value
    for arg in argv[1:]:
        if not valued and not arg.startswith("-"):
            words.append(arg)
        valued = arg.startswith(("--pack", "--out")) and "=" not in arg
    if words[:1] != ["pack"]:
        return ()
    found = [w if not is_literal(w) else local_spec(w) for w in words[1:]]
    return tuple(w for w in found if w is not None)
