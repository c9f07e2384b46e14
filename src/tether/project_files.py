"""The files inside a project that change what runs, or what is allowed, later: one table
the permission engine and the sandbox share.

A write to one of them makes a later command run other code than the one it names: the next
session's settings, hooks and MCP servers; git's hooks; a hook manager's commands at the next
commit; `npm test` run through another shell (`.npmrc` `script-shell`); every `yarn` command
run by the file `yarnPath` names; every `cargo` through a rustc wrapper; every `python` of a
virtualenv through a `.pth` line. The permission engine asks before such a write, whatever
allow rules or acceptEdits say (`permissions/defaults.py`); the sandbox keeps them read-only
(`sandbox/protected.py`), each as its entry's `sandbox` says.

Kept to files that make an ordinary command run other code. Not listed, by choice: the
project's own code and build files (`Makefile`, `package.json`, `pyproject.toml`,
`setup.cfg`, `tox.ini`), which run only what the project says and are read in its diff (a
tool's configuration module, `conftest.py` and a tool's rc file are start files: they run at
a tool's start with no command naming them, `tether.tool_start_files`); `.gitattributes`
(its filters run only when git's config defines them).
`.gitmodules` is the sandbox's only: git ignores the commands in it. Files that start programs
without a command naming them (editor tasks, package manager hooks, interpreter start-up
files, build tools' rc files, CI definitions) are `project_start_files`', by class.

It sits at the bottom layer beside `home_files`, so that every layer can use it.
"""

from __future__ import annotations

from typing import Final, Literal

from tether.project_start_files import NAMED_ONLY, START_FILES
from tether.slotted import Slotted

SandboxGuard = Literal["guard", "apart", "none"]
"""How the sandbox keeps an entry: `guard`, read-only and, when missing, a placeholder so it
cannot be made (a missing `.envrc` or `.npmrc` written inside takes effect later, as an
existing one would); `apart`, by rules of its own (`.git`, `.hg`); `none`, not at all (a
pattern, or a place ordinary commands write: see the entry)."""


class ProjectFile(Slotted):
    """One path below a project root, found at any depth (a nested project's `.claude`)."""

    __slots__ = ("engine", "globbed", "path", "sandbox", "why")
    path: Final[str]
    """`/`-separated; a segment may hold `*` and `?` (`site-packages/*.pth`)."""
    why: Final[str]
    sandbox: Final[SandboxGuard]
    engine: Final[bool]
    """Whether the permission engine asks before a write (`.gitmodules`: the sandbox's only)."""
    globbed: Final[bool]
    """Whether a write known only as a pattern that may reach it is asked too; False for names
    an ordinary glob reaches in every project (`src/*.py` and `sitecustomize.py`), where a glob
    reaches only files already there and the write that named the file was asked."""

    def __init__(
        self, path: str, why: str, sandbox: SandboxGuard, engine: bool = True, globbed: bool = True
    ) -> None:
        self.path = path
        self.why = why
        self.sandbox = sandbox
        self.engine = engine
        self.globbed = globbed


def _guarded(why: str, *paths: str) -> tuple[ProjectFile, ...]:
    return tuple(ProjectFile(path, why, "guard") for path in paths)


def _engine_only(why: str, *paths: str) -> tuple[ProjectFile, ...]:
    return tuple(ProjectFile(path, why, "none") for path in paths)


def _pattern_or(path: str) -> SandboxGuard:
    """A pattern is not a path the sandbox can bind: the engine's only."""
    return "none" if "*" in path else "guard"


_LEFTHOOK = tuple(
    f"{place}lefthook{local}.{ext}"
    for place in ("", ".", ".config/")
    for local in ("", "-local")
    for ext in ("yml", "yaml", "toml", "json", "jsonc")
)
_HUSKY_V4 = (
    *(f".huskyrc{ext}" for ext in ("", ".json", ".yaml", ".yml", ".js", ".cjs")),
    "husky.config.js",
    "husky.config.cjs",
)
HOOK_MANAGERS: dict[str, tuple[str, ...]] = {
    "lefthook": (*_LEFTHOOK, ".lefthook", ".lefthook-local"),
    "husky v4": _HUSKY_V4,
    "CaptainHook": ("captainhook.json",),
    "rusty-hook": (".rusty-hook.toml", "rusty-hook.toml"),
    "GrumPHP": ("grumphp.yml", "grumphp.yaml", "grumphp.yml.dist", "grumphp.yaml.dist"),
    "hk": ("hk.pkl", ".hk.pkl", "hk.local.pkl", ".config/hk.pkl"),
    "lint-staged": (
        *(f".lintstagedrc{ext}" for ext in ("", ".json", ".yaml", ".yml", ".mjs", ".cjs", ".js")),
        *(f"lint-staged.config.{ext}" for ext in ("js", "mjs", "cjs", "ts", "mts", "cts")),
    ),
    "simple-git-hooks": tuple(
        f"{dot}simple-git-hooks.{ext}" for dot in ("", ".") for ext in ("json", "js", "cjs", "mjs")
    ),
    "overcommit": (".overcommit.yml",),
}
"""Git hook managers' configuration: the hook they install in `.git/hooks` reads it at each
commit (or push, checkout...) and runs the commands it names; `-local` variants are usually
gitignored, so a change does not even show in `git status`. In the sandbox, read-only, and
guarded while missing where the manager is in play (`sandbox/hook_managers.py`): a
`lefthook-local.yml` made inside would run at the user's next commit. (A manager that
reads a name it finds as the empty placeholder directory may fail on it while commands run:
a loud failure, not a hook run.) Configuration kept inside `package.json` (lint-staged's,
simple-git-hooks') is not guarded: that file is the project's own, reviewed in its diff."""

