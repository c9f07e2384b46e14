"""deno's options that change, for any subcommand, where the code it runs comes from or how
it runs, beside its grants (deno_permissions) and its outputs (deno_outputs): one table.
`--cert FILE` makes deno trust a certificate authority for every download (remote imports,
`npm:` and `jsr:` packages), so whoever holds its key may answer for any host, and
`--unsafely-ignore-certificate-errors` trusts any answer: asked, as pip's `--trusted-host`
is. `--v8-flags` hands V8 options (`--allow-natives-syntax` gives the script V8's internals)
beyond the memory and stack sizes: asked. `--inspect`/`--inspect-brk`/`--inspect-wait` on a
host not loopback let anyone who reaches it run code: asked. The configuration and import
map (`-c`/`--config`, `--import-map`) choose what each import names: reads of their files
(their text is outside_code's when outside the workspace). The same settings by the
environment (`DENO_DIR`: the cache deno runs compiled code from, `DENO_CERT`,
`DENO_V8_FLAGS`...) are dangerous variables."""

from __future__ import annotations

import re

from tether.permissions.deno_options import deno_line
from tether.permissions.program_use import ProgramUse
from tether.permissions.shell_words import is_literal, program_name, readable

_TRUST = {
    "--cert": "deno trusts the certificate authority in {value} for every download: whoever"
    " holds its key may answer for any host it fetches code from",
    "--unsafely-ignore-certificate-errors": "deno takes code from {value} without checking"
    " certificates: any host on the way may answer for it",
}
_CODE_FILES = frozenset({"-c", "--config", "--import-map"})
"""Files whose text chooses what each import names."""
_INSPECTORS = frozenset({"--inspect", "--inspect-brk", "--inspect-wait"})
_LOOPBACK = re.compile(r"(localhost|127(\.[0-9]+){0,3}|\[::1\])(:[0-9]+)?|[0-9]+")
_INERT_V8 = re.compile(
    r"--(max-old-space-size|max-semi-space-size|max-heap-size|stack-size|stack-trace-limit)"
    r"=[0-9]+|--expose-gc|--expose_gc"
)
"""V8 flags that only size its memory and stack, or expose the collector."""


def deno_settings(argv: tuple[str, ...]) -> ProgramUse | None:
    """What deno's settings options read and why they ask (the module's table); None for
    another program or when none is given."""
    if not argv or not is_literal(argv[0]) or program_name(argv[0]) != "deno":
        return None
    reads: list[str] = []
    asks: list[str] = []
    for option, value in deno_line(argv[1:]).options:
        if value is not None and not is_literal(value):
            asks.append(f"deno {option} is given a value known only as it runs")
        elif option in _TRUST:
            asks.append(_TRUST[option].format(value=readable(value or "every host")))
        elif option == "--v8-flags" and value:
            flags = [flag for flag in value.split(",") if not _INERT_V8.fullmatch(flag)]
            if flags:
                asks.append(f"deno hands V8 the options {readable(','.join(flags))}")
        elif option in _INSPECTORS and value and not _LOOPBACK.fullmatch(value):
            asks.append(f"deno {option} lets whoever reaches {readable(value)} run code")
        elif option in _CODE_FILES and value:
            reads.append(value)
        if option == "--cert" and value:
            reads.append(value)
    if not reads and not asks:
        return None
    return ProgramUse(reads=tuple(reads), asks=tuple(asks), changes=bool(asks))
