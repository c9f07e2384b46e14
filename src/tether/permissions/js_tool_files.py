"""The files JavaScript tools write by their options, and the patterns they expand themselves
(run as themselves or through npx): prettier's `--write`/`-w`, eslint's and stylelint's
`--fix` rewrite their operands; `--cache-location`, eslint's and stylelint's `-o`, tsc's
`--outDir`, `--outFile`, `--declarationDir`, `--tsBuildInfoFile`, jest's and vitest's
`--outputFile` and `--coverageDirectory`, webpack's `-o/--output-path` write where they say.
prettier, eslint and stylelint expand a quoted glob operand (`'src/**/*.ts'`, `'.e*'`)
themselves: `js_tool_globs`, each file it matches judged (tool_globs, bash_judge_files); one
not a literal is asked. Options loading code are outside_code's (`--plugin`, `--config`)."""

from __future__ import annotations

from collections.abc import Container, Mapping

from tether.permissions.option_names import option_values, plain_operands
from tether.permissions.program_use import ProgramUse
from tether.permissions.shell_words import is_literal, program_name, readable
from tether.permissions.tool_globs import has_magic, tool_glob_words

_WRITES: Mapping[str, tuple[str, ...]] = {
    "prettier": ("--cache-location", "--log-file"),
    "eslint": ("-o", "--output-file", "--cache-location", "--cache-file"),
    "stylelint": ("-o", "--output-file", "--cache-location"),
    "tsc": ("--outDir", "--outFile", "--out", "--declarationDir", "--tsBuildInfoFile"),
    "jest": ("--outputFile", "--coverageDirectory", "--coverage-directory", "--cacheDirectory"),
    "vitest": ("--outputFile", "--coverage.reportsDirectory"),
    "webpack": ("-o", "--output-path"),
}
"""Each tool's options whose value is a file or directory it writes."""
_REWRITES: Mapping[str, tuple[str, ...]] = {
    "prettier": ("--write", "-w"),
    "eslint": ("--fix",),
    "stylelint": ("--fix",),
}
"""Flags with which a tool rewrites the files its operands name."""
_VALUED: Mapping[str, tuple[str, ...]] = {
    "prettier": (
        *("--config", "--plugin", "--parser", "--ignore-path", "--stdin-filepath"),
        *("--cache-strategy", "--end-of-line", "--trailing-comma", "--print-width"),
        *("--tab-width", "--quote-props", "--arrow-parens", "--prose-wrap", "--log-level"),
        *("--cache-location", "--log-file", "--cursor-offset", "--range-start", "--range-end"),
    ),
    "eslint": (
        *("-c", "--config", "--rulesdir", "--resolve-plugins-relative-to", "--plugin"),
        *("-f", "--format", "-o", "--output-file", "--cache-location", "--cache-file"),
        *("--ext", "--ignore-path", "--ignore-pattern", "--rule", "--global", "--parser"),
        *("--parser-options", "--env", "--max-warnings", "--cache-strategy", "--fix-type"),
    ),
    "stylelint": (
        *("-c", "--config", "--config-basedir", "--custom-syntax", "-f", "--formatter"),
        *("--custom-formatter", "-i", "--ignore-path", "--ip", "--ignore-pattern"),
        *("-o", "--output-file", "--cache-location", "--cache-strategy", "--mw"),
        *("--max-warnings", "--stdin-filename", "--go", "--globby-options"),
    ),
}
"""Options taking a value, so that the word after one is no operand."""
_GLOBBING = frozenset({"prettier", "eslint", "stylelint"})
_NPX = frozenset({"npx", "pnpx", "bunx"})


def js_tool_use(argv: tuple[str, ...]) -> ProgramUse | None:
    """What a JavaScript tool's options write and its own patterns read; None for another
    program, or when it writes and expands nothing."""
    if not argv or not is_literal(argv[0]):
        return None
    found = js_tool_run(program_name(argv[0]), argv[1:], _WRITES)
    if found is None:
        return None
    tool, args = found
    writes = option_values(args, _WRITES[tool]) if tool in _WRITES else []
    asks: list[str] = []
    if tool in _VALUED:
        operands = plain_operands(args, _VALUED[tool])
        patterns = [w for w in operands if tool in _GLOBBING and is_literal(w) and has_magic(w)]
        if any(word in _REWRITES.get(tool, ()) for word in args):
            writes += [w for w in operands if w not in patterns]
        for word in operands:
            if tool in _GLOBBING and not is_literal(word):
                asks.append(
                    f"{tool} expands the pattern {readable(word)} itself, into files not named"
                )
    if not writes and not asks:
        return None
    return ProgramUse(writes=tuple(writes), asks=tuple(asks), changes=bool(writes))


def js_tool_globs(argv: tuple[str, ...]) -> tuple[tuple[str, ...], bool]:
    """The patterns a JavaScript tool expands itself (quoted: `prettier --check
    'src/**/*.ts'`), as tool_globs' marked words, and whether it rewrites what they match
    (`--write`, `--fix`)."""
    if not argv or not is_literal(argv[0]):
        return (), False
    found = js_tool_run(program_name(argv[0]), argv[1:], _GLOBBING)
    if found is None:
        return (), False
    tool, args = found
    operands = plain_operands(args, _VALUED[tool])
    words = [m for w in operands if is_literal(w) and has_magic(w) for m in tool_glob_words(w)]
    return tuple(words), bool(words) and any(w in _REWRITES[tool] for w in args)


def js_tool_run(
    name: str, args: tuple[str, ...], tools: Container[str]
) -> tuple[str, tuple[str, ...]] | None:
    """(tool, its arguments) for one of `tools` run as itself or through npx (or pnpx,
    bunx: the first word that is not an option names the package, its version cut)."""
    if name in tools:
        return name, args
    if name not in _NPX:
        return None
    for i, arg in enumerate(args):
        if not arg.startswith("-"):
            tool = program_name(arg).partition("@")[0] if is_literal(arg) else ""
            return (tool, args[i + 1 :]) if tool in tools else None
    return None