_MISE = (
    *(f"{dot}mise{env}.toml" for dot in ("", ".") for env in ("", ".local", ".*")),
    *(f".config/mise{env}.toml" for env in ("", ".*")),
    ".config/mise",
    ".mise",
    "mise/config.toml",
    "mise/config.*.toml",
)
"""mise's project configuration (`mise.toml`, `mise.local.toml`, `mise.ENV.toml`...): its
hooks, `[env]` `_.source` scripts and tool paths run at `cd` and at every shimmed command. A
config trusted once (`mise trust`) is trusted by its path, not its content."""

_SITE_DIRS = ("site-packages", "dist-packages")
_PYTHON_START = tuple(
    f"{site}/{name}"
    for site in _SITE_DIRS
    for name in ("*.pth", "sitecustomize*", "usercustomize*", "__pycache__/sitecustomize*")
)
"""What every start of a Python using that site directory runs (a virtualenv's, below the
project): `.pth` lines that begin with `import`, and the `sitecustomize` module in any form
(source, compiled, package). Not in the sandbox: `pip install` writes `.pth` files there, and
the rest of the virtualenv is code that later commands import anyway."""

_TOOLS = (
    *_guarded("npm's options: the shell scripts run in, node options, git", ".npmrc"),
    *_guarded("yarn's options: yarnPath, a program every yarn runs", ".yarnrc", ".yarnrc.yml"),
    *_guarded("code every yarn command loads", ".yarn/releases", ".yarn/plugins"),
    *_guarded("cargo's options: rustc wrappers, linkers", ".cargo/config", ".cargo/config.toml"),
    *_guarded("the toolchain cargo runs", "rust-toolchain", "rust-toolchain.toml"),
    *(
        ProjectFile(path, "mise's hooks, environment scripts and tools", _pattern_or(path))
        for path in _MISE
    ),
    *_guarded("which program a version manager's shim runs (path: versions)", ".tool-versions"),
    *(
        ProjectFile(path, "Mercurial's hooks, run by hg commands", "apart")
        for path in (".hg/hgrc", ".hg/hgrc-not-shared")
    ),
    ProjectFile(".hg", "Mercurial's repository (hg writes its store there)", "none"),
    ProjectFile(
        ".jj/repo/config.toml", "jj's repository settings: its pager, editor, aliases", "none"
    ),
    *_engine_only("code every Python start runs, in a site directory", *_PYTHON_START),
    *_guarded("pdb's commands, run at every breakpoint() started here", ".pdbrc"),
    *_guarded("gdb's commands, run by every gdb started here (auto-load allowing)", ".gdbinit"),
    *_guarded("R code and variables every R started here loads", ".Rprofile", ".Renviron"),
    *_guarded("Ruby code every irb or pry started here loads", ".irbrc", ".pryrc"),
    *_guarded("Elixir code every iex started here evaluates", ".iex.exs"),
    *_guarded("commands every GHCi started here runs", ".ghci"),
    *_guarded("Octave code every octave started here runs", ".octaverc"),
)
"""Tools' project configuration that makes an ordinary command (`npm test`, `yarn`,
`cargo build`, any shimmed program, `hg status`, `python`) run another program; and the
start-up files debuggers and interpreters read from the directory they start in (`.pdbrc`
at a `breakpoint()`, R's `.Rprofile`), as they read the home's (`tether.home_files`)."""

PROJECT_SELF_MODIFYING: tuple[ProjectFile, ...] = (
    ProjectFile(".tether", "tether's settings, hooks, skills, agents, permission seed", "guard"),
    ProjectFile(".claude", "Claude Code's settings, hooks, skills, agents, commands", "guard"),
    ProjectFile(".agents", "skills and agents shared between agents (allowed-tools)", "guard"),
    ProjectFile(".mcp.json", "MCP server definitions: programs the next session starts", "guard"),
    ProjectFile("config/mcp_config.yaml", "the seed's MCP servers, which start programs", "guard"),
    ProjectFile(".vscode", "editor tasks and settings, which run programs", "guard"),
    ProjectFile(".idea", "IDE run configurations and settings, which run programs", "guard"),
    ProjectFile(".husky", "git hooks kept for husky (core.hooksPath)", "guard"),
    ProjectFile(".pre-commit-config.yaml", "commands pre-commit runs at the next commit", "guard"),
    ProjectFile(".git", "git's config and hooks, which run programs at git's next run", "apart"),
    ProjectFile(".envrc", "what direnv runs on entering the directory", "guard"),
    ProjectFile(".cursor", "editor rules and MCP servers", "guard"),
    ProjectFile(
        ".claude-plugin",
        "a plugin's manifest or a marketplace's list of plugins (their code: plugin_places)",
        "none",
    ),
    ProjectFile("hooks/hooks.json", "a plugin's hooks, run by a later session", "none"),
    *_guarded("a dev container's commands", ".devcontainer", ".devcontainer.json"),
    ProjectFile(".gitmodules", "submodule URLs (git ignores commands there)", "guard", False),
    *(
        entry
        for manager, names in HOOK_MANAGERS.items()
        for entry in _guarded(f"{manager}'s configuration: commands its git hook runs", *names)
    ),
    *_TOOLS,
    *(ProjectFile(path, why, "none", globbed=path not in NAMED_ONLY) for path, why in START_FILES),
)
"""The table. An entry that names a directory covers everything below it."""
