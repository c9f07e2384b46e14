"""Writes src/tether/permissions/deno_option_table.py from a deno program's own help
(`deno --help`, `deno SUBCOMMAND --help`): python3 scripts/gen_deno_options.py DENO OUT.py,
then `ruff format OUT.py`."""

import os
import re
import subprocess
import sys
import tempfile

D = sys.argv[1]
env = dict(os.environ, NO_COLOR="1", DENO_DIR=tempfile.mkdtemp())
def helptext(*args):
    return subprocess.run([D, *args, "--help"], capture_output=True, text=True, env=env).stdout
top = helptext()
subs = re.findall(r"^  ([a-z][a-z-]*)\s{2,}", top.split("Commands:")[1].split("Options:")[0], re.M)
OPT = re.compile(r"^\s+(?:-(?P<short>[A-Za-z0-9]), )?(?P<long>--[a-z0-9-]+)(?P<rest>(?:\[=[^\]]*\]| \[?<[^>]*>\]?(?:\.\.\.)?|(?:\[=VALUE\.\.\.\])| <[A-Z_]+>\.\.\.)?)")
def table(text):
    valued, flags, shorts = set(), set(), {}
    for line in text.splitlines():
        m = OPT.match(line)
        if not m:
            continue
        long, rest = m["long"], m["rest"] or ""
        if m["short"]:
            shorts[m["short"]] = long
        (valued if rest.startswith(" ") else flags).add(long)
    return valued, flags, shorts
out = {"": table(top)}
for s in subs:
    if s == "help":
        continue
    out[s] = table(helptext(s))
version = subprocess.run([D, "--version"], capture_output=True, text=True, env=env).stdout.split()[1]

def words(items):
    return " ".join(sorted(items))
lines = [
    f'"""deno {version}\'s options, generated from its help (`deno --help`, `deno SUBCOMMAND --help`,',
    "clap's): for each subcommand (\"\" for those before any), the long options taking the next word as",
    "their value (`--ext ts`; `--lock [FILE]` takes it too, when it is no option), the options taking",
    "one only after `=` or none (`--allow-read[=PATHS]`, `-q`), and the short letters' long names.",
    "Regenerate from a newer deno rather than editing by hand; an option missing here is one the",
    'engine cannot read, and asks (deno_options.py)."""',
    "",
    "from __future__ import annotations",
    "",
    "from collections.abc import Mapping",
    "from dataclasses import dataclass",
    "",
    f"DENO_VERSION = {version!r}",
    "",
    "",
    "@dataclass(frozen=True)",
    "class DenoOptions:",
    "    valued: frozenset[str]",
    '    """Long options whose value may be the next word."""',
    "    flags: frozenset[str]",
    '    """Long options with no value, or one only after `=`."""',
    "    short: Mapping[str, str]",
    '    """Short letters and the long option each is."""',
    "",
    "",
    "def _options(valued: str, flags: str, short: str) -> DenoOptions:",
    "    letters = dict(pair.split(\"=\") for pair in short.split())",
    "    return DenoOptions(frozenset(valued.split()), frozenset(flags.split()), letters)",
    "",
    "",
    "DENO_OPTIONS: Mapping[str, DenoOptions] = {",
]
for s, (v, f, sh) in out.items():
    shs = " ".join(f"{k}={x}" for k, x in sorted(sh.items()))
    lines.append(f"    {s!r}: _options(")
    for group in (words(v), words(f), shs):
        chunks, line = [], ""
        for w in group.split():
            if len(line) + len(w) > 80:
                chunks.append(line)
                line = ""
            line += w + " "
        chunks.append(line)
        chunks[-1] = chunks[-1].rstrip()
        if chunks == [""]:
            lines.append('        "",')
            continue
        lines.append("        (" + "\n         ".join(repr(c) for c in chunks) + "),")
    lines.append("    ),")
lines.append("}")
open(sys.argv[2], "w").write("\n".join(lines) + "\n")
