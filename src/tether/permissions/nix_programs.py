"""The programs a nix package runs, where they are known: a package's name says nothing certain
of what it runs (`netcat` runs `nc`, `findutils` runs `find` and `xargs`, `inetutils` a dozen
programs, `busybox` and `coreutils` any of a hundred), so `nix run` of a package is judged as
the programs this table lists for it, and a package it does not list runs a program tether
cannot name (nix_launch.unnamed_program: asked where a Bash deny or ask rule exists).

The table holds well-known packages, those whose programs differ from their name or are many,
and common ones whose program is their name. A variant or version of a listed package
(`netcat_1`, `curlFull`, `gnugrep-static`) runs what the package runs."""

from __future__ import annotations

import re
from collections.abc import Mapping


def _words(text: str) -> list[str]:
    return text.split()


_SAME = _words(
    "curl wget git gitui jq yq hello cowsay rsync socat sudo tmux screen htop tree file gh "
    "ruby perl php lua deno bun go rustc cargo cmake ninja meson make just gdb strace "
    "ffmpeg pandoc sqlite3 shellcheck shfmt black ruff mypy pyright hyperfine tokei "
    "kubectl helm terraform docker podman direnv starship zoxide fzf bat eza lsd "
    "openssl gnupg2 age sops unzip zip p7zip xz zstd lz4 gzip bzip2 aria2 xh curlie"
)
_PROGRAMS: Mapping[str, tuple[str, ...]] = {
    **{name: (name,) for name in _SAME},
    "netcat": ("nc",),
    "netcat-openbsd": ("nc",),
    "netcat-gnu": ("nc", "netcat"),
    "libressl": ("openssl", "nc", "ocspcheck"),
    "nmap": ("nmap", "ncat", "nping"),
    "findutils": ("find", "xargs", "locate", "updatedb"),
    "fd": ("fd",),
    "ripgrep": ("rg",),
    "gnugrep": ("grep", "egrep", "fgrep"),
    "gnused": ("sed",),
    "gnutar": ("tar",),
    "gawk": ("awk", "gawk"),
    "gnumake": ("make",),
    "diffutils": ("diff", "cmp", "diff3", "sdiff"),
    "openssh": ("ssh", "scp", "sftp", "ssh-keygen", "ssh-keyscan", "ssh-add", "ssh-agent"),
    "inetutils": tuple(
        _words(
            "telnet ftp ping ping6 hostname ifconfig logger rcp rexec rlogin rsh talk tftp "
            "traceroute whois dnsdomainname"
        )
    ),
    "iproute2": ("ip", "ss", "bridge", "tc"),
    "dnsutils": ("dig", "nslookup", "host", "nsupdate", "delv"),
    "bind": ("dig", "nslookup", "host", "nsupdate", "delv", "named"),
    "procps": ("ps", "kill", "top", "pkill", "pgrep", "free", "watch", "uptime", "pmap"),
    "psmisc": ("killall", "fuser", "pstree", "peekfd", "prtstat"),
    "httpie": ("http", "https", "httpie"),
    "gnupg": ("gpg", "gpg-agent", "gpgconf"),
    "python3": ("python3", "python"),
    "python": ("python", "python3"),
    "nodejs": ("node", "npm", "npx", "corepack"),
    "neovim": ("nvim",),
    "vim": ("vim", "vi", "ex", "view", "vimdiff"),
    "emacs": ("emacs", "emacsclient"),
    "awscli2": ("aws",),
    "awscli": ("aws",),
    "google-cloud-sdk": ("gcloud", "gsutil", "bq"),
    "postgresql": ("psql", "postgres", "pg_dump", "pg_restore", "createdb", "dropdb"),
    "mariadb": ("mariadb", "mysql", "mysqld", "mysqldump"),
    "redis": ("redis-server", "redis-cli"),
    "sqlite": ("sqlite3",),
    "imagemagick": ("magick", "convert", "identify", "mogrify", "composite"),
    "moreutils": ("sponge", "vidir", "vipe", "parallel", "chronic", "ts", "pee", "ifne"),
    "parallel": ("parallel",),
}
"""Each package's programs; a package of many programs whose first argument may name any
of them (`busybox`, `toybox`, `coreutils`, `util-linux`) is left out: unknown."""
_VERSION = re.compile(r"[-_]?[0-9][0-9_.]*(_x)?$")
_VARIANT = re.compile(r"[-_](wrapped|unwrapped|full|minimal|bin|static|nox|headless)$")
_CASE = re.compile(r"(?<=[a-z0-9])(Full|Minimal|Wrapped|Unwrapped|Static|HTTP3|With[A-Z].*)$")


def package_programs(name: str) -> tuple[str, ...] | None:
    """The programs package `name` (or a variant or version of it) runs; None when unknown."""
    seen = name
    while True:
        found = _PROGRAMS.get(seen)
        if found is not None:
            return found
        shorter = _CASE.sub("", _VARIANT.sub("", _VERSION.sub("", seen)))
        if shorter in ("", seen):
            return None
        seen = shorter
