"""Variables that change what programs run or load (`PATH`, `LD_PRELOAD`, `GIT_*`...), and
those the Bash tool sets for safety: a command that sets or removes one is asked, not looked
through (`PATH=/tmp/evil:$PATH git status`, `env -u GIT_CONFIG_COUNT git status`)."""

from __future__ import annotations

import fnmatch
import re

from tether.permissions.command_spec import words as _names

DANGEROUS_VARIABLES = _names(
    "PATH LD_* DYLD_* BASH_ENV ENV SHELLOPTS BASHOPTS PS4 PROMPT_COMMAND IFS CDPATH BASH_CMDS "
    "BASH_ALIASES "
    "GLOBIGNORE BASH_FUNC_* BASH_LOADABLES_PATH HOME XDG_CONFIG_HOME GIT_* PYTHON* "
    "*_OPTIONS *_OPTS NODE_PATH PERL5* PERLLIB RUBYOPT RUBYLIB GEM_* BUNDLE_* NPM_CONFIG_* "
    "npm_config_* YARN_* CARGO_* RUSTC* RUSTDOC* RUSTFLAGS CC CXX CPP LD AR MAKEFLAGS "
    "MAKEFILES MFLAGS GOFLAGS "
    "GOPROXY GOPATH PAGER MANPAGER GIT_PAGER EDITOR VISUAL LESSOPEN LESSCLOSE SSH_ASKPASS "
    "SUDO_ASKPASS BROWSER PIP_* UV_* TERMINFO* GCONV_PATH LOCPATH MALLOC_* TMPDIR "
    "SSH_AUTH_SOCK GNUPGHOME DOCKER_* KUBECONFIG JAVA_HOME CLASSPATH RIPGREP_CONFIG_PATH "
    "COMPILER_PATH GCC_EXEC_PREFIX DEPENDENCIES_OUTPUT SUNPRO_DEPENDENCIES OPENSSL_CONF "
    "OPENSSL_ENGINES OPENSSL_MODULES"
)
"""Variables whose value changes which program runs or what it loads: a command that sets one
is asked, not looked through (`PATH=/tmp/evil:$PATH git status`)."""


SAFETY_VARIABLES = frozenset({"GIT_CONFIG_COUNT", "CDPATH"})
"""Variables the Bash tool sets for safety (`tools/builtin/bash.py`): git's
`safe.bareRepository=explicit` through `GIT_CONFIG_COUNT`, an empty `CDPATH` that the engine's
judgement of `cd` relies on. Dangerous to set, and to remove (`unset`, `env -u`, `env -i`,
`exec -c`); both are among `DANGEROUS_VARIABLES` (`GIT_*`, `CDPATH`), a test keeps it so."""


_DANGEROUS = re.compile("|".join(fnmatch.translate(p) for p in sorted(DANGEROUS_VARIABLES)))
"""The patterns as one expression: one match per name, not one per pattern (a command's
arithmetic may hold tens of thousands of names)."""


def is_dangerous_variable(name: str) -> bool:
    base = name.split("[", 1)[0]
    return _DANGEROUS.match(base) is not None


_MODULE_PATHS = frozenset({"PYTHONPATH"})
_SEGMENT = r"[A-Za-z0-9_][A-Za-z0-9_.-]*"
_RELATIVE_DIRECTORY = re.compile(rf"{_SEGMENT}(?:/{_SEGMENT})*/?")
_TEST_RUNNERS = frozenset({"pytest", "py.test"})
_PYTHON = re.compile(r"python[0-9.]*")


def workspace_module_path(name: str, value: str, argv: tuple[str, ...]) -> bool:
    """`PYTHONPATH=src pytest`: module directories named below where the command runs (none
    climbing out, absolute or hidden, not `.`) given to a test runner, which imports the
    workspace's code anyway. For another program they would put code it does not run into
    it."""
    if name not in _MODULE_PATHS or not value or not argv:
        return False
    program = argv[0].rpartition("/")[2]
    runner = program in _TEST_RUNNERS or (
        _PYTHON.fullmatch(program) is not None
        and argv[1:3] in (("-m", "pytest"), ("-m", "unittest"))
    )
    return runner and all(
        _RELATIVE_DIRECTORY.fullmatch(part) is not None and ".." not in part.split("/")
        for part in value.split(":")
    )
