"""Variables that change what programs run or load (`PATH`, `LD_PRELOAD`, `GIT_*`...), and
those the Bash tool sets for safety: a command that sets or removes one is asked, not looked
through (`PATH=/tmp/evil:$PATH git status`, `env -u GIT_CONFIG_COUNT git status`)."""

from __future__ import annotations

import fnmatch
import re

from tether.permissions.command_spec import words as _names
from tether.permissions.node_variables import DANGEROUS_NODE_VARIABLES
from tether.permissions.shell_words import HERE, is_literal

DANGEROUS_VARIABLES = _names(
    # Shells and the dynamic loader: which program runs, what each shell sources first.
    "PATH LD_* DYLD_* BASH_ENV ENV SHELLOPTS BASHOPTS PS4 PROMPT_COMMAND IFS CDPATH BASH_CMDS "
    "BASH_ALIASES GLOBIGNORE EXECIGNORE BASH_FUNC_* BASH_LOADABLES_PATH ZDOTDIR INPUTRC FCEDIT "
    # Home and configuration directories every program reads its start-up files from.
    "HOME XDG_CONFIG_HOME XDG_CONFIG_DIRS XDG_DATA_HOME XDG_DATA_DIRS "
    # $SHELL: the shell vim's `:!`, gdb's `run`, less's `!`, man, script and many more start.
    "SHELL "
    # Pagers, editors and browsers other programs start (git, man, psql, systemctl, gh...).
    "PAGER *_PAGER MANPAGER EDITOR *_EDITOR VISUAL BROWSER "
    # Programs' own option variables (`TAR_OPTIONS`, `NODE_OPTIONS`, `XZ_OPT`, `JAVA_OPTS`).
    "*_OPTIONS *_OPTS *_OPT GZIP BZIP BZIP2 UNZIP ZIPOPT "
    # git (GIT_CONFIG_*, GIT_SSH, GIT_EXEC_PATH...), ssh's helpers, rsync's and cvs's remote
    # shell, svn's ssh tunnel program.
    "GIT_* SSH_ASKPASS SUDO_ASKPASS SSH_AUTH_SOCK *_RSH RSYNC_CONNECT_PROG SVN_SSH "
    # hg's, cvs's and svn's editors and merge tools, the program cvs starts as its server
    # (`:fork:`), hg's configuration files (hooks, extensions: vcs_programs.py).
    "HGEDITOR HGMERGE HGRCPATH HGRCSKIPREPO CVSEDITOR CVS_SERVER SVN_MERGE "
    # rclone's ssh program, password command and metadata mapper (`--sftp-ssh`,
    # `--password-command`, `--metadata-mapper`, a remote's `RCLONE_CONFIG_NAME_SSH`):
    # programs it starts.
    "RCLONE_*SSH RCLONE_*COMMAND RCLONE_*MAPPER "
    # conda's, mamba's and micromamba's configuration: the files read (`CONDARC`, `MAMBARC`)
    # and any setting by its own variable (`CONDA_CHANNELS`, `MAMBA_ROOT_PREFIX`): channels
    # whose packages' scripts run, environments and package caches written.
    "CONDARC MAMBARC CONDA_* MAMBA_* "
    # vim/ex (man vim, :help startup): Ex commands or runtime files run at start.
    "VIM* EXINIT GVIMINIT MYVIMRC MYGVIMRC NVIM_* "
    # less (man less): input preprocessors, key bindings with commands, history file, its
    # secure mode, the editor `v` starts.
    "LESS LESSOPEN LESSCLOSE LESSKEY LESSKEYIN LESSKEY_SYSTEM LESSKEYIN_SYSTEM LESSEDIT "
    "LESSHISTFILE LESSSECURE LESS_IS_MORE "
    # man (man man): its options, page path, groff options and preprocessors, its sandbox.
    "MANOPT MANPATH MANROFFOPT MANROFFSEQ MAN_DISABLE_SECCOMP "
    # gdb: its history file is written on exit; make (man make): options read like MAKEFLAGS.
    "GDBHISTFILE MAKEFLAGS GNUMAKEFLAGS MAKEFILES MFLAGS "
    # Language runtimes: module paths, start-up code, plugins, option variables.
    "PYTHON* PYTEST_* COVERAGE_* IPYTHONDIR JUPYTER_* NODE_PATH NODE_REPL_EXTERNAL_MODULE "
    "PERL5* PERLLIB RUBYOPT RUBYLIB GEM_* BUNDLE_* LUA_* TCLLIBPATH R_* PHPRC PHP_INI_SCAN_DIR "
    "AWKPATH AWKLIBPATH NPM_CONFIG_* npm_config_* YARN_* CARGO_* RUSTC* RUSTDOC* RUSTFLAGS "
    "GOFLAGS GOPROXY GOPATH JAVA_HOME CLASSPATH PIP_* UV_* "
    # deno (deno_settings): the cache it runs compiled code from and writes (`DENO_DIR`),
    # the certificates it trusts for downloads, its V8 options, where it installs programs.
    "DENO_DIR DENO_CERT DENO_TLS_CA_STORE DENO_V8_FLAGS DENO_INSTALL_ROOT "
    # corepack's and pnpm's own settings: the registry or mirror corepack fetches npm, pnpm
    # and yarn from and runs (`COREPACK_NPM_REGISTRY`), where it keeps them (`COREPACK_HOME`);
    # pnpm's global directory (`PNPM_HOME`); npm_config_* and YARN_* are above. Those of
    # corepack's shown harmless or judged as what they change: corepack_variables.
    "COREPACK_* PNPM_HOME "
    # Python tools' configuration, which names code (pylint's init-hook, tox's commands,
    # invoke's runtime config, pre-commit's cached hook repositories).
    "PYLINTRC TOX_* NOX_* PRE_COMMIT_* INVOKE_* "
    # App servers' options from the environment (a configuration file, a logging
    # configuration, an env file, an app directory: server_options.py).
    "GUNICORN_CMD_ARGS UVICORN_* GRANIAN_* "
    # go: its toolchain and tool directories, the settings file it reads, where it installs
    # and caches, which modules it trusts; cgo's compiler and linker flags, pkg-config's.
    "GOROOT GOENV GOTOOLCHAIN GOBIN GOCACHE GOMODCACHE GOTMPDIR GOWORK GOSUMDB GONOSUMDB "
    "GONOSUMCHECK GOINSECURE GOVCS GOPRIVATE GONOPROXY GOAUTH GOCOVERDIR CGO_*FLAGS* GCCGO "
    "PKG_CONFIG PKG_CONFIG_* "
    # Toolchains: the compiler, linker and their search paths.
    "CC CXX CPP LD AR COMPILER_PATH GCC_EXEC_PREFIX DEPENDENCIES_OUTPUT SUNPRO_DEPENDENCIES "
    # C library, terminal and TLS loaders; temporary files; other clients' configuration.
    "TERMINFO* GCONV_PATH LOCPATH MALLOC_* TMPDIR GNUPGHOME DOCKER_* KUBECONFIG "
    "RIPGREP_CONFIG_PATH OPENSSL_CONF OPENSSL_ENGINES OPENSSL_MODULES"
)
"""Variables whose value changes which program runs or what it loads: a command that sets one
is asked, not looked through (`PATH=/tmp/evil:$PATH git status`)."""
RUNTIME_VARIABLES = [
    # pnpm reads its settings from pnpm_config_* as npm from npm_config_* (`script_shell`,
    # `node_options`, `pnpmfile`), in any letter case (is_dangerous_variable).
    "pnpm_config_*",
    "PNPM_CONFIG_*",
    # node's variables naming code or files (node_variables: `NODE_REDIRECT_WARNINGS`).
    *DANGEROUS_NODE_VARIABLES,
]
"""Package managers' and node's variables, dangerous for the same reason."""


