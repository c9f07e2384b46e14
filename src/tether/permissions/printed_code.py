"""Inline code of languages tether has no parser for (`node -e`, `perl -e`, `ruby -e`...)
that is shown harmless without one: only statements printing literals (`console.log(1)`,
`print "hi"`, `puts 'x'`). Anything else may run programs or open files: not seen."""

from __future__ import annotations

import re

_LITERAL = r"""(?:-?[0-9][0-9._eE+-]*|'[^'\\$@`{}#]*'|"(?:[^"\\$@`{}#]|\\[nt])*")"""
_LITERALS = rf"{_LITERAL}(?:\s*[,+.]\s*{_LITERAL})*"
_PRINTS: dict[str, tuple[str, ...]] = {
    "node": ("console.log", "console.error", "process.stdout.write"),
    "bun": ("console.log", "console.error"),
    "deno": ("console.log", "console.error"),
    "perl": ("print", "say"),
    "ruby": ("puts", "print", "p"),
    "php": ("echo", "print"),
    "lua": ("print",),
    "Rscript": ("print", "cat"),
}
_STATEMENTS: dict[str, re.Pattern[str]] = {
    language: re.compile(
        rf"\s*(?:(?:{'|'.join(re.escape(n) for n in names)})"
        rf"(?:\s*\(\s*{_LITERALS}?\s*\)|\s+{_LITERALS})\s*(?:;\s*|$))+"
    )
    for language, names in _PRINTS.items()
}


def only_prints(language: str, code: str) -> bool:
    """Whether `code` only prints literals in `language`."""
    pattern = _STATEMENTS.get(language)
    return pattern is not None and pattern.fullmatch(code) is not None
