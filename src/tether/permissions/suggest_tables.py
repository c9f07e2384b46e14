"""What "always allow" may save for a program, as data (suggest.py): which programs take a
subcommand, which run code or commands their arguments give (and so never get a prefix), and
which launch another program named in their arguments.

The class that must never get a bare prefix: a program whose arguments, anywhere, can be code
or a command it runs (`cmake -E env sh -c ...`, `tmux new 'cmd'`, `emacs --eval`, `psql -c
'\\! cmd'`, `gdb -ex 'shell cmd'`, `./gradlew -I init.gradle`, `nix-shell --run cmd`). A rule
`Bash(cmake *)` saved for `cmake --version` would allow all of that. They get the exact command
the user saw.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from tether.permissions.toolchains import PROGRAM_UNSEEN, is_compiler

SUBCOMMAND_TOOLS = frozenset(
    {"git", "npm", "pnpm", "yarn", "bun", "deno", "cargo", "pip", "pip3", "uv", "poetry"}
    | {"pipenv", "docker", "podman", "kubectl", "helm", "go", "dotnet", "gh", "mvn"}
    | {"gradle", "terraform", "brew", "apt", "apt-get", "conda", "rustup", "systemctl"}
    | {"nerdctl", "oc", "lxc", "incus", "vagrant", "heroku", "flyctl", "fly", "composer"}
    | {"mamba", "micromamba"}
)
"""Programs whose first word selects what they do: a rule keeps that word."""

SCRIPT_SUBCOMMANDS = frozenset(
    {("npm", "run"), ("npm", "run-script"), ("pnpm", "run"), ("yarn", "run"), ("bun", "run")}
    | {("deno", "task"), ("deno", "run"), ("go", "run"), ("cargo", "run"), ("composer", "run")}
)
"""Subcommands whose next word names what runs (a package.json script, a file): a rule keeps
that word too, so `npm run build` does not allow `npm run anything`."""

EXACT_SUBCOMMANDS = frozenset(
    {("docker", "run"), ("docker", "exec"), ("podman", "run"), ("podman", "exec")}
    | {("nerdctl", "run")}
    | {("nerdctl", "exec"), ("kubectl", "exec"), ("kubectl", "run"), ("kubectl", "debug")}
    | {("kubectl", "plugin"), ("oc", "exec"), ("oc", "run"), ("oc", "debug"), ("oc", "rsh")}
    | {("lxc", "exec"), ("incus", "exec"), ("vagrant", "ssh"), ("heroku", "run")}
    | {("fly", "ssh"), ("flyctl", "ssh"), ("conda", "run"), ("mamba", "run")}
    | {("micromamba", "run"), ("rustup", "run"), ("brew", "sh")}
    | {("gh", "extension"), ("gh", "ext"), ("gh", "alias"), ("helm", "plugin")}
    | {("dotnet", "exec"), ("dotnet", "script"), ("deno", "eval"), ("bun", "x")}
    | {("bun", "exec"), ("cargo", "script")}
)
"""Subcommands that run a command or code their arguments give (`docker run IMAGE CMD`,
`kubectl exec POD -- CMD`, `rustup run TOOLCHAIN CMD`, `gh alias set x '!cmd'`): the exact
command only."""

NESTED_SUBCOMMANDS = frozenset(
    {("docker", "compose"), ("docker", "container"), ("podman", "compose")}
    | {("podman", "container"), ("nerdctl", "compose"), ("nerdctl", "container")}
)
"""Subcommands with subcommands of their own: a rule keeps both words (`Bash(docker compose
up *)`); `run` and `exec` there run a command their arguments give, the exact command only."""

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

EXACT_ONLY = frozenset(
    # make and sed/awk: variables, `-f`, `-e` anywhere change what runs; ssh's remote command
    {"make", "gmake", "bmake", "ssh", "sed", "gsed", "awk", "gawk", "mawk", "nawk"}
    # commands run from arguments (`parallel CMD ::: x`, `watchexec -- CMD`, `entr CMD`...)
    | {"parallel", "watchexec", "entr", "nodemon", "xvfb-run", "unbuffer", "rlwrap", "sshpass"}
    | {"chroot", "fakechroot", "proot", "bwrap", "systemd-run", "flatpak", "distrobox"}
    | {"toolbox", "setarch", "linux32", "linux64", "catchsegv", "socat", "nc", "ncat"}
    | {"netcat", "at", "batch", "crontab", "tmux", "screen", "byobu", "dtach", "abduco"}
    | {"daemonize", "start-stop-daemon"}
    # environments that run a command given after them (`direnv exec DIR CMD`, `mise x`)
    | {"direnv", "pixi", "opam", "corepack", "asdf", "mise"}
    | {"rtx", "rbenv", "pyenv", "nodenv", "goenv", "jenv", "nvm", "volta", "fnm", "sdk"}
    | {"nix", "nix-shell", "nix-build", "nix-instantiate", "nix-env", "devbox", "doppler"}
    | {"op", "aws-vault", "dotenv", "dotenvx", "envdir", "chpst", "with-contenv", "infisical"}
    | {"tox", "nox", "invoke", "fab", "just", "task", "earthly", "act"}
    # build tools taking code or scripts in their arguments (`cmake -P`, `-E env`;
    # `gradle -I`, `--init-script`; `mvn exec:exec -Dexec.executable=`; `sbt 'eval ...'`)
    | {"cmake", "ctest", "cpack", "gradle", "gradlew", "mvn", "mvnw", "ant", "sbt", "lein"}
    | {"bazel", "bazelisk", "buck", "buck2", "pants", "scons", "waf", "meson", "xmake", "rake"}
    | {"ghc", "stack", "cabal", "mix", "rebar3", "dune", "mill"}
    # editors, debuggers, database shells and document tools with commands in options
    # (`vim -c '!cmd'`, `emacs --eval`, `gdb -ex 'shell cmd'`, `psql -c '\\! cmd'`,
    # `gs -c`, `pdflatex -shell-escape`, `pandoc --lua-filter`)
    | {"vim", "vi", "nvim", "gvim", "view", "vimdiff", "ex", "kak", "emacs", "emacsclient"}
    | {"ed", "gdb", "lldb", "rr", "psql", "mysql", "mariadb", "sqlite3", "duckdb", "sqlcmd"}
    | {"cqlsh", "mongo", "mongosh", "redis-cli", "gs", "ghostscript", "tex", "latex"}
    | {"pdflatex", "xelatex", "lualatex", "latexmk", "pandoc", "gnuplot", "maxima", "gp"}
    | {"dc", "m4", "mutt", "neomutt", "lynx", "w3m"}
    # commands run from arguments (moreutils, benchmarks), packages' scripts, playbooks
    | {"hyperfine", "pee", "ifne", "chronic", "lckdo", "mispipe", "dpkg", "rpm", "ansible"}
    | {"ansible-playbook", "ansible-pull", "ansible-console", "salt", "salt-call"}
)
"""Programs whose arguments, wherever they stand, can be code or a command they run: only
the exact command is offered."""

MODULE_CODE_RUNNERS = frozenset({"pdb", "cProfile", "profile", "trace", "timeit", "runpy"})
"""`python -m` modules that run other code they are given: the exact command only."""


def exact_only(name: str) -> bool:
    """Whether program `name` (a path's last component) gets only its exact command, under a
    versioned name too (`emacs-29`, `psql15`): one in `EXACT_ONLY`, and any the engine knows
    options of that run programs or load code (toolchains.py: compilers under any cross or
    versioned name, `openssl`, `ssh-keygen`, `ninja`, `run-parts`), since a prefix would
    allow what the next option runs."""
    return (
        name in EXACT_ONLY
        or without_version(name) in EXACT_ONLY
        or is_compiler(name)
        or name in PROGRAM_UNSEEN
    )


def without_version(name: str) -> str:
    """`name` without a version at its end (`-29`, `15`, `3.11`): from its first digit in the
    trailing run of digits and dots, and a `-` just before. One pass from the end (a pattern
    searched from every position read a long run of digits once per digit)."""
    trailing = len(name) - len(name.rstrip("0123456789."))
    start = len(name) - trailing
    while start < len(name) and name[start] == ".":
        start += 1
    if start == len(name):
        return name
    if start == len(name) - trailing and name[start - 1 : start] == "-":
        start -= 1
    return name[:start]
