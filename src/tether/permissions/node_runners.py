"""TypeScript runners that start node with its own options: `tsx` (and `tsx watch`), `ts-node`
and its entry points (`ts-node-esm`, `ts-node-script`, `ts-node-cwd`,
`ts-node-transpile-only`). Each passes what it does not read itself to node, so its command
line is node's once its own options are taken off (`tsx --inspect=0.0.0.0 x.ts` is `node
--inspect=0.0.0.0 x.ts`). The one table every reader of node's command line asks."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class RunnerOptions:
    """A runner's own options, which node never sees."""

    flags: frozenset[str] = frozenset()
    valued: frozenset[str] = frozenset()
    """Options taking a value (separate or after `=`) that is no code."""
    loads: frozenset[str] = frozenset()
    """Options whose value is a module the runner loads: code not read."""
    commands: frozenset[str] = frozenset()
    """First words that choose a mode and leave node's options after them (`tsx watch`)."""


def _s(text: str) -> frozenset[str]:
    return frozenset(text.split())


_TS_NODE = RunnerOptions(
    flags=_s(
        "-i --interactive --esm -T --transpile-only -H --compiler-host --files --pretty "
        "--skip-project --skip-ignore --prefer-ts-exts --log-error --show-config --swc "
        "--scope --cwd-mode --script-mode --emit"
    ),
    valued=_s(
        "-I --ignore -P --project --project-search-dir -D --ignore-diagnostics -O "
        "--compiler-options --cwd --scope-dir"
    ),
    loads=_s("-C --compiler --transpiler"),
)
NODE_RUNNERS: Mapping[str, RunnerOptions] = {
    "tsx": RunnerOptions(
        flags=_s("--no-cache --clear-screen --no-clear-screen"),
        valued=_s("--tsconfig --include --exclude --ignore"),
        commands=_s("watch"),
    ),
    **dict.fromkeys(
        ("ts-node", "ts-node-esm", "ts-node-script", "ts-node-cwd", "ts-node-transpile-only"),
        _TS_NODE,
    ),
}
