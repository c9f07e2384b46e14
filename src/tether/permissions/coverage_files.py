"""What coverage's command line writes (`coverage CMD` and `python -m coverage CMD` alike), read
as its parser (optparse) reads it: short options packed (`-qd DIR`, `-io OUT`), long ones by
any unambiguous prefix; a report's default destination (`htmlcov/`, `coverage.json`,
`coverage.xml`, `coverage.lcov`) is written where it runs (`cd OUT && coverage html`);
`combine DIR|FILE...` deletes the data files it reads (unless `--keep`)."""

from __future__ import annotations

from collections.abc import Mapping

from tether.permissions.option_names import OptionGrammar, first_operand, option_pairs

_VALUED = (
    *("-d", "--directory", "-o", "--data-file", "--rcfile", "--include", "--omit"),
    *("--fail-under", "--precision", "--title", "--contexts", "--sort", "--format"),
    *("--concurrency", "--context", "--source", "--debug"),
)
"""Its options taking a value (`coverage help CMD`); the rest are flags (`-q`, `-i`, `-a`)."""
_GRAMMAR = OptionGrammar(_VALUED, grouped=True, prefixes=True)
_WRITTEN = frozenset({"-d", "--directory", "-o", "--data-file"})
_DEFAULTS: Mapping[str, str] = {
    "html": "htmlcov",
    "json": "coverage.json",
    "xml": "coverage.xml",
    "lcov": "coverage.lcov",
}
"""Where a report goes when no `-d`/`-o` names it (coverage's defaults)."""


def coverage_writes(args: tuple[str, ...]) -> tuple[str, ...]:
    """`args` after `coverage`: the files and directories it writes or deletes."""
    at = first_operand(args, _GRAMMAR)
    command = args[at] if at < len(args) else ""
    rest = args[at + 1 :]
    pairs = option_pairs(rest, _GRAMMAR)
    writes = [value for option, value in pairs if option in _WRITTEN and value]
    named = {option for option, _ in pairs}
    default = _DEFAULTS.get(command)
    if default is not None and not named & {"-d", "--directory", "-o"}:
        writes.append(default)
    if command == "combine" and "--keep" not in rest:
        writes += _operands(rest)
    return tuple(dict.fromkeys(writes))


def _operands(args: tuple[str, ...]) -> list[str]:
    found: list[str] = []
    i = 0
    while i < len(args):
        at = i + first_operand(args[i:], _GRAMMAR)
        found += args[at : at + 1]
        i = at + 1
    return found
