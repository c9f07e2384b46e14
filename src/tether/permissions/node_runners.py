"""TypeScript runners that start node with its own options: `tsx` (and `tsx watch`), `ts-node`
and its entry points (`ts-node-esm`, `ts-node-script`, `ts-node-cwd`,
`ts-node-transpile-only`). Each passes what it does not read itself to node, so its command
line is node's once its own options are taken off (`tsx --inspect=0.0.0.0 x.ts` is `node
--inspect=0.0.0.0 x.ts`). The one table every reader of node's command line asks."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True)
class RunnerOptions:
    """A runner's own options, which node never sees."""

    flags: frozenset[str] = frozenset()
    valued: frozenset[str] = frozenset()
    """Options taking a value (separate or after `=`) that is no code."""
    loads: frozenset[str] = frozenset()
    """Options whose value is a module the runner loads: code not read."""
    configs: frozenset[str] = frozenset()
    """Options whose value is a TypeScript configuration file: its `paths`, `baseUrl` and
    `extends` choose which files an import runs, so it is code loaded (outside_code)."""
    config_variables: frozenset[str] = frozenset()
    """Environment variables that name the configuration file as `configs` do."""
    commands: frozenset[str] = frozenset()
    """First words that choose a mode and leave node's options after them (`tsx watch`)."""
    as_node: Mapping[str, str] = field(default_factory=dict[str, str])
    """The runner's own flags that mean what a node flag means (`ts-node -i` is node's
    prompt, code from the input)."""


@dataclass(frozen=True)
class NodeWords:
    """A runner's command line as the node it starts reads it."""

    words: tuple[str, ...]
    loads: tuple[tuple[str, str], ...] = ()
    """(option, value) of the runner's own options that load a module: code not read."""
    configs: tuple[str, ...] = ()
    """The configuration files the runner's own options name (RunnerOptions.configs)."""


def _s(text: str) -> frozenset[str]:
    return frozenset(text.split())


_TS_NODE = RunnerOptions(
    flags=_s(
        "-i --interactive --esm -T --transpile-only -H --compiler-host --files --pretty "
        "--skip-project --skip-ignore --prefer-ts-exts --log-error --show-config --swc "
        "--scope --cwd-mode --script-mode --emit"
    ),
    valued=_s(
        "-I --ignore --project-search-dir -D --ignore-diagnostics -O "
        "--compiler-options --cwd --scope-dir"
    ),
    loads=_s("-C --compiler --transpiler"),
    configs=_s("-P --project"),
    config_variables=_s("TS_NODE_PROJECT"),
    as_node={"-i": "-i", "--interactive": "-i"},
)
NODE_RUNNERS: Mapping[str, RunnerOptions] = {
    "tsx": RunnerOptions(
        flags=_s("--no-cache --clear-screen --no-clear-screen"),
        valued=_s("--include --exclude --ignore"),
        commands=_s("watch"),
        configs=_s("--tsconfig"),
        config_variables=_s("TSX_TSCONFIG_PATH"),
    ),
    **dict.fromkeys(
        ("ts-node", "ts-node-esm", "ts-node-script", "ts-node-cwd", "ts-node-transpile-only"),
        _TS_NODE,
    ),
}


def node_words(name: str, args: tuple[str, ...], takes_value: Callable[[str], bool]) -> NodeWords:
    """`name`'s words (`name` a key of NODE_RUNNERS) as node reads them: the runner's own
    options (and mode word: `tsx watch`) taken off up to the script, the rest node's, so
    `tsx -e CODE`, `tsx` reading its input and `ts-node -p CODE` are node's inline code and
    input. `takes_value` says which of node's options take the next word."""
    table = NODE_RUNNERS[name]
    kept: list[str] = []
    loads: list[tuple[str, str]] = []
    configs: list[str] = []
    i = 1 if args and args[0] in table.commands else 0
    while i < len(args):
        arg = args[i]
        if arg in ("--", "-") or not arg.startswith("-"):
            return NodeWords((*kept, *args[i:]), tuple(loads), tuple(configs))
        option, eq, value = arg.partition("=")
        if option in table.valued or option in table.loads or option in table.configs:
            if not eq:
                value, i = (args[i + 1] if i + 1 < len(args) else ""), i + 1
            if option in table.loads:
                loads.append((option, value))
            if option in table.configs:
                configs.append(value)
        elif option in table.as_node:
            kept.append(table.as_node[option])
        elif option not in table.flags:
            kept.append(arg)
            if takes_value(arg) and not eq and i + 1 < len(args):
                kept.append(args[i + 1])
                i += 1
        i += 1
    return NodeWords(tuple(kept), tuple(loads), tuple(configs))
