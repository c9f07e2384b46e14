"""What "always allow" may save for a program, as data (suggest.py): the few programs that get
a prefix, the interpreters that get their script, and the launchers whose launched program is
judged instead.

A prefix is offered only from an explicit table of programs that only read: a rule
`Bash(npm test *)` saved for `npm test` allows `npm test --script-shell=PROG`, `Bash(aws *)`
for `aws s3 ls` allows `aws s3 rm --recursive`, `Bash(rm *)` for `rm -f x.txt` every `rm`.
Whether a program's extensions are harmless is knowledge the table holds; not being in it
means the exact command, as Claude Code suggests.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

PREFIX_PROGRAMS = frozenset(
    {"cat", "head", "tail", "wc", "ls", "grep", "egrep", "fgrep", "stat", "du", "df", "diff"}
    | {"cmp", "comm", "cut", "nl", "od", "strings", "md5sum", "sha1sum", "sha256sum", "b2sum"}
    | {"sha512sum", "cksum", "readlink", "realpath", "basename", "dirname", "which", "pwd"}
    | {"echo", "tac", "tr", "seq"}
)
"""The programs "always allow" may save as a prefix (`Bash(cat *)`): each only reads, whatever
options follow (none writes, deletes or runs a program; each is in the engine's read-only
allowlist, a test keeps it so), and the files it reads are judged apart (deny rules hold).
Every other program gets the exact command the user saw (a script for an interpreter): what
`npm test`, `ld`, `aws s3 ls`, `git push` or `rm` do depends on their next words."""

CODE_RUNNERS = frozenset(
    {"python", "python2", "python3", "pypy", "pypy3", "node", "nodejs", "tsx", "ts-node"}
    | {"ruby", "irb", "perl", "php", "lua", "luajit", "Rscript", "R", "julia", "tclsh", "wish"}
    | {"groovy", "scala", "kotlin", "java", "jshell", "ghci", "runghc", "elixir", "erl"}
    | {"escript", "guile", "racket", "sbcl", "swift", "osascript", "pwsh", "expect"}
    | {"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "fish", "csh", "tcsh", "nu"}
    | {"xonsh", "elvish", "busybox", "bb", "clojure", "clj", "iex", "octave", "sage"}
    | {"clisp", "ecl", "gst", "gforth", "pike", "qjs", "d8", "jjs", "rhino"}
)
"""Programs that run code given in an option, a file or stdin: a rule names the script (they
stop reading their own options there, so later words only reach the script), or is the exact
command (`python3 -c ...`); never the bare program."""
VERSIONED_RUNNER = re.compile(r"(python|pypy|ruby|php|perl|lua|node)[0-9][0-9.]*")
"""`python3.12`, `ruby3.2`, `lua5.4`: the same programs."""

LAUNCHERS: Mapping[str, tuple[tuple[str, ...], ...]] = {
    **dict.fromkeys(("npx", "uvx", "bunx", "pnpx", "strace", "ltrace", "valgrind", "flock"), ((),)),
    **dict.fromkeys(("unshare", "nsenter", "ionice", "taskset", "firejail"), ((),)),
    **dict.fromkeys(("proxychains", "torsocks", "dbus-run-session"), ((),)),
    **dict.fromkeys(("pipx", "poetry", "pipenv", "hatch", "pdm", "rye"), (("run",),)),
    "uv": (("run",), ("tool", "run")),
    "pnpm": (("dlx",), ("exec",)),
    "yarn": (("dlx",), ("exec",)),
    "npm": (("exec",), ("x",)),
    "bundle": (("exec",),),
}
"""Programs that start another program named in their arguments (after the subcommand
words listed; `()`: right after the launcher), and read no option of their own after it: the
rule names the launched program, judged as if it ran alone (`Bash(npx prettier *)`, `Bash(uv
run python tools/x.py)`)."""