PAGER_VARIABLES = _names("PAGER *_PAGER MANPAGER")
"""Variables naming the pager a program gives its output to (git, man, psql, systemctl...):
dangerous, but a literal value is a command that can be judged (bash_policy)."""
_PAGERS = re.compile("|".join(fnmatch.translate(p) for p in sorted(PAGER_VARIABLES)))


def is_pager_variable(name: str) -> bool:
    return _PAGERS.match(name) is not None


SAFETY_VARIABLES = frozenset({"GIT_CONFIG_COUNT", "CDPATH"})
"""Variables the Bash tool sets for safety (`tools/builtin/bash.py`): git's
`safe.bareRepository=explicit` through `GIT_CONFIG_COUNT`, an empty `CDPATH` that the engine's
judgement of `cd` relies on. Dangerous to set, and to remove (`unset`, `env -u`, `env -i`,
`exec -c`); both are among `DANGEROUS_VARIABLES` (`GIT_*`, `CDPATH`), a test keeps it so."""


_ALL_DANGEROUS = sorted({*DANGEROUS_VARIABLES, *RUNTIME_VARIABLES})
_DANGEROUS = re.compile("|".join(fnmatch.translate(p) for p in _ALL_DANGEROUS))
"""The patterns as one expression: one match per name, not one per pattern (a command's
arithmetic may hold tens of thousands of names)."""


_ANY_CASE_PREFIXES = ("npm_config_", "pnpm_config_")
"""Prefixes npm and pnpm match in any letter case (`Npm_Config_Script_Shell`)."""


def is_dangerous_variable(name: str) -> bool:
    base = name.split("[", 1)[0]
    return _DANGEROUS.match(base) is not None or base.lower().startswith(_ANY_CASE_PREFIXES)


_MODULE_PATHS = frozenset({"PYTHONPATH"})


def is_module_path(name: str) -> bool:
    """Whether `name` is a module path (`PYTHONPATH`), whose entries are directories."""
    return name in _MODULE_PATHS


def module_path_entries(
    name: str, value: str, *, steady_pwd: bool = False
) -> tuple[str, ...] | None:
    """`PYTHONPATH=src:. python3 src/app.py`: the directories a module path names, in the
    order Python searches them (an empty entry is the working directory, as Python reads
    it), or None for another variable, an empty value or one with unknown parts. An entry
    starting with `$PWD` or `$(pwd)` (shell_words.HERE) is the directory the command runs
    in, as a relative one is, when `steady_pwd` (shell_steady: nothing in the command may
    change what they say). Where each leads, through symlinks, and which modules Python
    finds there, are the caller's to judge."""
    if name not in _MODULE_PATHS or not value:
        return None
    parts = value.split(":")
    if steady_pwd:
        parts = ["." + part[1:] if part.startswith(HERE) else part for part in parts]
    if not all(is_literal(part) for part in parts):
        return None
    return tuple(part or "." for part in parts)
